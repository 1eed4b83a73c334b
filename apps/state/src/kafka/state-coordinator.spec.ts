import type { KpmEvent } from '@kpm/contracts';
import {
  booted,
  bootAccepted,
  killAccepted,
  SESSION,
  terminated,
  uuidOf,
} from '../domain/__fixtures__/facts';
import { StateBench } from './__fixtures__/state-bench';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const TRACE = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/**
 * A bench with run-42's shard restored and two processes booted; the snapshot a first restore
 * writes soon (it had none) is written.
 */
async function booted2() {
  const bench = new StateBench({}, T0);
  const p = bench.partitionOf(SESSION);
  await bench.start([p]);
  bench.deliver(
    'process-events',
    bootAccepted('boot-1', ['ru-01', 'ru-02']),
    booted('boot-1', 'ru-01'),
    booted('boot-1', 'ru-02'),
  );
  await bench.advance(p, 1_000);
  return { bench, p };
}

const replayed = async (bench: StateBench) =>
  (await bench.metrics.restoreReplayed.get()).values[0]?.value ?? 0;

const traced = (event: KpmEvent): KpmEvent => ({ ...event, traceparent: TRACE });

describe('StateCoordinator: the flow of a partition', () => {
  it('completes a boot once, and a kill when its last pod ended, in the kill’s trace', async () => {
    const { bench } = await booted2();
    bench.deliver('process-events', traced(killAccepted('kill-1', [['ru-01', 'ru-02']])));
    bench.deliver('terminations', terminated('ru-01', 143));
    expect(bench.completions()).toEqual(['boot-1 succeeded']);
    bench.deliver('terminations', terminated('ru-02', 143));
    expect(bench.completions()).toEqual(['boot-1 succeeded', 'kill-1 succeeded']);
    const [, kill] = bench.kafka.events(bench.topic('completions'));
    expect(kill.traceparent).toBe(TRACE);
  });

  it('wakes at the kill deadline and completes it timed_out with the pods still pending', async () => {
    const { bench, p } = await booted2();
    const accepted = killAccepted('kill-1', [['ru-01', 'ru-02']], { timeoutSeconds: 60 });
    bench.deliver('process-events', traced(accepted));
    bench.deliver('terminations', terminated('ru-01', 143));
    const deadline = Date.parse(accepted.time!) + 60_000;
    expect(bench.coordinator.nextWake(p)).toBe(deadline + 5);
    await bench.advance(p, deadline - bench.clock.now() - 1);
    expect(bench.completions()).toEqual(['boot-1 succeeded']);
    await bench.advance(p, 10);
    expect(bench.completions()).toEqual(['boot-1 succeeded', 'kill-1 timed_out']);
    const kill = bench.kafka.events(bench.topic('completions'))[1];
    expect(kill).toMatchObject({ traceparent: TRACE, data: { pending: [uuidOf('ru-02')] } });
    // Only the next snapshot is left, 300 s after the first record since the last one.
    expect(bench.coordinator.nextWake(p)).toBe(T0 + 1_000 + 300_000);
  });

  it('after a crash, restores from what was committed: nothing is answered twice, an open kill still completes', async () => {
    const { bench, p } = await booted2();
    bench.deliver('process-events', killAccepted('kill-1', [['ru-01', 'ru-02']]));
    bench.deliver('terminations', terminated('ru-01', 143));
    await bench.start([p]);
    expect(bench.completions()).toEqual(['boot-1 succeeded']);
    expect(bench.coordinator.openCommand('kill-1')).toBeDefined();
    bench.deliver('terminations', terminated('ru-02', 143));
    expect(bench.completions()).toEqual(['boot-1 succeeded', 'kill-1 succeeded']);
  });

  it('publishes first, after a restore, a completion its replay finds due that never went out', async () => {
    const bench = new StateBench({}, T0);
    const p = bench.partitionOf(SESSION);
    // The facts committed, the completion lost with the crashed owner's transaction.
    bench.kafka.append(bench.topic('process-events'), p, encoded(bootAccepted('boot-1', ['a'])));
    bench.kafka.append(bench.topic('process-events'), p, encoded(booted('boot-1', 'a')));
    bench.committed.set(bench.topic('process-events'), new Map([[p, '2']]));
    await bench.start([p]);
    expect(bench.completions()).toEqual(['boot-1 succeeded']);
  });

  it('writes a snapshot soon after a restore without one; the next restore replays only what came after it', async () => {
    const { bench, p } = await booted2();
    expect(bench.kafka.log(bench.topic('state-snapshots'), p).length).toBeGreaterThan(0);
    bench.deliver('process-events', killAccepted('kill-1', [['ru-01']]));
    await bench.start([p]);
    expect(await replayed(bench)).toBe(1);
    bench.deliver('terminations', terminated('ru-01', 0));
    expect(bench.completions()).toEqual(['boot-1 succeeded', 'kill-1 succeeded']);
  });

  it('writes the next snapshot snapshotIntervalSeconds after the first record since the last', async () => {
    const { bench, p } = await booted2();
    const before = bench.kafka.log(bench.topic('state-snapshots'), p).length;
    bench.deliver('terminations', terminated('ru-01', 0));
    expect(bench.coordinator.nextWake(p)).toBe(bench.clock.now() + 300_000);
    await bench.advance(p, 300_000);
    expect(bench.kafka.log(bench.topic('state-snapshots'), p).length).toBeGreaterThan(before);
  });

  it('forgets a released partition: no open command, no wake', async () => {
    const { bench, p } = await booted2();
    bench.deliver('process-events', killAccepted('kill-1', [['ru-01']]));
    bench.coordinator.release(p);
    expect(bench.coordinator.openCommand('kill-1')).toBeUndefined();
    expect(bench.coordinator.nextWake(p)).toBeUndefined();
    expect(bench.coordinator.owned()).toEqual([]);
  });

  it('dead-letters an unreadable fact in the batch’s own outputs and goes on', async () => {
    const { bench, p } = await booted2();
    const topic = bench.topic('terminations');
    const bad = bench.kafka.append(topic, p, {
      key: SESSION,
      value: Buffer.from('{ nope'),
      headers: {},
    });
    bench.kafka.write(bench.coordinator.process(p, [bad]));
    expect(bench.kafka.events(bench.topic('dead-letters'))).toHaveLength(1);
    bench.deliver('process-events', killAccepted('kill-1', [['ru-01']]));
    bench.deliver('terminations', terminated('ru-01', 0));
    expect(bench.completions()).toContain('kill-1 succeeded');
  });
});

function encoded(event: KpmEvent) {
  const { key, value, headers } = encodeEventOf(event);
  return { key, value, headers };
}

function encodeEventOf(event: KpmEvent) {
  return { key: event.subject ?? null, value: Buffer.from(JSON.stringify(event)), headers: {} };
}
