import { FeedsConfig } from '@kpm/config';
import type { ProcessTerminated } from '@kpm/contracts';
import { instance } from '../domain/__fixtures__/facts';
import { completionEffects, receivedBroadcast } from '../domain/broadcasts';
import { deathMessage } from './ers-issues';
import { FeedRecords, feedTopics } from './feed-records';
import { decodeFeedMessage, FeedMessage } from './feed-protos';

const death: ProcessTerminated = {
  uuid: '00000000-0000-4000-8000-000000000001',
  session: 'run-42',
  name: 'ru-01',
  user: 'alice',
  namespace: 'run-42',
  podName: 'ru-01',
  podUid: 'pod-1',
  exitCode: 3,
  reason: 'Error',
  phase: 'Failed',
  finishedAt: '2026-01-01T00:00:00.123Z',
  observedAt: '2026-01-01T00:00:01.000Z',
  detectedBy: 'watch',
};

describe('FeedRecords', () => {
  it('names the topics as drunc, kafkaopmon and erskafka do', () => {
    expect(feedTopics(new FeedsConfig())).toEqual({
      broadcast: 'control.kpm.process_manager',
      opmon: 'monitoring.opmon_stream',
      ers: 'ers_stream',
    });
  });

  it('writes drunc’s BroadcastMessage without a key, its text a packed PlainText', () => {
    const [record] = new FeedRecords(new FeedsConfig(), 'host').encode([
      receivedBroadcast('c-1', 'daq.kpm.command.boot.v1', 'run-42', 'alice'),
    ]);
    expect(record).toMatchObject({ topic: 'control.kpm.process_manager', key: null });
    const message = decodeFeedMessage(FeedMessage.broadcast, record.value as Buffer) as {
      emitter: unknown;
      type: string;
      data: { type_url: string; value: Uint8Array };
    };
    expect(message.emitter).toEqual({ process: 'process_manager', session: 'kpm' });
    expect(message.type).toBe('ACK');
    expect(message.data.type_url).toBe('type.googleapis.com/dunedaq.druncschema.PlainText');
    expect(decodeFeedMessage(FeedMessage.plainText, message.data.value)).toEqual({
      text: "User 'alice' executing 'boot'",
    });
  });

  it('names the user of a command at its end, then forgets it: only commands under way are held', () => {
    const records = new FeedRecords(new FeedsConfig(), 'host');
    const end = (commandId: string, status: 'succeeded' | 'failed') =>
      completionEffects({
        commandId,
        commandType: 'daq.kpm.command.boot.v1',
        session: 'run-42',
        status,
        processes: [],
        completedAt: 0,
        ...(status === 'failed' ? { errors: [{ message: 'it broke' }] } : {}),
      });
    const texts = (effects: Parameters<FeedRecords['encode']>[0]) =>
      records.encode(effects).map((record) => {
        const message = decodeFeedMessage(FeedMessage.broadcast, record.value as Buffer) as {
          data: { value: Uint8Array };
        };
        return (decodeFeedMessage(FeedMessage.plainText, message.data.value) as { text: string })
          .text;
      });
    for (let i = 0; i < 100; i++) {
      texts([receivedBroadcast(`c-${i}`, 'daq.kpm.command.boot.v1', 'run-42', 'alice')]);
    }
    expect(records.usersRemembered).toBe(100);
    expect(texts(end('c-1', 'succeeded'))).toEqual(["User 'alice' successfully executed 'boot'"]);
    for (let i = 2; i < 100; i++) texts(end(`c-${i}`, i % 2 ? 'failed' : 'succeeded'));
    expect(records.usersRemembered).toBe(1); // c-0, still under way
  });

  it('writes one ERS CRITICAL IssueChain per death, keyed by its session', () => {
    const records = new FeedRecords(new FeedsConfig(), 'host-1').encode([
      { kind: 'death', termination: death },
    ]);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ topic: 'ers_stream', key: 'run-42' });
    const issue = decodeFeedMessage(FeedMessage.issueChain, records[0].value as Buffer) as {
      final: Record<string, unknown> & { context: Record<string, unknown> };
    } & Record<string, unknown>;
    expect(issue).toMatchObject({
      session: 'run-42',
      application: 'drunc.process_manager',
      final: {
        severity: 'CRITICAL',
        message: deathMessage(death),
        time: Date.parse('2026-01-01T00:00:00.123Z') * 1_000_000,
        context: {
          host_name: 'host-1',
          user_name: 'alice',
          application_name: 'drunc.process_manager',
        },
      },
    });
    expect(issue.final.message).toBe('Process ru-01 has died with a return code 3');
  });

  it('writes nothing for a feed switched off', () => {
    const feeds = new FeedsConfig();
    feeds.ers.enabled = false;
    feeds.broadcast.enabled = false;
    const records = new FeedRecords(feeds, 'h').encode([
      { kind: 'death', termination: death },
      receivedBroadcast('c-1', 'daq.kpm.command.boot.v1', 'run-42', 'alice'),
    ]);
    expect(records).toEqual([]);
  });

  it('counts a session’s processes for opmon', () => {
    const dead = { ...instance('ru-02'), statusCode: 'DEAD' as const };
    const record = new FeedRecords(new FeedsConfig(), 'h').opmon(
      'run-42',
      [instance('ru-01'), dead],
      0,
    );
    expect(record.key).toBe('run-42.process_manager/dunedaq.drunc.opmon.ProcessStatus');
    const entry = decodeFeedMessage(FeedMessage.opmonEntry, record.value as Buffer) as {
      data: Record<string, { uint4_value: number }>;
    };
    expect(entry.data.n_running.uint4_value).toBe(1);
    expect(entry.data.n_dead.uint4_value).toBe(1);
    expect(entry.data.n_session.uint4_value).toBe(1);
  });
});
