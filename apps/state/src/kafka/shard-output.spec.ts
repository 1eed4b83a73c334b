/**
 * A completion is a span in its command's trace once its transaction committed — never one a
 * failed transaction decided (it is decided again after the restore, and told then).
 */
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import type { Broadcaster } from '@kpm/service-kit';
import { flushTracing, startTracing, type Tracing } from '@kpm/tracing';
import { instance, SESSION } from '../domain/__fixtures__/facts';
import { completionEffects } from '../domain/broadcasts';
import { EffectRecords } from './effect-records';
import { ShardOutput } from './shard-output';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const traceparent = `00-${TRACE}-00f067aa0ba902b7-01`;
const broadcaster = {
  encode: () => ({ key: SESSION, value: Buffer.from('{}'), headers: {} }),
} as unknown as Broadcaster;

function completionOf(commandId: string) {
  return completionEffects({
    commandId,
    commandType: 'daq.kpm.command.boot.v1',
    session: SESSION,
    status: 'succeeded',
    processes: [instance('ru-01')],
    completedAt: Date.parse('2026-01-01T00:00:00Z'),
  });
}

describe('ShardOutput: completions as spans', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let output: ShardOutput;

  beforeAll(() => {
    tracing = startTracing('state', { exporter, env: {} });
  });
  afterAll(() => tracing.shutdown());
  beforeEach(() => {
    exporter.reset();
    output = new ShardOutput(
      new EffectRecords('kpm', '/kpm/state/test', broadcaster),
      100,
      () => {},
    );
  });

  async function spans() {
    await flushTracing();
    return exporter.getFinishedSpans().map((s) => ({
      name: s.name,
      traceId: s.spanContext().traceId,
      commandId: s.attributes['kpm.command.id'],
    }));
  }

  it('tells a completion once its transaction committed, in its command trace', async () => {
    output.ofRecord(3, { effects: completionOf('cmd-1'), traceparent, commandId: 'cmd-1' });
    expect(await spans()).toEqual([]);
    output.committed(3);
    expect(await spans()).toEqual([{ name: 'complete boot', traceId: TRACE, commandId: 'cmd-1' }]);
    output.committed(3);
    expect(await spans()).toHaveLength(1);
  });

  it('never tells what a failed transaction decided, nor another partition’s commit', async () => {
    output.ofRecord(3, { effects: completionOf('cmd-2'), traceparent, commandId: 'cmd-2' });
    output.committed(4);
    output.release(3); // the transaction failed: p's state is void
    output.committed(3);
    expect(await spans()).toEqual([]);
  });
});
