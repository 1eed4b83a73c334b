/**
 * The session's namespace for a boot: created with kpm's creator label and the owner's user
 * label, after waiting out a Terminating one of the same name; its pod-security level is drunc's:
 * privileged when a pod needs the host, else baseline.
 */
import type { V1Namespace } from '@kubernetes/client-node';
import { failureOf } from '@kpm/kube';
import type { Cluster } from '../cluster/cluster';
import { checkStopping, StopRequested } from '../commands/command-context';
import { bootFailure, type BootFailure } from './boot-failure';
import type { PlannedProcess } from './planned-process';
import type { PodBuilder } from './pod-builder';
import { POD_SECURITY_ENFORCE, podSecurityLabels, type PodSecurityLevel } from './pod-policy';
import { namespaceView } from './session-ownership';

interface SessionRequest {
  session: string;
  user: string;
  level: PodSecurityLevel;
}

export class SessionNamespace {
  constructor(
    private readonly cluster: Cluster,
    private readonly builder: PodBuilder,
    private readonly cleanupTimeoutSeconds: number,
  ) {}

  /** The session's namespace now, kpm's or not; undefined when there is none. */
  read(session: string): Promise<V1Namespace | undefined> {
    return this.cluster.namespaces.read(session);
  }

  /** Why the session cannot take the boot's processes, or undefined once its namespace is ready. */
  async prepare(
    current: V1Namespace | undefined,
    { session, user }: { session: string; user: string },
    processes: readonly PlannedProcess[],
    signal: AbortSignal,
  ): Promise<BootFailure | undefined> {
    const hostAccess = processes.some((p) => this.builder.needsHostAccess(p, user));
    const request: SessionRequest = {
      session,
      user,
      level: hostAccess ? 'privileged' : 'baseline',
    };
    try {
      return await this.ensure(current, request, signal);
    } catch (error) {
      if (error instanceof StopRequested) throw error;
      const { reason, message } = failureOf(error);
      return bootFailure(reason || 'NamespaceFailed', `namespace ${session}: ${message}`);
    }
  }

  private async ensure(
    current: V1Namespace | undefined,
    { session, user, level }: SessionRequest,
    signal: AbortSignal,
  ): Promise<BootFailure | undefined> {
    const { namespaces, labels } = this.cluster;
    let namespace = current;
    if (namespace?.metadata?.deletionTimestamp) {
      const timeoutS = this.cleanupTimeoutSeconds;
      const gone = await namespaces.waitGone(session, timeoutS * 1000, signal);
      checkStopping(signal);
      if (!gone)
        return bootFailure(
          'NamespaceTerminating',
          `namespace ${session} is still terminating after ${timeoutS} s`,
        );
      namespace = undefined;
    }
    namespace ??= await namespaces.create(session, {
      [labels.session]: session,
      [labels.user]: user,
      ...podSecurityLabels(level),
    });
    const view = namespaceView(namespace, labels);
    if (!view.kpm || view.owner !== user) {
      const holder = view.owner ?? 'someone other than kpm';
      return bootFailure('SessionTaken', `namespace ${session} was taken meanwhile by ${holder}`);
    }
    if (namespace.metadata?.deletionTimestamp)
      return bootFailure('NamespaceTerminating', `namespace ${session} is being deleted`);
    await this.loosenIfNeeded(namespace, level);
    return undefined;
  }

  /** A later boot that needs host access loosens the level (never tightens: pods run). */
  private async loosenIfNeeded(namespace: V1Namespace, level: PodSecurityLevel): Promise<void> {
    const current = namespace.metadata?.labels?.[POD_SECURITY_ENFORCE];
    if (level === 'privileged' && current !== 'privileged') {
      await this.cluster.namespaces.setLabels(namespace, podSecurityLabels(level));
    }
  }
}
