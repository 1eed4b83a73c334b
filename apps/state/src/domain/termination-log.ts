/**
 * Every termination seen, by pod uid (the watcher's de-duplication key): a termination may
 * arrive before the `process.booted` of its pod or the `kill.accepted` that targets it, and is
 * matched when they come.
 */
import type { ProcessTerminated } from '@kpm/contracts';

export class TerminationLog {
  private readonly byPod = new Map<string, ProcessTerminated>();
  private readonly byUuid = new Map<string, ProcessTerminated[]>();

  /** False when this pod's termination was seen already (a re-published record). */
  add(termination: ProcessTerminated): boolean {
    if (this.byPod.has(termination.podUid)) return false;
    this.byPod.set(termination.podUid, termination);
    const list = this.byUuid.get(termination.uuid);
    if (list) list.push(termination);
    else this.byUuid.set(termination.uuid, [termination]);
    return true;
  }

  ofPod(podUid: string): ProcessTerminated | undefined {
    return this.byPod.get(podUid);
  }

  /** The terminations of a uuid, oldest first. */
  ofUuid(uuid: string): readonly ProcessTerminated[] {
    return this.byUuid.get(uuid) ?? [];
  }

  /** Forgets the terminations of `uuid` (its process was flushed); returns their pods. */
  forget(uuid: string): string[] {
    const pods = (this.byUuid.get(uuid) ?? []).map((t) => t.podUid);
    this.byUuid.delete(uuid);
    for (const podUid of pods) this.byPod.delete(podUid);
    return pods;
  }

  uuids(): IterableIterator<string> {
    return this.byUuid.keys();
  }

  get size(): number {
    return this.byPod.size;
  }
}
