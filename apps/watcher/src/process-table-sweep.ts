/**
 * What the process table (`kpm.processes`, compacted) still shows RUNNING: the pods a fresh
 * watcher term must find in its first list. A pod deleted while no watcher ran — its finalizer
 * removed by someone else — left nothing in the cluster to see; only the table remembers it.
 */
import { parseRecord, ProcessTableType, topicName, type ProcessInstance } from '@kpm/contracts';
import { readPartitionHistory, type InboundRecord, type KafkaClient } from '@kpm/kafka';
import type { ExpectedPod } from './termination-tracker';

interface TableSweepOptions {
  topicPrefix: string;
  partitions: number;
  /** Names the read in its timeout error. */
  label: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Reads the whole table once and returns the pods of its RUNNING rows. */
export async function readRunningPods(
  kafka: KafkaClient,
  options: TableSweepOptions,
): Promise<ExpectedPod[]> {
  const topic = topicName('processes', options.topicPrefix);
  const records: InboundRecord[] = [];
  const partitions = Array.from({ length: options.partitions }, (_, p) => p);
  await readPartitionHistory(kafka, [{ topic, partitions, until: 'end' }], (r) => records.push(r), {
    label: options.label,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  return runningPods(records);
}

/**
 * The latest row per process uuid (a tombstone forgets it), kept when RUNNING. Records that are
 * not table rows are skipped: the state service validated what it wrote.
 */
export function runningPods(records: readonly InboundRecord[]): ExpectedPod[] {
  const latest = new Map<string, ProcessInstance | undefined>();
  for (const record of records) {
    if (record.key === null) continue;
    if (record.value === null) {
      latest.set(record.key, undefined);
      continue;
    }
    const parsed = parseRecord(record.value, { expectedTypes: [ProcessTableType.processInstance] });
    if (parsed.ok) latest.set(record.key, parsed.event.data as ProcessInstance);
  }
  return [...latest.values()].flatMap((row) =>
    row && row.statusCode === 'RUNNING' && row.podUid ? [expectedPod(row)] : [],
  );
}

function expectedPod(row: ProcessInstance): ExpectedPod {
  const { user, session, name } = row.description.metadata;
  return {
    podUid: row.podUid,
    namespace: row.namespace,
    podName: row.podName,
    uuid: row.uuid,
    session,
    name,
    user,
  };
}
