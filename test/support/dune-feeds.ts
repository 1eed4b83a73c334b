/**
 * DUNE's feeds as an independent consumer sees them (test/support/python/dune_feeds.py:
 * confluent-kafka and protobuf classes generated from apps/state/proto), for suites that check
 * what a DUNE tool reads. The feed topics are the suite's own (settings `feeds.*`), created here
 * before the state service starts, so the consumer is positioned before anything is written.
 */
import { Arrivals } from './arrivals';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { createTopicsWithLeaders } from '@kpm/kafka';
import { repoRoot } from '@kpm/stack/paths';
import { projectPython } from './python';
import { stackEnv } from './stack-env';

export interface FeedRecord {
  kind: 'broadcast' | 'opmon' | 'ers';
  topic: string;
  key: string | null;
  /** When the consumer received it (ms since the epoch). */
  receivedAtMs: number;
  // broadcast
  type?: string;
  text?: string;
  emitter?: { process: string; session: string };
  typeUrl?: string;
  // opmon and ers
  session?: string;
  application?: string;
  measurement?: string;
  data?: Record<string, number>;
  // ers
  severity?: string;
  message?: string;
  timeNs?: string;
  parameters?: Record<string, string>;
}

/** The suite's own feed names, as settings (env) for its state service. */
export function suiteFeeds(label: string): { env: Record<string, string>; topics: string[] } {
  const session = `kpm-${label}`;
  return {
    env: {
      KPM_FEEDS_BROADCAST_SESSION: session,
      KPM_FEEDS_OPMON_TOPIC: `${label}-opmon`,
      KPM_FEEDS_ERS_TOPIC: `${label}-ers`,
      KPM_FEEDS_OPMON_INTERVAL_SECONDS: '1',
    },
    topics: [`control.${session}.process_manager`, `monitoring.${label}-opmon`, `${label}-ers`],
  };
}

export class DuneFeeds {
  private readonly arrivals = new Arrivals<FeedRecord>();
  private child?: ChildProcess;
  private stderr = '';

  constructor(private readonly topics: string[]) {}

  /** Creates the topics (one partition each: one order to reason about) and starts reading. */
  async start(): Promise<this> {
    const brokers = stackEnv().brokers;
    const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const missing = this.topics.filter((t) => !existing.has(t));
      if (missing.length > 0)
        await createTopicsWithLeaders(
          admin,
          missing.map((topic) => ({ topic, numPartitions: 1, replicationFactor: 1 })),
        );
    } finally {
      await admin.disconnect();
    }
    const [broadcast, opmon, ers] = this.topics;
    const child = spawn(
      await projectPython(),
      [
        join(repoRoot(), 'test/support/python/dune_feeds.py'),
        ...['--brokers', brokers.join(','), '--broadcast', broadcast, '--opmon', opmon],
        ...['--ers', ers],
      ],
      { cwd: repoRoot(), env: { ...process.env, PYTHONUNBUFFERED: '1' } },
    );
    this.child = child;
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    const ready = new Promise<void>((resolve, reject) => {
      child.once('exit', (code) =>
        reject(new Error(`dune_feeds.py exited ${code}: ${this.stderr}`)),
      );
      createInterface({ input: child.stdout }).on('line', (line) => {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if ('ready' in parsed) return resolve();
        if ('error' in parsed) return void (this.stderr += `${String(parsed.error)}\n`);
        const { receivedAt, ...rest } = parsed as { receivedAt: number };
        this.arrivals.add({
          ...(rest as Omit<FeedRecord, 'receivedAtMs'>),
          receivedAtMs: receivedAt * 1000,
        });
      });
    });
    await ready;
    return this;
  }

  /** Every feed record read so far, in arrival order. */
  get records(): readonly FeedRecord[] {
    return this.arrivals.records;
  }

  of(kind: FeedRecord['kind'], predicate: (r: FeedRecord) => boolean = () => true): FeedRecord[] {
    return this.arrivals.records.filter((r) => r.kind === kind && predicate(r));
  }

  /** Resolves with the first record matching, or fails after `timeoutMs` listing what was seen. */
  waitFor(predicate: (record: FeedRecord) => boolean, timeoutMs = 60_000): Promise<FeedRecord> {
    return this.arrivals.waitFor(predicate, timeoutMs, (records) => {
      const seen = records.map((r) => JSON.stringify(r));
      return `no matching feed record within ${timeoutMs} ms; saw:\n${seen.join('\n')}\n${this.stderr}`;
    });
  }

  /** Stops reading and deletes the suite's feed topics (they are outside its topic prefix). */
  async stop(): Promise<void> {
    this.child?.removeAllListeners('exit');
    this.child?.kill();
    const admin = new Kafka({ brokers: stackEnv().brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      await admin.deleteTopics({ topics: this.topics });
    } finally {
      await admin.disconnect();
    }
  }
}
