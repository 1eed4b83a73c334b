/**
 * `node --require tsx/cjs bench/replay.ts [processes] [json|snapshot]`: how fast a state shard's
 * restore replays history once read (parse each record, apply it), without Kafka: the part of
 * the restore rate that is kpm's own. Run under `node --cpu-prof` to see where it goes; a third
 * argument `json` replaces parseRecord by JSON.parse, to see what validation costs; `snapshot`
 * instead times writing the shard that history leaves (every process DEAD, none flushed) as a
 * snapshot's records and loading them back, as a restore from the snapshot does.
 */
import { encodeEvent, type KpmEvent } from '@kpm/contracts';
import type { InboundRecord } from '@kpm/kafka';
import { loadSettings } from '@kpm/config';
import { StateShard } from '../apps/state/src/domain/state-shard';
import {
  bootAccepted,
  booted,
  killAccepted,
  terminated,
} from '../apps/state/src/domain/__fixtures__/facts';
import { replayRecord } from '../apps/state/src/kafka/shard-restore';
import {
  entriesOf,
  SnapshotCollector,
  snapshotRecords,
} from '../apps/state/src/kafka/snapshot-records';

function history(n: number): InboundRecord[] {
  const names = Array.from({ length: n }, (_, i) => `app-${i}`);
  const events: KpmEvent[] = [
    bootAccepted('boot-1', names),
    ...names.map((name) => booted('boot-1', name)),
    killAccepted('kill-1', [names]),
    ...names.map((name) => terminated(name, 143)),
  ];
  return events.map((event, offset) => {
    const { key, value, headers } = encodeEvent(event);
    const topic = event.type.includes('terminated') ? 'kpm.terminations' : 'kpm.process-events';
    return { topic, partition: 0, offset: String(offset), key, value, headers, timestamp: '0' };
  });
}

const msSince = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6;

/** The live shard after `records`, written as a snapshot and loaded back, three times. */
async function snapshotRoundTrip(records: InboundRecord[]): Promise<void> {
  const shard = new StateShard(() => 0);
  const applied = process.hrtime.bigint();
  for (const record of records) {
    const event = JSON.parse(record.value!.toString('utf8')) as KpmEvent;
    shard.apply(event, 0);
  }
  console.log(`${records.length} facts applied live in ${msSince(applied).toFixed(0)} ms`);
  const positions = { inputs: {}, completionsFrom: '0', processesFrom: {} };
  for (let round = 0; round < 3; round++) {
    const written = process.hrtime.bigint();
    const {
      records: parts,
      head,
      bytes,
    } = await snapshotRecords('s', 0, positions, shard.snapshot(), 0);
    const writeMs = msSince(written);
    const loaded = process.hrtime.bigint();
    const collector = new SnapshotCollector();
    for (const [i, part] of parts.entries())
      collector.add({
        ...part,
        partition: 0,
        offset: String(i),
        value: part.value === null ? null : Buffer.from(part.value),
        headers: {},
        timestamp: '0',
      });
    const copy = new StateShard(() => 0);
    copy.beginRestore();
    const loader = copy.snapshotLoader();
    for (const entry of entriesOf(collector.found(0)!)) loader.take(entry);
    loader.finish();
    copy.endRestore();
    console.log(
      `snapshot of ${copy.table.size} processes: ${head.entries} entries, ${head.parts} parts, ` +
        `${(bytes / 2 ** 20).toFixed(0)} MiB; written in ${writeMs.toFixed(0)} ms, ` +
        `loaded in ${msSince(loaded).toFixed(0)} ms`,
    );
  }
}

function main(): void {
  const n = Number(process.argv[2] ?? 10_000);
  if (process.argv[3] === 'snapshot') {
    void snapshotRoundTrip(history(n));
    return;
  }
  const settings = loadSettings('state', {});
  const records = history(n);
  const trusting = process.argv[3] === 'json';
  for (let round = 0; round < 3; round++) {
    const shard = new StateShard(() => 0);
    shard.beginRestore();
    const started = process.hrtime.bigint();
    for (const record of records) {
      if (!trusting) replayRecord(settings, shard, record);
      else {
        // The ceiling without validation: what the shard itself costs.
        const event = JSON.parse(record.value!.toString('utf8')) as KpmEvent;
        shard.apply(event, 0);
      }
    }
    shard.endRestore();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(
      `${records.length} records in ${ms.toFixed(0)} ms: ${Math.round((records.length / ms) * 1000)} records/s`,
    );
  }
}

main();
