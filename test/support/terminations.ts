import { eventually } from '@kpm/common';
import { terminationEventId, TerminationType, type ProcessTerminated } from '@kpm/contracts';
import type { ProbedRecord, TopicProbe } from './topic-probe';

export interface TerminationSeen {
  id: string;
  key: string | null;
  data: ProcessTerminated;
}

function asTermination(record: ProbedRecord): TerminationSeen | undefined {
  if (record.event?.type !== TerminationType.processTerminated) return undefined;
  return {
    id: record.event.id,
    key: record.key,
    data: record.event.data as unknown as ProcessTerminated,
  };
}

/** Every termination the probe has read so far. */
export function terminationsSeen(probe: TopicProbe): TerminationSeen[] {
  return probe.records.flatMap((record) => asTermination(record) ?? []);
}

/** Waits for the termination of the pod with `podUid` (its record id derives from the uid). */
export async function terminationOf(
  probe: TopicProbe,
  podUid: string,
  timeoutMs = 30_000,
): Promise<TerminationSeen> {
  const id = terminationEventId(podUid);
  const record = await probe.waitFor((r) => r.event?.id === id, timeoutMs);
  return asTermination(record)!;
}

/** Waits until every pod uid has at least one termination on the topic; names the missing ones. */
export async function allTerminations(
  probe: TopicProbe,
  podUids: readonly string[],
  timeoutMs: number,
): Promise<Map<string, TerminationSeen[]>> {
  const wanted = new Map(podUids.map((uid) => [terminationEventId(uid), uid]));
  return eventually(
    () => {
      const byUid = new Map<string, TerminationSeen[]>();
      for (const seen of terminationsSeen(probe)) {
        const uid = wanted.get(seen.id);
        if (uid) byUid.set(uid, [...(byUid.get(uid) ?? []), seen]);
      }
      if (byUid.size === wanted.size) return byUid;
      const missing = podUids.filter((uid) => !byUid.has(uid));
      throw new Error(
        `${missing.length} of ${podUids.length} terminations missing, e.g. ${missing.slice(0, 5).join(', ')}`,
      );
    },
    { what: 'every termination', timeoutMs, everyMs: 200 },
  );
}
