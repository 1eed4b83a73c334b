/**
 * The state service's process table (drunc's `process_store`): the latest ProcessInstance per
 * uuid. A restart reuses a uuid with a new pod, so every change names the pod (`podUid`) it is
 * about and a fact about another pod never overwrites the current one.
 */
import type { ProcessInstance, ProcessQuery, ProcessTerminated } from '@kpm/contracts';
import { deadInstance, instanceFromTermination, mergeBooted } from './process-view';
import { instanceMatcher } from './query-match';
import { compareSortKeys, sortKeyOf } from './ps-pages';

export class ProcessTable {
  private readonly instances = new Map<string, ProcessInstance>();

  get size(): number {
    return this.instances.size;
  }

  get(uuid: string): ProcessInstance | undefined {
    return this.instances.get(uuid);
  }

  uuids(): IterableIterator<string> {
    return this.instances.keys();
  }

  all(): ProcessInstance[] {
    return [...this.instances.values()];
  }

  /** Restores one entry as `kpm.processes` holds it. */
  load(instance: ProcessInstance): void {
    this.instances.set(instance.uuid, instance);
  }

  /** Restores a tombstone of `kpm.processes`. */
  forget(uuid: string): void {
    this.instances.delete(uuid);
  }

  /**
   * A pod of `instance.uuid` is running; `ended` is its termination if that was seen first.
   * Returns the new entry, or undefined when nothing changed (a duplicate).
   */
  booted(instance: ProcessInstance, ended?: ProcessTerminated): ProcessInstance | undefined {
    const current = this.instances.get(instance.uuid);
    let next = current?.podUid === instance.podUid ? mergeBooted(instance, current) : instance;
    if (ended && ended.podUid === instance.podUid && next.statusCode !== 'DEAD') {
      next = deadInstance(next, ended);
    }
    return this.replace(current, next);
  }

  /**
   * The current pod of `termination.uuid` ended (or a pod of a uuid the table never saw). The
   * caller has checked that the termination is not about an older pod of the uuid.
   */
  terminated(termination: ProcessTerminated): ProcessInstance | undefined {
    const current = this.instances.get(termination.uuid);
    if (!current) return this.replace(undefined, instanceFromTermination(termination));
    if (current.podUid !== termination.podUid || current.statusCode === 'DEAD') return undefined;
    return this.replace(current, deadInstance(current, termination));
  }

  /** Processes `query` selects (an empty query selects all), in a stable order. */
  select(query: ProcessQuery): ProcessInstance[] {
    const matches = instanceMatcher(query);
    return this.all().filter(matches).sort(byName);
  }

  /** Forgets the DEAD processes `query` selects (drunc's flush) and returns them. */
  flush(query: ProcessQuery): ProcessInstance[] {
    const flushed = this.select(query).filter((p) => p.statusCode === 'DEAD');
    for (const p of flushed) this.instances.delete(p.uuid);
    return flushed;
  }

  private replace(
    current: ProcessInstance | undefined,
    next: ProcessInstance,
  ): ProcessInstance | undefined {
    if (current && JSON.stringify(current) === JSON.stringify(next)) return undefined;
    this.instances.set(next.uuid, next);
    return next;
  }
}

/** Session, then name, then uuid: how operators read a table (and how ps pages). */
export function byName(a: ProcessInstance, b: ProcessInstance): number {
  return compareSortKeys(sortKeyOf(a), sortKeyOf(b));
}
