/**
 * The pods each uuid has had, in boot order, as `kpm.process-events` tells it. A restart gives
 * a uuid a new pod; the lineage tells an older pod's termination from the current one's, and
 * which pod a kill targeted when its `kill.accepted` was written — in a replay too, because the
 * boot-worker's facts of one session are one ordered partition.
 */
export class PodLineage {
  private readonly pods = new Map<string, string[]>();
  private readonly owner = new Map<string, string>();

  /** Records a booted pod; false when it was known already (a duplicate fact). */
  record(uuid: string, podUid: string): boolean {
    if (this.owner.has(podUid)) return false;
    this.owner.set(podUid, uuid);
    const pods = this.pods.get(uuid);
    if (pods) pods.push(podUid);
    else this.pods.set(uuid, [podUid]);
    return true;
  }

  /** The pods of `uuid`, in boot order. */
  podsOf(uuid: string): readonly string[] {
    return this.pods.get(uuid) ?? [];
  }

  current(uuid: string): string | undefined {
    const pods = this.pods.get(uuid);
    return pods?.[pods.length - 1];
  }

  knows(podUid: string): boolean {
    return this.owner.has(podUid);
  }

  /** Forgets every pod of `uuid` (its process was flushed); returns them. */
  forget(uuid: string): string[] {
    const pods = this.pods.get(uuid) ?? [];
    this.pods.delete(uuid);
    for (const podUid of pods) this.owner.delete(podUid);
    return pods;
  }

  uuids(): IterableIterator<string> {
    return this.pods.keys();
  }

  /** A known pod of `uuid` that a later pod has replaced. */
  isSuperseded(uuid: string, podUid: string): boolean {
    const pods = this.pods.get(uuid);
    return pods !== undefined && pods.includes(podUid) && pods[pods.length - 1] !== podUid;
  }
}
