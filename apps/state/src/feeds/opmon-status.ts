/**
 * opmon's ProcessStatus (docs/design.md §5.7): drunc's process manager publishes its process
 * counts every `interval_s`, with `n_session` the number of sessions it holds processes of. kpm
 * publishes one entry per DAQ session, origin that session, with that session's counts and
 * `n_session` 1: summed over the sessions (as Grafana does) they are drunc's numbers, and each
 * session's panel sees its own. Pure: a session's rows in, opmonlib's OpMonEntry out.
 */
import type { ProcessInstance } from '@kpm/contracts';
import { FeedMessage } from './feed-protos';

export interface ProcessStatus {
  n_running: number;
  n_dead: number;
  n_session: number;
}

export interface OpmonEntry {
  time: { seconds: number; nanos: number };
  origin: { session: string; application: string; substructure: string[] };
  custom_origin: Record<string, string>;
  measurement: string;
  data: Record<string, { uint4_value: number }>;
}

/** One session's counts (a session with rows counts once). */
export function processStatus(rows: Iterable<Pick<ProcessInstance, 'statusCode'>>): ProcessStatus {
  let running = 0;
  let dead = 0;
  for (const row of rows) {
    if (row.statusCode === 'RUNNING') running++;
    else dead++;
  }
  return { n_running: running, n_dead: dead, n_session: running + dead > 0 ? 1 : 0 };
}

/** kafkaopmon's entry: the measurement's fields flattened into `data`, one value each. */
export function opmonEntry(
  session: string,
  application: string,
  status: ProcessStatus,
  now: number,
): OpmonEntry {
  return {
    time: { seconds: Math.floor(now / 1000), nanos: (now % 1000) * 1_000_000 },
    origin: { session, application, substructure: [] },
    custom_origin: {},
    measurement: FeedMessage.processStatus,
    data: Object.fromEntries(
      Object.entries(status).map(([field, value]: [string, number]) => [
        field,
        { uint4_value: value },
      ]),
    ),
  };
}

/** kafkaopmon's key: `<session>.<application>[.<substructure>…]/<measurement>`. */
export function opmonKey(entry: Pick<OpmonEntry, 'origin' | 'measurement'>): string {
  const { session, application, substructure } = entry.origin;
  return `${[session, application, ...substructure].join('.')}/${entry.measurement}`;
}
