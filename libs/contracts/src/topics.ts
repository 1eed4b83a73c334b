/**
 * kpm's topics as data (docs/design.md §2): the Kafka admin creates them from `topicSpecs()`, the
 * AsyncAPI generator describes them, and producers find a type's topic here.
 *
 * The prefix is a parameter, never read from the environment here: services read
 * `KPM_TOPIC_PREFIX` in their configuration and pass it down, so tests can run side by side.
 */

export const DEFAULT_TOPIC_PREFIX = 'kpm';
/** Every keyed topic has the same count, so one session meets on one partition number. */
export const DEFAULT_PARTITIONS = 6;
/**
 * The largest record kpm writes or accepts. A boot of 5000 processes with environments is
 * several MiB, above Kafka's 1 MiB default, so the topics raise `max.message.bytes` to this.
 */
export const MAX_RECORD_BYTES = 8 * 1024 * 1024;

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** The topics clients use: kpm's public contract (AsyncAPI). */
export const TOPIC_IDS = [
  'commands',
  'process-events',
  'terminations',
  'completions',
  'broadcast',
  'processes',
  'dead-letters',
] as const;
/**
 * Topics only a kpm service reads and writes, in a format of its own (not CloudEvents): created
 * and granted like the others, left out of the AsyncAPI.
 */
const INTERNAL_TOPIC_IDS = ['state-snapshots'] as const;
export type PublicTopicId = (typeof TOPIC_IDS)[number];
export type TopicId = PublicTopicId | (typeof INTERNAL_TOPIC_IDS)[number];

/** What a topic's record key is: the session, a process uuid, or the failed record's own key. */
export type TopicKeyKind = 'session' | 'process-uuid' | 'original-key' | 'shard';

export interface TopicDefinition {
  id: TopicId;
  key: TopicKeyKind;
  cleanupPolicy: 'delete' | 'compact';
  /** `retention.ms` for delete topics; compacted topics keep the latest value per key forever. */
  retentionMs?: number;
  /** Further topic configs (e.g. how soon a compacted topic is cleaned). */
  config?: Readonly<Record<string, string>>;
  description: string;
}

export const TOPICS: Readonly<Record<TopicId, TopicDefinition>> = {
  commands: {
    id: 'commands',
    key: 'session',
    cleanupPolicy: 'delete',
    retentionMs: 7 * DAY_MS,
    description:
      "Commands from DAQ components and the kpm CLI, and the state service's restarts and terminates under a process's exit policy; the CloudEvent id is the command id.",
  },
  'process-events': {
    id: 'process-events',
    key: 'session',
    cleanupPolicy: 'delete',
    retentionMs: 7 * DAY_MS,
    description: 'What the boot-worker did: accepted, booted, failed, rejected, logs fetched.',
  },
  terminations: {
    id: 'terminations',
    key: 'session',
    cleanupPolicy: 'delete',
    retentionMs: 7 * DAY_MS,
    description: 'One record per pod that ended, with its exit code and reason.',
  },
  completions: {
    id: 'completions',
    key: 'session',
    cleanupPolicy: 'delete',
    retentionMs: 7 * DAY_MS,
    description: 'Exactly one completion per command id.',
  },
  broadcast: {
    id: 'broadcast',
    key: 'session',
    cleanupPolicy: 'delete',
    retentionMs: 1 * DAY_MS,
    description:
      "drunc's broadcast messages (SUBPROCESS_STATUS_UPDATE, SERVER_READY, …; TEXT_MESSAGE for what drunc's clients tell the gateway).",
  },
  processes: {
    id: 'processes',
    key: 'process-uuid',
    cleanupPolicy: 'compact',
    description: 'The latest ProcessInstance per process uuid; a tombstone (null value) on flush.',
  },
  'dead-letters': {
    id: 'dead-letters',
    key: 'original-key',
    cleanupPolicy: 'delete',
    retentionMs: 30 * DAY_MS,
    description: 'Records a consumer could not parse as CloudEvents, with their raw bytes.',
  },
  'state-snapshots': {
    id: 'state-snapshots',
    key: 'shard',
    cleanupPolicy: 'compact',
    // A restore reads the whole partition: segments roll and are cleaned within the hour, so
    // what it reads stays near the size of the last snapshot.
    config: {
      'segment.ms': String(HOUR_MS),
      'max.compaction.lag.ms': String(HOUR_MS),
      'min.cleanable.dirty.ratio': '0.1',
      'delete.retention.ms': String(HOUR_MS),
    },
    description:
      "The state service's snapshot of each shard (partition p holds shard p's): a restore loads the last one and replays only the facts after it.",
  },
};

/** `topicName('commands')` → `kpm.commands`; `topicName('commands', 'test1')` → `test1.commands`. */
export function topicName(id: TopicId, prefix: string = DEFAULT_TOPIC_PREFIX): string {
  return `${prefix}.${id}`;
}

/** What the Kafka admin needs to create one topic (kafkajs `ITopicConfig` shape). */
export interface TopicSpec {
  id: TopicId;
  topic: string;
  numPartitions: number;
  /** Absent: the broker's `default.replication.factor`. */
  replicationFactor?: number;
  configEntries: { name: string; value: string }[];
}

export interface TopicLayout {
  prefix?: string;
  partitions?: number;
  /** Replicas per partition; absent leaves it to the broker's default. */
  replicationFactor?: number;
  /** `min.insync.replicas` set on each topic; absent leaves it to the broker's default. */
  minInsyncReplicas?: number;
}

export function topicSpecs(options: TopicLayout = {}): TopicSpec[] {
  const partitions = options.partitions ?? DEFAULT_PARTITIONS;
  const { replicationFactor, minInsyncReplicas } = options;
  return [...TOPIC_IDS, ...INTERNAL_TOPIC_IDS].map((id) => {
    const t = TOPICS[id];
    const configEntries = [
      { name: 'cleanup.policy', value: t.cleanupPolicy },
      { name: 'max.message.bytes', value: String(MAX_RECORD_BYTES) },
    ];
    if (t.retentionMs !== undefined) {
      configEntries.push({ name: 'retention.ms', value: String(t.retentionMs) });
    }
    for (const [name, value] of Object.entries(t.config ?? {})) configEntries.push({ name, value });
    if (minInsyncReplicas !== undefined) {
      configEntries.push({ name: 'min.insync.replicas', value: String(minInsyncReplicas) });
    }
    const spec: TopicSpec = {
      id,
      topic: topicName(id, options.prefix),
      numPartitions: partitions,
      configEntries,
    };
    if (replicationFactor !== undefined) spec.replicationFactor = replicationFactor;
    return spec;
  });
}
