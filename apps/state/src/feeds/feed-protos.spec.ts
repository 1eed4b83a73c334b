import {
  broadcastTypeNumber,
  decodeFeedMessage,
  encodeFeedMessage,
  FeedMessage,
  feedRoot,
  packAny,
} from './feed-protos';

/**
 * The upstream numbers, field by field (druncschema broadcast.proto and generic.proto, drunc's
 * opmon ProcessStatus, opmonlib opmon_entry.proto, ers schema/ers/issue.proto): a consumer
 * built from DUNE's own files must read what kpm writes.
 */
const UPSTREAM_FIELDS: [string, [number, string, string, ('repeated' | 'map')?][]][] = [
  [
    'dunedaq.druncschema.BroadcastMessage',
    [
      [1, 'emitter', 'Emitter'],
      [2, 'type', 'BroadcastType'],
      [3, 'data', 'google.protobuf.Any'],
    ],
  ],
  [
    'dunedaq.druncschema.Emitter',
    [
      [1, 'process', 'string'],
      [2, 'session', 'string'],
    ],
  ],
  [
    'dunedaq.druncschema.KafkaBroadcastHandlerConfiguration',
    [
      [1, 'kafka_address', 'string'],
      [2, 'topic', 'string'],
    ],
  ],
  ['dunedaq.druncschema.PlainText', [[1, 'text', 'string']]],
  [
    'dunedaq.drunc.opmon.ProcessStatus',
    [
      [1, 'n_running', 'uint32'],
      [2, 'n_dead', 'uint32'],
      [3, 'n_session', 'uint32'],
    ],
  ],
  [
    'dunedaq.opmon.OpMonId',
    [
      [1, 'session', 'string'],
      [2, 'application', 'string'],
      [10, 'substructure', 'string', 'repeated'],
    ],
  ],
  [
    'dunedaq.opmon.OpMonEntry',
    [
      [1, 'time', 'google.protobuf.Timestamp'],
      [2, 'origin', 'OpMonId'],
      [3, 'custom_origin', 'string', 'map'],
      [5, 'measurement', 'string'],
      [10, 'data', 'OpMonValue', 'map'],
    ],
  ],
  [
    'dunedaq.opmon.OpMonValue',
    [
      [1, 'null_value', 'NullValue'],
      [2, 'int4_value', 'int32'],
      [3, 'int8_value', 'int64'],
      [4, 'uint4_value', 'uint32'],
      [5, 'uint8_value', 'uint64'],
      [10, 'double_value', 'double'],
      [11, 'float_value', 'float'],
      [15, 'boolean_value', 'bool'],
      [20, 'string_value', 'string'],
    ],
  ],
  [
    'dunedaq.ersschema.Context',
    [
      [1, 'cwd', 'string'],
      [2, 'file_name', 'string'],
      [3, 'function_name', 'string'],
      [4, 'host_name', 'string'],
      [5, 'line_number', 'uint32'],
      [6, 'package_name', 'string'],
      [11, 'process_id', 'uint32'],
      [12, 'thread_id', 'uint32'],
      [13, 'user_id', 'uint32'],
      [14, 'user_name', 'string'],
      [15, 'application_name', 'string'],
    ],
  ],
  [
    'dunedaq.ersschema.SimpleIssue',
    [
      [1, 'context', 'Context'],
      [2, 'name', 'string'],
      [3, 'inheritance', 'string', 'repeated'],
      [4, 'message', 'string'],
      [5, 'severity', 'string'],
      [6, 'time', 'uint64'],
      [11, 'parameters', 'string', 'map'],
    ],
  ],
  [
    'dunedaq.ersschema.IssueChain',
    [
      [1, 'final', 'SimpleIssue'],
      [2, 'causes', 'SimpleIssue', 'repeated'],
      [10, 'session', 'string'],
      [11, 'application', 'string'],
      [12, 'module', 'string'],
    ],
  ],
];

/** druncschema's BroadcastType (package dunedaq.druncschema, not the older `Drunc` numbering). */
const UPSTREAM_BROADCAST_TYPES: Record<string, number> = {
  ACK: 0,
  RECEIVER_REMOVED: 1,
  RECEIVER_ADDED: 2,
  SERVER_READY: 3,
  SERVER_SHUTDOWN: 4,
  COMMAND_EXECUTION_START: 5,
  COMMAND_EXECUTION_SUCCESS: 6,
  DRUNC_EXCEPTION_RAISED: 7,
  UNHANDLED_EXCEPTION_RAISED: 8,
  STATUS_UPDATE: 9,
  SUBPROCESS_STATUS_UPDATE: 10,
  DEBUG: 11,
  CHILD_COMMAND_EXECUTION_START: 12,
  CHILD_COMMAND_EXECUTION_SUCCESS: 13,
  CHILD_COMMAND_EXECUTION_FAILED: 14,
  TEXT_MESSAGE: 15,
  COMMAND_RECEIVED: 16,
  FSM_STATUS_UPDATE: 17,
};

describe('the feeds’ .proto files', () => {
  it.each(UPSTREAM_FIELDS)('%s has exactly the upstream fields', (name, fields) => {
    const type = feedRoot().lookupType(name);
    const actual = type.fieldsArray.map((f) => {
      const kind = f.map ? 'map' : f.repeated ? 'repeated' : undefined;
      return kind ? [f.id, f.name, f.type, kind] : [f.id, f.name, f.type];
    });
    expect(actual.sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(fields);
  });

  it('numbers BroadcastType as druncschema does', () => {
    expect(feedRoot().lookupEnum('dunedaq.druncschema.BroadcastType').values).toEqual(
      UPSTREAM_BROADCAST_TYPES,
    );
  });

  it('reads back what it writes, a PlainText packed in an Any', () => {
    const bytes = encodeFeedMessage(FeedMessage.broadcast, {
      emitter: { process: 'process_manager', session: 'kpm' },
      type: broadcastTypeNumber('SUBPROCESS_STATUS_UPDATE'),
      data: packAny(FeedMessage.plainText, { text: 'ended' }),
    });
    const decoded = decodeFeedMessage(FeedMessage.broadcast, bytes) as {
      type: string;
      data: { type_url: string; value: Uint8Array };
    };
    expect(decoded.type).toBe('SUBPROCESS_STATUS_UPDATE');
    expect(decoded.data.type_url).toBe('type.googleapis.com/dunedaq.druncschema.PlainText');
    expect(decodeFeedMessage(FeedMessage.plainText, decoded.data.value)).toEqual({
      text: 'ended',
    });
  });

  it('refuses a value that does not fit, naming the field', () => {
    expect(() => encodeFeedMessage(FeedMessage.processStatus, { n_running: 'many' })).toThrow(
      /ProcessStatus: n_running: integer expected/,
    );
  });
});
