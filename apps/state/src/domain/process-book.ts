/**
 * What a shard knows about processes and their pods: the table (latest instance per uuid), the
 * pod lineage (which pod of a uuid is current) and every termination seen. It decides whether a
 * fact is new and whether it changes the table, and which pod a kill aims at.
 */
import type { ProcessInstance, ProcessQuery, ProcessTerminated } from '@kpm/contracts';
import { terminationOf } from './process-table';
import type { KillTarget } from './kill-aggregate';
import { PodLineage } from './pod-lineage';
import { ProcessTable } from './process-table';
import { RecentIds } from './recent-ids';
import { TerminationLog } from './termination-log';

/** All a book knows of one process uuid: what a snapshot keeps of it. */
export interface ProcessRecord {
  uuid: string;
  /** Its pods, in boot order. */
  pods: readonly string[];
  terminations: readonly ProcessTerminated[];
  row?: ProcessInstance;
}

/** Whether a fact was seen before, and the table row it changed (only when the table is live). */
interface BookEntry {
  fresh: boolean;
  changed?: ProcessInstance;
}

export class ProcessBook {
  readonly table = new ProcessTable();
  private readonly lineage = new PodLineage();
  private readonly terminations = new TerminationLog();
  /** Pods of flushed processes: a late fact about one does not bring its process back. */
  private readonly forgotten: RecentIds;

  constructor(forgottenPods: number) {
    this.forgotten = new RecentIds(forgottenPods);
  }

  /** Forgets the DEAD processes `query` selects, with their pods (drunc's flush). */
  flush(query: ProcessQuery): ProcessInstance[] {
    const flushed = this.table.flush(query);
    for (const p of flushed) this.forget(p.uuid);
    return flushed;
  }

  /** A replay rebuilds lineage and terminations of every pod in the retention: all kept. */
  suspend(): void {
    this.forgotten.suspend();
  }

  /**
   * Live again: the restored table (`kpm.processes`) is the truth, so the pods of processes it
   * no longer has were flushed before the restart and are forgotten now.
   */
  resume(): void {
    const known = [...this.lineage.uuids(), ...this.terminations.uuids()];
    for (const uuid of new Set(known)) if (!this.table.get(uuid)) this.forget(uuid);
    this.forgotten.resume();
  }

  /** How many pods the book remembers (lineage and terminations), for tests and metrics. */
  get pods(): number {
    return new Set([...this.lineage.uuids(), ...this.terminations.uuids()]).size;
  }

  /**
   * A pod of a uuid is running. `live` is false in a replay, whose table was restored from
   * `kpm.processes` and already holds the outcome.
   */
  booted(instance: ProcessInstance, live: boolean): BookEntry {
    if (this.forgotten.has(instance.podUid)) return { fresh: false };
    if (!this.lineage.record(instance.uuid, instance.podUid)) return { fresh: false };
    if (!live) return { fresh: true };
    return {
      fresh: true,
      changed: this.table.booted(instance, this.terminations.ofPod(instance.podUid)),
    };
  }

  /** A pod ended; a known older pod of the uuid, or a pod not booted yet, leaves the row alone. */
  terminated(termination: ProcessTerminated, live: boolean): BookEntry {
    if (this.forgotten.has(termination.podUid)) return { fresh: false };
    if (!this.terminations.add(termination)) return { fresh: false };
    if (!live) return { fresh: true };
    const row = this.table.get(termination.uuid);
    const current = !row || row.podUid === termination.podUid;
    if (!current || this.lineage.isSuperseded(termination.uuid, termination.podUid))
      return { fresh: true };
    return { fresh: true, changed: this.table.terminated(termination) };
  }

  /**
   * The pod a kill accepted at `acceptedAt` aims at, and its end if that is known already.
   * `podUid` is the pod the boot-worker found (kill.accepted's `podUids`); without it, the pod
   * the lineage says was current. A pod of a flushed process ended before the flush: it is
   * never waited for again, though its termination is no longer kept.
   */
  target(uuid: string, acceptedAt: number, named?: string): KillTarget {
    const row = this.table.get(uuid);
    let podUid = named ?? this.lineage.current(uuid);
    if (podUid === undefined && row && Date.parse(row.bootedAt) <= acceptedAt) podUid = row.podUid;
    const seen = podUid ? this.terminations.ofPod(podUid) : this.terminations.ofUuid(uuid).at(-1);
    if (seen) return { uuid, podUid, ended: seen };
    if (row && row.podUid === podUid && row.statusCode === 'DEAD') {
      return { uuid, podUid, ended: terminationOf(row) };
    }
    if (podUid !== undefined && this.forgotten.has(podUid)) return { uuid, podUid, flushed: true };
    return { uuid, podUid };
  }

  /** The end of `podUid`, if it was seen. */
  endOf(podUid: string): ProcessTerminated | undefined {
    return this.terminations.ofPod(podUid);
  }

  /** Every uuid the book knows (table, pods, terminations), once each. */
  *records(): Generator<ProcessRecord> {
    const uuids = new Set([
      ...this.table.uuids(),
      ...this.lineage.uuids(),
      ...this.terminations.uuids(),
    ]);
    for (const uuid of uuids) {
      const row = this.table.get(uuid);
      const pods = this.lineage.podsOf(uuid);
      const terminations = this.terminations.ofUuid(uuid);
      yield row ? { uuid, pods, terminations, row } : { uuid, pods, terminations };
    }
  }

  /** Takes back a record of `records()`. */
  restore(record: ProcessRecord): void {
    if (record.row) this.table.load(record.row);
    for (const podUid of record.pods) this.lineage.record(record.uuid, podUid);
    for (const termination of record.terminations) this.terminations.add(termination);
  }

  /** Pods of flushed processes, least recently forgotten first. */
  forgottenPods(): IterableIterator<string> {
    return this.forgotten.values();
  }

  restoreForgotten(podUid: string): void {
    this.forgotten.add(podUid);
  }

  private forget(uuid: string): void {
    const pods = [...this.lineage.forget(uuid), ...this.terminations.forget(uuid)];
    for (const podUid of new Set(pods)) this.forgotten.add(podUid);
  }
}
