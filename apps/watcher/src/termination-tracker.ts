/**
 * What the watcher knows of kpm's pods during one leadership term, and what follows from each
 * thing it sees: publish a termination, or release the termination-record finalizer. No I/O.
 *
 * - One termination per pod uid (a restart reuses the process uuid, never the uid).
 * - The first terminal verdict is kept: Kubernetes may later rewrite a deleted pod's statuses
 *   (137 ContainerStatusUnknown), and the publication may be retried in between.
 * - The finalizer is released only after the termination is on Kafka, on any event type.
 * - A re-list (start, 410, periodic reconcile) reports pods it knew that are gone as −1
 *   PodDeleted, detected by reconcile (drunc's word for a deleted pod).
 * - A pod first seen already ended and without the finalizer was recorded before (by an earlier
 *   watcher: the finalizer goes only after publication), so a restart does not re-publish every
 *   ended pod still lying around. One still holding it is published (again: same id).
 * - A fresh term starts from the pods the process table still shows RUNNING (`expect`), like
 *   virtual-kubelet's sweep of dangling pods: one the first list lacks ended while no watcher ran
 *   (its finalizer removed by someone else) and is reported PodDeleted; one listed ended without
 *   the finalizer is published too (the table never heard of its end; same id, so no duplicate).
 * - A pod being deleted on a node the cluster lost (`nodes`: Ready Unknown) ends NodeLost at once:
 *   no kubelet will stop it or report it. Told of a newly lost node, the tracker judges again the
 *   pods it follows there.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { DetectionSource } from '@kpm/contracts';
import type { KpmLabels, NodeLoss } from '@kpm/kube';
import { podIdentity, type PodIdentity, type Termination } from './termination';
import { trackedPod } from './tracked-pod';
import {
  isoTime,
  terminalVerdict,
  vanishedVerdict,
  type PodEventType,
  type TerminalVerdict,
} from './rules/termination-rules';

export type TrackerAction =
  { kind: 'publish'; termination: Termination } | { kind: 'release'; pod: V1Pod };

type Stage = 'watching' | 'publishing' | 'recorded';

interface Entry {
  identity: PodIdentity;
  /** The latest pod seen, trimmed (tracked-pod.ts): its finalizer list is what the patch tests. */
  pod: V1Pod;
  stage: Stage;
  /** The first terminal verdict, kept until Kafka acknowledged it. */
  termination?: Termination;
  /** Deleted, or missing from a re-list: nothing to release any more. */
  gone: boolean;
  releasing: boolean;
  /** Known only from the process table so far: not yet seen in the cluster. */
  unseen?: boolean;
}

/** A pod the process table shows RUNNING: what the watcher must find in its first list. */
export interface ExpectedPod {
  podUid: string;
  namespace: string;
  podName: string;
  uuid: string;
  session: string;
  name: string;
  user: string;
}

interface TrackerCounts {
  watching: number;
  publishing: number;
  recorded: number;
}

export class TerminationTracker {
  private readonly entries = new Map<string, Entry>();
  /** The nodes the cluster has lost, as last told (`nodes`). */
  private lost: ReadonlyMap<string, NodeLoss> = new Map();

  constructor(
    private readonly labels: KpmLabels,
    private readonly fatalWaitingReasons: ReadonlySet<string>,
    private readonly now: () => Date = () => new Date(),
    /** Transient image-pull failures end a pod only after this long (0: at once). */
    private readonly imagePullGraceSeconds = 0,
  ) {}

  /** One pod as the watch stream (or a re-list) delivered it. */
  observe(type: PodEventType, pod: V1Pod, detectedBy: DetectionSource): TrackerAction[] {
    const uid = pod.metadata?.uid;
    if (!uid || !this.labels.isOurs(pod.metadata?.labels)) return [];
    const kept = trackedPod(pod, this.labels);
    let entry = this.entries.get(uid);
    const firstSight = !entry;
    const expected = entry?.unseen === true;
    if (entry) entry.unseen = false;
    if (!entry) {
      entry = {
        identity: podIdentity(pod, this.labels),
        pod: kept,
        stage: 'watching',
        gone: false,
        releasing: false,
      };
      this.entries.set(uid, entry);
    }
    entry.pod = kept;
    if (type === 'DELETED') entry.gone = true;

    if (entry.stage === 'recorded') {
      if (entry.gone) {
        this.entries.delete(uid);
        return [];
      }
      return this.releaseIfHeld(entry);
    }
    if (entry.stage === 'publishing') return [];

    const verdict = this.judge(pod, type);
    if (!verdict.terminal) return [];
    if (firstSight && !expected && type !== 'DELETED' && !this.holdsFinalizer(pod)) {
      entry.stage = 'recorded';
      return [];
    }
    return this.publishing(entry, verdict, detectedBy, pod);
  }

  /**
   * The nodes the cluster has lost now (Ready Unknown), all of them: pods followed on a node lost
   * since the last call are judged again from what is kept of them (being deleted there: NodeLost).
   */
  nodes(lost: ReadonlyMap<string, NodeLoss>): TrackerAction[] {
    const before = this.lost;
    this.lost = lost;
    const actions: TrackerAction[] = [];
    for (const entry of this.entries.values()) {
      const node = entry.pod.spec?.nodeName;
      if (entry.stage !== 'watching' || !node || !lost.has(node) || before.has(node)) continue;
      const verdict = this.judge(entry.pod, 'MODIFIED');
      if (verdict.terminal) actions.push(...this.publishing(entry, verdict, 'watch', entry.pod));
    }
    return actions;
  }

  private judge(pod: V1Pod, type: PodEventType) {
    const node = pod.spec?.nodeName;
    return terminalVerdict(
      pod,
      type,
      this.fatalWaitingReasons,
      { graceSeconds: this.imagePullGraceSeconds, now: this.now() },
      node === undefined ? undefined : this.lost.get(node),
    );
  }

  private publishing(
    entry: Entry,
    verdict: TerminalVerdict,
    detectedBy: DetectionSource,
    pod: V1Pod,
  ): TrackerAction[] {
    entry.stage = 'publishing';
    entry.termination = {
      identity: entry.identity,
      verdict,
      detectedBy,
      observedAt: this.now().toISOString(),
      ...deletionOf(pod),
    };
    return [{ kind: 'publish', termination: entry.termination }];
  }

  /**
   * Pods the process table shows RUNNING, before a fresh term's first list: those the list lacks
   * are reported as deleted. Pods already known are left as they are.
   */
  expect(pods: readonly ExpectedPod[]): void {
    for (const expected of pods) {
      if (!expected.podUid || this.entries.has(expected.podUid)) continue;
      const { podUid: uid, namespace, podName: name } = expected;
      this.entries.set(uid, {
        identity: { ...expected },
        pod: { metadata: { uid, namespace, name }, status: { phase: 'Unknown' } },
        stage: 'watching',
        gone: false,
        releasing: false,
        unseen: true,
      });
    }
  }

  /**
   * A complete list of kpm's pods, taken after the previous stream stopped: each listed pod is
   * observed; a pod known before and missing now was deleted while nobody watched.
   */
  resync(pods: readonly V1Pod[]): TrackerAction[] {
    const listed = new Set<string>();
    const actions: TrackerAction[] = [];
    for (const pod of pods) {
      const uid = pod.metadata?.uid;
      if (uid) listed.add(uid);
      actions.push(...this.observe('ADDED', pod, 'reconcile'));
    }
    for (const [uid, entry] of this.entries) {
      if (listed.has(uid)) continue;
      entry.gone = true;
      if (entry.stage === 'recorded') this.entries.delete(uid);
      if (entry.stage !== 'watching') continue;
      entry.stage = 'publishing';
      entry.termination = {
        identity: entry.identity,
        verdict: vanishedVerdict(entry.pod.status?.phase),
        detectedBy: 'reconcile',
        observedAt: this.now().toISOString(),
        ...deletionOf(entry.pod),
      };
      actions.push({ kind: 'publish', termination: entry.termination });
    }
    return actions;
  }

  /** Kafka acknowledged these terminations: their finalizers may go. */
  published(uids: readonly string[]): TrackerAction[] {
    const actions: TrackerAction[] = [];
    for (const uid of uids) {
      const entry = this.entries.get(uid);
      if (!entry || entry.stage !== 'publishing') continue;
      if (entry.gone) {
        this.entries.delete(uid);
        continue;
      }
      entry.stage = 'recorded';
      entry.termination = undefined;
      actions.push(...this.releaseIfHeld(entry));
    }
    return actions;
  }

  /** A finalizer release finished; `removed` false means it must be retried on a later event. */
  released(uid: string, removed: boolean): void {
    const entry = this.entries.get(uid);
    if (!entry) return;
    entry.releasing = false;
    if (removed) entry.pod = this.withoutFinalizer(entry.pod);
  }

  /**
   * A new leadership term continues this memory (nobody else led meanwhile): what was on its way
   * when the last term stopped is published again, releases in flight are owed again.
   */
  resume(): TrackerAction[] {
    const actions: TrackerAction[] = [];
    for (const entry of this.entries.values()) {
      entry.releasing = false;
      if (entry.stage === 'publishing' && entry.termination) {
        actions.push({ kind: 'publish', termination: entry.termination });
      }
    }
    return actions;
  }

  /** Finalizer releases still owed (after failures): the periodic reconcile asks for them too. */
  pendingReleases(): TrackerAction[] {
    return [...this.entries.values()].flatMap((entry) =>
      entry.stage === 'recorded' && !entry.gone ? this.releaseIfHeld(entry) : [],
    );
  }

  counts(): TrackerCounts {
    const counts: TrackerCounts = { watching: 0, publishing: 0, recorded: 0 };
    for (const entry of this.entries.values()) counts[entry.stage]++;
    return counts;
  }

  private releaseIfHeld(entry: Entry): TrackerAction[] {
    if (entry.releasing || !this.holdsFinalizer(entry.pod)) return [];
    entry.releasing = true;
    return [{ kind: 'release', pod: entry.pod }];
  }

  private holdsFinalizer(pod: V1Pod): boolean {
    return pod.metadata?.finalizers?.includes(this.labels.terminationFinalizer) ?? false;
  }

  private withoutFinalizer(pod: V1Pod): V1Pod {
    const finalizers = pod.metadata?.finalizers?.filter(
      (name) => name !== this.labels.terminationFinalizer,
    );
    return { ...pod, metadata: { ...pod.metadata, finalizers } };
  }
}

/** The pod's deletionTimestamp, when its deletion was asked (a kill's, or anyone's). */
function deletionOf(pod: V1Pod): { deletionRequestedAt?: string } {
  const at = isoTime(pod.metadata?.deletionTimestamp);
  return at ? { deletionRequestedAt: at } : {};
}
