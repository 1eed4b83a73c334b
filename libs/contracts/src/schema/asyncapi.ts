/**
 * The AsyncAPI 3.0 description of kpm: one channel per topic with its Kafka bindings (key,
 * partitions, cleanup policy, retention), one message per CloudEvent type, and the operations
 * of each service, all derived from topics.ts, the type registry and the contract classes.
 */
import { version } from '../../../../package.json';
import { CLOUDEVENTS_CONTENT_TYPE, CloudEventAttributes, CONTENT_TYPE_HEADER } from '../envelope';
import { CommandType, type EventType } from '../event-types';
import { EVENT_TYPES, typeEntry, typesOfTopic } from '../registry';
import {
  DEFAULT_PARTITIONS,
  DEFAULT_TOPIC_PREFIX,
  MAX_RECORD_BYTES,
  TOPIC_IDS,
  TOPICS,
  type TopicId,
  type TopicKeyKind,
} from '../topics';
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

export const SERVICE_OPERATIONS: readonly ServiceOperation[] = [
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
    types: [CommandType.ps, CommandType.flush],
    summary: 'The state service answers ps and flush from its table.',
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

function message(type: EventType, attributes: JsonSchema): JsonSchema {
  const entry = typeEntry(type);
  const key = TOPICS[entry.topic].key;
  return {
    name: type,
    title: type,
    summary: entry.summary,
    contentType: CLOUDEVENTS_CONTENT_TYPE,
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

function operation(op: ServiceOperation): [string, JsonSchema] {
  const types = op.types ?? typesOfTopic(op.topic);
  return [
    `${op.service}.${op.action}.${op.topic}`,
    {
      action: op.action,
      channel: { $ref: `#/channels/${op.topic}` },
      summary: op.summary,
      tags: [{ name: op.service }],
      messages: types.map((type) => ({ $ref: `#/channels/${op.topic}/messages/${type}` })),
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
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'kpm — Kubernetes process manager for DAQ',
      version,
      description:
        'Commands, facts and outcomes of kpm on Kafka. Every record value is a CloudEvents 1.0 event in ' +
        `structured JSON mode with the header \`${CONTENT_TYPE_HEADER}: ${CLOUDEVENTS_CONTENT_TYPE}\`. ` +
        'Every keyed topic has the same number of partitions and is keyed by session. Brokers: `KPM_KAFKA_BROKERS`.',
    },
    defaultContentType: CLOUDEVENTS_CONTENT_TYPE,
    channels: Object.fromEntries(TOPIC_IDS.map((id) => [id, channel(id)])),
    operations: Object.fromEntries(SERVICE_OPERATIONS.map(operation)),
    components: {
      parameters: {
        prefix: {
          default: DEFAULT_TOPIC_PREFIX,
          description: 'The topic prefix (`KPM_TOPIC_PREFIX`).',
        },
      },
      messages: Object.fromEntries(EVENT_TYPES.map((type) => [type, message(type, attributes)])),
      schemas: Object.fromEntries([...used].sort().map((name) => [name, schemas[name]])),
    },
  };
}
