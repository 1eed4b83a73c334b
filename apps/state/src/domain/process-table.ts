/**
 * The state service's process table (drunc's `process_store`): the latest ProcessInstance per
 * uuid. A restart reuses a uuid with a new pod, so every change names the pod (`podUid`) it is
 * about and a fact about another pod never overwrites the current one.
 *
 * Below the table, how its rows read: how facts turn into rows, which rows a query selects, and
 * the table's order (session, name, uuid).
 */
import {
  NO_EXIT_CODE,
  processQueryMatcher,
  type AutomaticRecord,
  type ProcessInstance,
  type ProcessQuery,
  type ProcessTerminated,
} from '@kpm/contracts';

export class ProcessTable {
  private readonly instances = new Map<string, ProcessInstance>();

  get size(): number {
    return this.instances.size;
  }

  get(uuid: string): ProcessInstance | undefined {
    return this.instances.get(uuid);
  }

  /** The current row if it is `instance`'s pod, so a process that died since shows DEAD. */
  latestOf(instance: ProcessInstance): ProcessInstance {
    const row = this.instances.get(instance.uuid);
    return row && row.podUid === instance.podUid ? row : instance;
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
    // The automatic history belongs to the uuid: a restart's new pod carries it on.
    if (current?.automatic && !next.automatic) next = { ...next, automatic: current.automatic };
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

  /** The row of `uuid` with `automatic` as its automatic history (exit-actions.ts); undefined: no row. */
  withAutomatic(uuid: string, automatic: AutomaticRecord): ProcessInstance | undefined {
    const current = this.instances.get(uuid);
    if (!current) return undefined;
    const next = { ...current, automatic };
    this.instances.set(uuid, next);
    return next;
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

/** Session, then name, then uuid, as `byName` orders rows. */
export function compareSortKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    const order = a[i].localeCompare(b[i]);
    if (order !== 0) return order;
  }
  return 0;
}

export function sortKeyOf(process: ProcessInstance): string[] {
  const { session, name } = process.description.metadata;
  return [session, name, process.uuid];
}

// ---- rows from facts ----------------------------------------------------------------

/**
 * How facts turn into ProcessInstances: a booted pod is RUNNING, a termination makes it DEAD
 * with its exit code. A termination whose `process.booted` was never seen (it happened before
 * the retained history, or arrives first) still yields an instance, with what the watcher knows.
 */

/** `instance` ended as `termination` says (pod facts from the termination win: it names the pod). */
export function deadInstance(
  instance: ProcessInstance,
  termination: ProcessTerminated,
): ProcessInstance {
  return {
    ...instance,
    namespace: termination.namespace,
    podName: termination.podName,
    podUid: termination.podUid,
    statusCode: 'DEAD',
    returnCode: termination.exitCode,
    reason: termination.reason,
    terminatedAt: termination.finishedAt ?? termination.observedAt,
  };
}

/** The instance a termination alone describes: no command line or environment is known. */
export function instanceFromTermination(termination: ProcessTerminated): ProcessInstance {
  const base: ProcessInstance = {
    uuid: termination.uuid,
    description: {
      metadata: {
        user: termination.user,
        session: termination.session,
        name: termination.name,
      },
      env: {},
      executableAndArguments: [],
    },
    restriction: { allowedHosts: [] },
    statusCode: 'RUNNING',
    namespace: termination.namespace,
    podName: termination.podName,
    podUid: termination.podUid,
    role: 'unknown',
    bootedAt: termination.startedAt ?? termination.observedAt,
  };
  return deadInstance(base, termination);
}

/** Keeps the death of `current` when a duplicate or late `process.booted` of the same pod arrives. */
export function mergeBooted(booted: ProcessInstance, current: ProcessInstance): ProcessInstance {
  if (current.statusCode !== 'DEAD') return booted;
  return {
    ...booted,
    statusCode: 'DEAD',
    returnCode: current.returnCode,
    reason: current.reason,
    terminatedAt: current.terminatedAt,
  };
}

/** The termination a DEAD row stands for, when its record is older than the retained history. */
export function terminationOf(row: ProcessInstance): ProcessTerminated {
  const { metadata } = row.description;
  return {
    uuid: row.uuid,
    session: metadata.session,
    name: metadata.name,
    user: metadata.user,
    namespace: row.namespace,
    podName: row.podName,
    podUid: row.podUid,
    exitCode: row.returnCode ?? NO_EXIT_CODE,
    reason: row.reason ?? 'Unknown',
    phase: 'Unknown',
    observedAt: row.terminatedAt ?? row.bootedAt,
    ...(row.terminatedAt ? { finishedAt: row.terminatedAt } : {}),
    detectedBy: 'reconcile',
  };
}

// ---- rows a query selects ------------------------------------------------------------

/**
 * The contract's ProcessQuery matcher over the process table's rows. An empty query matches
 * every row: ps and flush read it as "all".
 */

type InstanceMatcher = (instance: ProcessInstance) => boolean;

export function instanceMatcher(query: ProcessQuery): InstanceMatcher {
  const matches = processQueryMatcher(query);
  return (instance) => matches({ uuid: instance.uuid, ...instance.description.metadata });
}
