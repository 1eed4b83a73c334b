/**
 * The AsyncAPI 3.0 description of kpm: one channel per topic with its Kafka bindings (key,
 * partitions, cleanup policy, retention), one message per CloudEvent type, and the operations
 * of each service, all derived from topics.ts, the type registry and the contract classes.
 */
import { version } from '../../../../package.json';
import { CLOUDEVENTS_CONTENT_TYPE, CloudEventAttributes, CONTENT_TYPE_HEADER } from '../envelope';
import { CommandType, CompletionType, type EventType } from '../event-types';
import { EXAMPLE_EVENTS } from '../examples';
import { EVENT_TYPES, typeEntry, typesOfTopic } from '../registry';
import {
  DEFAULT_PARTITIONS,
  DEFAULT_TOPIC_PREFIX,
  MAX_RECORD_BYTES,
  TOPIC_IDS,
  TOPICS,
  type PublicTopicId as TopicId,
  type TopicKeyKind,
} from '../topics';
import { feedAsyncApi } from './feed-channels';
import { classSchemas, envelopeSchema, reachableSchemas, type JsonSchema } from './json-schemas';

const KAFKA_BINDING_VERSION = '0.5.0';

/**
 * Who sends or receives what (docs/design.md §1.2); `types` narrows a topic to the types handled.
 */
export interface ServiceOperation {
  service: 'clients' | 'boot-worker' | 'watcher' | 'state';
  action: 'send' | 'receive';
  topic: TopicId;
  types?: readonly EventType[];
  summary: string;
}

const SERVICE_OPERATIONS: readonly ServiceOperation[] = [
  {
    service: 'clients',
    action: 'send',
    topic: 'commands',
    summary: 'DAQ components and the kpm CLI send commands.',
  },
  {
    service: 'boot-worker',
    action: 'receive',
    topic: 'commands',
    types: [
      CommandType.boot,
      CommandType.kill,
      CommandType.terminate,
      CommandType.restart,
      CommandType.logs,
    ],
    summary: 'The boot-worker boots, kills and restarts pods and reads logs.',
  },
  {
    service: 'boot-worker',
    action: 'send',
    topic: 'process-events',
    summary: 'The boot-worker reports what it did.',
  },
  {
    service: 'boot-worker',
    action: 'send',
    topic: 'broadcast',
    summary: 'The boot-worker broadcasts.',
  },
  {
    service: 'boot-worker',
    action: 'send',
    topic: 'dead-letters',
    summary: 'Records it cannot parse.',
  },
  {
    service: 'watcher',
    action: 'send',
    topic: 'terminations',
    summary: 'The watcher reports every pod that ended.',
  },
  { service: 'watcher', action: 'send', topic: 'broadcast', summary: 'The watcher broadcasts.' },
  {
    service: 'state',
    action: 'receive',
    topic: 'commands',
    summary:
      "The state service answers ps and flush from its table, and forwards a command written on another partition than its session's (docs/design.md §9.6).",
  },
  {
    service: 'state',
    action: 'send',
    topic: 'commands',
    summary: "Misrouted commands, forwarded unchanged (same id) to their session's partition.",
  },
  {
    service: 'state',
    action: 'receive',
    topic: 'dead-letters',
    summary: 'Valid commands the boot-worker gave up on, completed as failed.',
  },
  {
    service: 'state',
    action: 'receive',
    topic: 'process-events',
    summary: 'The state service aggregates facts.',
  },
  {
    service: 'state',
    action: 'receive',
    topic: 'terminations',
    summary: 'The state service records terminations.',
  },
  {
    service: 'state',
    action: 'receive',
    topic: 'processes',
    summary: 'The state service rebuilds its table at start.',
  },
  {
    service: 'state',
    action: 'send',
    topic: 'completions',
    summary: 'Exactly one completion per command.',
  },
  {
    service: 'state',
    action: 'send',
    topic: 'processes',
    summary: 'The latest ProcessInstance per uuid.',
  },
  {
    service: 'state',
    action: 'send',
    topic: 'broadcast',
    summary: "drunc's SUBPROCESS_STATUS_UPDATE and others.",
  },
  { service: 'state', action: 'send', topic: 'dead-letters', summary: 'Records it cannot parse.' },
  {
    service: 'clients',
    action: 'receive',
    topic: 'completions',
    summary: 'Clients wait for the completion of their command id.',
  },
  {
    service: 'clients',
    action: 'receive',
    topic: 'broadcast',
    summary: 'Dashboards follow broadcasts.',
  },
];

const KEY_DESCRIPTIONS: Record<TopicKeyKind, string> = {
  session: 'The session (equal to the CloudEvent subject).',
  'process-uuid': 'The process uuid.',
  'original-key': "The dead-lettered record's own key, if it had one.",
  shard: 'The shard (partition number) and part of a state snapshot.',
};

function channel(id: TopicId): JsonSchema {
  const t = TOPICS[id];
  const topicConfiguration: JsonSchema = {
    'cleanup.policy': [t.cleanupPolicy],
    'max.message.bytes': MAX_RECORD_BYTES,
  };
  if (t.retentionMs !== undefined) topicConfiguration['retention.ms'] = t.retentionMs;
  return {
    address: `{prefix}.${id}`,
    title: `${DEFAULT_TOPIC_PREFIX}.${id}`,
    description: `${t.description} Key: ${KEY_DESCRIPTIONS[t.key]}`,
    parameters: { prefix: { $ref: '#/components/parameters/prefix' } },
    messages: Object.fromEntries(
      typesOfTopic(id).map((type) => [type, { $ref: `#/components/messages/${type}` }]),
    ),
    bindings: {
      kafka: {
        topic: `${DEFAULT_TOPIC_PREFIX}.${id}`,
        partitions: DEFAULT_PARTITIONS,
        topicConfiguration,
        bindingVersion: KAFKA_BINDING_VERSION,
      },
    },
  };
}

/**
 * Commands and their completions correlate by the command id: a command's CloudEvent id is the
 * `data.commandId` of its one completion (docs/design.md §3.2, §5.3).
 */
const COMMAND_CORRELATION: JsonSchema = {
  description:
    "The command id: the command's CloudEvent `id`, answered by the one completion whose `data.commandId` equals it.",
  location: '$message.payload#/id',
};
const COMPLETION_CORRELATION: JsonSchema = {
  description: 'The id of the command this completion answers.',
  location: '$message.payload#/data/commandId',
};

function correlationOf(type: EventType): JsonSchema | undefined {
  if (type === CompletionType.commandCompleted) return COMPLETION_CORRELATION;
  return typeEntry(type).topic === 'commands' ? COMMAND_CORRELATION : undefined;
}

function message(type: EventType, attributes: JsonSchema): JsonSchema {
  const entry = typeEntry(type);
  const key = TOPICS[entry.topic].key;
  const example = JSON.parse(JSON.stringify(EXAMPLE_EVENTS[type])) as JsonSchema;
  const correlationId = correlationOf(type);
  return {
    name: type,
    title: type,
    summary: entry.summary,
    contentType: CLOUDEVENTS_CONTENT_TYPE,
    ...(correlationId ? { correlationId } : {}),
    examples: [
      {
        name: `${type}-example`,
        summary: `A ${type} record value (structured mode).`,
        headers: { [CONTENT_TYPE_HEADER]: CLOUDEVENTS_CONTENT_TYPE },
        payload: example,
      },
    ],
    headers: {
      type: 'object',
      properties: { [CONTENT_TYPE_HEADER]: { type: 'string', enum: [CLOUDEVENTS_CONTENT_TYPE] } },
    },
    payload: envelopeSchema(type, attributes, `#/components/schemas/${entry.dataClass.name}`),
    bindings: {
      kafka: {
        key: { type: 'string', description: KEY_DESCRIPTIONS[key] },
        bindingVersion: KAFKA_BINDING_VERSION,
      },
    },
  };
}

/** A command is answered by exactly one completion on `kpm.completions`, matched by command id. */
const COMMAND_REPLY: JsonSchema = {
  channel: { $ref: '#/channels/completions' },
  messages: [{ $ref: `#/channels/completions/messages/${CompletionType.commandCompleted}` }],
};

function operation(op: ServiceOperation): [string, JsonSchema] {
  const types = op.types ?? typesOfTopic(op.topic);
  const asks = op.service === 'clients' && op.action === 'send' && op.topic === 'commands';
  return [
    `${op.service}.${op.action}.${op.topic}`,
    {
      action: op.action,
      channel: { $ref: `#/channels/${op.topic}` },
      summary: op.summary,
      tags: [{ name: op.service }],
      messages: types.map((type) => ({ $ref: `#/channels/${op.topic}/messages/${type}` })),
      ...(asks ? { reply: COMMAND_REPLY } : {}),
    },
  ];
}

/** The AsyncAPI document as a plain object (serialise with `generatedFiles`). */
export function asyncApiDocument(): JsonSchema {
  const prefix = '#/components/schemas/';
  const schemas = classSchemas(prefix);
  const attributes = schemas[CloudEventAttributes.name];
  const used = new Set(
    EVENT_TYPES.flatMap((t) => reachableSchemas(typeEntry(t).dataClass.name, schemas, prefix)),
  );
  const feeds = feedAsyncApi();
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'kpm — Kubernetes process manager for DAQ',
      version,
      description:
        'Commands, facts and outcomes of kpm on Kafka. Every record value is a CloudEvents 1.0 event in ' +
        `structured JSON mode with the header \`${CONTENT_TYPE_HEADER}: ${CLOUDEVENTS_CONTENT_TYPE}\`; ` +
        'commands may also be written in binary mode (`ce_` headers, value = data). ' +
        'A command carrying `traceparent` has it on every record it causes. ' +
        'Every keyed topic has the same number of partitions and is keyed by session. Brokers: `KPM_KAFKA_BROKERS`. ' +
        "DUNE's feeds (channels `feed-*`) are DUNE's own protobuf messages instead, on the topics DUNE names.",
    },
    defaultContentType: CLOUDEVENTS_CONTENT_TYPE,
    channels: {
      ...Object.fromEntries(TOPIC_IDS.map((id) => [id, channel(id)])),
      ...feeds.channels,
    },
    operations: { ...Object.fromEntries(SERVICE_OPERATIONS.map(operation)), ...feeds.operations },
    components: {
      parameters: {
        prefix: {
          default: DEFAULT_TOPIC_PREFIX,
          description: 'The topic prefix (`KPM_TOPIC_PREFIX`).',
        },
        ...feeds.parameters,
      },
      messages: {
        ...Object.fromEntries(EVENT_TYPES.map((type) => [type, message(type, attributes)])),
        ...feeds.messages,
      },
      schemas: Object.fromEntries([...used].sort().map((name) => [name, schemas[name]])),
    },
  };
}
