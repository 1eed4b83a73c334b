/**
 * DUNE's feeds in the AsyncAPI document (docs/design.md §5.7): not CloudEvents but DUNE's own
 * protobuf messages, on topics DUNE names. Each payload is a multi-format schema: the text of the
 * project's `.proto` file (apps/state/proto), read when the document is generated.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_FEED_NAMING } from '../feed-topics';
import type { JsonSchema } from './json-schemas';

const KAFKA_BINDING_VERSION = '0.5.0';
const PROTOBUF = 'application/vnd.google.protobuf;version=3';
/** Where the state service's `.proto` files are, from this file. */
const PROTO_DIR = join(__dirname, '..', '..', '..', '..', 'apps', 'state', 'proto');

interface FeedChannel {
  id: string;
  address: string;
  parameters: Record<string, { default: string; description: string }>;
  message: string;
  proto: string;
  key: string;
  description: string;
  summary: string;
}

const FEED_CHANNELS: readonly FeedChannel[] = [
  {
    id: 'feed-broadcast',
    address: 'control.{feedSession}.{feedName}',
    parameters: {
      feedSession: {
        default: DEFAULT_FEED_NAMING.broadcast.session,
        description: "The process manager's own session (`feeds.broadcast.session`).",
      },
      feedName: {
        default: DEFAULT_FEED_NAMING.broadcast.name,
        description: "The process manager's name (`feeds.broadcast.name`).",
      },
    },
    message: 'dunedaq.druncschema.BroadcastMessage',
    proto: 'druncschema/broadcast.proto',
    key: 'None, as drunc sends them (one partition when kpm creates the topic).',
    description:
      "drunc's broadcasts of a process manager: SERVER_READY, ACK and COMMAND_EXECUTION_SUCCESS " +
      'around every command, DRUNC_EXCEPTION_RAISED, SUBPROCESS_STATUS_UPDATE for every end of a ' +
      'process; `data` is `Any(dunedaq.druncschema.PlainText)` (druncschema/generic.proto).',
    summary: "drunc's BroadcastMessage, as drunc's shells and drunc_ui read it.",
  },
  {
    id: 'feed-opmon',
    address: 'monitoring.{opmonTopic}',
    parameters: {
      opmonTopic: {
        default: DEFAULT_FEED_NAMING.opmon.topic,
        description: "kafkaopmon's topic (`feeds.opmon.topic`).",
      },
    },
    message: 'dunedaq.opmon.OpMonEntry',
    proto: 'opmonlib/opmon_entry.proto',
    key: '`<session>.<application>/dunedaq.drunc.opmon.ProcessStatus`, as kafkaopmon keys it.',
    description:
      "opmon's ProcessStatus (druncschema/opmon/process_manager.proto) of each DAQ session, " +
      'every `feeds.opmon.intervalSeconds`, flattened into the entry as kafkaopmon does.',
    summary: 'One ProcessStatus per session per interval.',
  },
  {
    id: 'feed-ers',
    address: '{ersTopic}',
    parameters: {
      ersTopic: {
        default: DEFAULT_FEED_NAMING.ers.topic,
        description: "erskafka's topic (`feeds.ers.topic`).",
      },
    },
    message: 'dunedaq.ersschema.IssueChain',
    proto: 'ers/issue.proto',
    key: 'The session, as erskafka keys it.',
    description:
      'A CRITICAL issue "Process <name> has died with a return code <rc>" for every process ' +
      'that ended without a kill, terminate or restart asking.',
    summary: 'One ERS issue per unexpected death.',
  },
];

/** The feeds' channels, messages and the state service's operations, merged into the document. */
export function feedAsyncApi(): {
  channels: Record<string, JsonSchema>;
  operations: Record<string, JsonSchema>;
  parameters: Record<string, JsonSchema>;
  messages: Record<string, JsonSchema>;
} {
  const channels: Record<string, JsonSchema> = {};
  const operations: Record<string, JsonSchema> = {};
  const parameters: Record<string, JsonSchema> = {};
  const messages: Record<string, JsonSchema> = {};
  for (const feed of FEED_CHANNELS) {
    Object.assign(parameters, feed.parameters);
    messages[feed.message] = {
      name: feed.message,
      title: feed.message,
      summary: feed.summary,
      contentType: PROTOBUF,
      payload: {
        schemaFormat: PROTOBUF,
        schema: `// apps/state/proto/${feed.proto}\n${readFileSync(join(PROTO_DIR, feed.proto), 'utf8')}`,
      },
      bindings: {
        kafka: {
          key: { type: 'string', description: feed.key },
          bindingVersion: KAFKA_BINDING_VERSION,
        },
      },
    };
    channels[feed.id] = {
      address: feed.address,
      title: feed.address,
      description: feed.description,
      parameters: Object.fromEntries(
        Object.keys(feed.parameters).map((p) => [p, { $ref: `#/components/parameters/${p}` }]),
      ),
      messages: { [feed.message]: { $ref: `#/components/messages/${feed.message}` } },
    };
    operations[`state.send.${feed.id}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${feed.id}` },
      summary: `${feed.summary} Written by the state service (settings \`feeds.*\`).`,
      tags: [{ name: 'state' }],
      messages: [{ $ref: `#/channels/${feed.id}/messages/${feed.message}` }],
    };
  }
  return { channels, operations, parameters, messages };
}
