/**
 * druncschema 1.1.0 as it publishes itself (its generated descriptors: process_manager_pb2 of
 * the 1.1.0 schema, description_pb2, request_response_pb2, token_pb2): every message, field
 * name, number and type, and the service's methods; and the three methods druncschema's newer
 * generated service adds (process_manager_pb2_grpc @21c0d594: send_msg, log_on_server,
 * echo_on_server) with their messages (common_pb2 @4b37fb4a; generic's OutcomeStatus, whose
 * fields no stored descriptor holds, answered empty: proto/druncschema/generic.proto). The project's .proto files must say exactly
 * this: a wrong number is a silent wire bug, so this table is the contract and the descriptor
 * loaded from our files is checked against it, both ways.
 */
import type * as protobuf from 'protobufjs';
import { fieldsOf, fullName, messagesOf, type Field } from './descriptor-fields';
import { DRUNC_PROTO, DRUNC_SERVICE_PATH, loadRoot } from './proto-files';

const PM = 'dunedaq.druncschema.process_manager';
const D = 'dunedaq.druncschema';

const DRUNCSCHEMA_1_1_0: Record<string, Field[]> = {
  [`${D}.Token`]: [
    ['token', 1, 'string', 'single'],
    ['user_name', 2, 'string', 'single'],
  ],
  [`${D}.Request`]: [
    ['token', 1, `${D}.Token`, 'single'],
    ['data', 2, 'google.protobuf.Any', 'optional'],
  ],
  [`${D}.Response`]: [
    ['name', 1, 'string', 'single'],
    ['token', 2, `${D}.Token`, 'single'],
    ['data', 3, 'google.protobuf.Any', 'optional'],
    ['flag', 4, `${D}.ResponseFlag`, 'single'],
    ['children', 5, `${D}.Response`, 'repeated'],
  ],
  [`${D}.LogOnServerRequest`]: [
    ['token', 1, `${D}.Token`, 'single'],
    ['text', 2, 'string', 'single'],
    ['severity', 3, 'string', 'single'],
    ['target', 4, 'string', 'single'],
    ['execute_along_path', 5, 'bool', 'single'],
    ['execute_on_all_subsequent_children_in_path', 6, 'bool', 'single'],
  ],
  [`${D}.LogOnServerResponse`]: [
    ['token', 1, `${D}.Token`, 'single'],
    ['name', 2, 'string', 'single'],
    ['flag', 3, `${D}.ResponseFlag`, 'single'],
    ['children', 4, `${D}.LogOnServerResponse`, 'repeated'],
  ],
  [`${D}.OutcomeStatus`]: [],
  [`${D}.CommandDescription`]: [
    ['name', 1, 'string', 'single'],
    ['data_type', 2, 'string', 'repeated'],
    ['help', 3, 'string', 'single'],
    ['return_type', 4, 'string', 'single'],
  ],
  [`${D}.Description`]: [
    ['token', 1, `${D}.Token`, 'single'],
    ['type', 2, 'string', 'single'],
    ['name', 3, 'string', 'single'],
    ['endpoint', 4, 'string', 'single'],
    ['info', 5, 'string', 'optional'],
    ['session', 6, 'string', 'optional'],
    ['commands', 7, `${D}.CommandDescription`, 'repeated'],
    ['broadcast', 8, 'google.protobuf.Any', 'optional'],
    ['flag', 9, `${D}.ResponseFlag`, 'single'],
  ],
  [`${PM}.ProcessRestriction`]: [
    ['allowed_hosts', 1, 'string', 'repeated'],
    ['allowed_host_types', 2, 'string', 'repeated'],
    ['data_mount', 3, 'string', 'optional'],
  ],
  [`${PM}.CommandNotificationMessage`]: [
    ['user', 1, 'string', 'single'],
    ['command', 2, 'string', 'single'],
  ],
  [`${PM}.GenericNotificationMessage`]: [['message', 1, 'string', 'single']],
  [`${PM}.ExceptionNotification`]: [
    ['error_text', 1, 'string', 'single'],
    ['stack_trace', 2, `${PM}.ExceptionNotification.StackLine`, 'repeated'],
  ],
  [`${PM}.ExceptionNotification.StackLine`]: [
    ['line_text', 1, 'string', 'single'],
    ['line_number', 2, 'string', 'single'],
    ['file', 3, 'string', 'single'],
  ],
  [`${PM}.LogRequest`]: [
    ['token', 1, `${D}.Token`, 'single'],
    ['query', 2, `${PM}.ProcessQuery`, 'single'],
    ['how_far', 3, 'int32', 'single'],
  ],
  [`${PM}.LogLines`]: [
    ['name', 1, 'string', 'single'],
    ['token', 2, `${D}.Token`, 'single'],
    ['uuid', 3, `${PM}.ProcessUUID`, 'single'],
    ['lines', 4, 'string', 'repeated'],
    ['flag', 5, `${D}.ResponseFlag`, 'single'],
  ],
  [`${PM}.ProcessUUID`]: [['uuid', 1, 'string', 'single']],
  [`${PM}.ProcessMetadata`]: [
    ['uuid', 1, `${PM}.ProcessUUID`, 'single'],
    ['user', 2, 'string', 'single'],
    ['session', 3, 'string', 'optional'],
    ['name', 4, 'string', 'single'],
    ['hostname', 5, 'string', 'single'],
    ['tree_id', 6, 'string', 'optional'],
  ],
  [`${PM}.ProcessQuery`]: [
    ['token', 1, `${D}.Token`, 'single'],
    ['uuids', 2, `${PM}.ProcessUUID`, 'repeated'],
    ['names', 3, 'string', 'repeated'],
    ['user', 4, 'string', 'single'],
    ['session', 5, 'string', 'single'],
  ],
  [`${PM}.ProcessDescription`]: [
    ['metadata', 1, `${PM}.ProcessMetadata`, 'single'],
    ['env', 2, 'string', 'map'],
    ['executable_and_arguments', 3, `${PM}.ProcessDescription.ExecAndArgs`, 'repeated'],
    ['process_execution_directory', 4, 'string', 'single'],
    ['process_logs_path', 5, 'string', 'single'],
  ],
  [`${PM}.ProcessDescription.StringList`]: [['values', 1, 'string', 'repeated']],
  [`${PM}.ProcessDescription.ExecAndArgs`]: [
    ['exec', 1, 'string', 'single'],
    ['args', 2, 'string', 'repeated'],
  ],
  [`${PM}.ProcessInstance`]: [
    ['process_description', 1, `${PM}.ProcessDescription`, 'single'],
    ['process_restriction', 2, `${PM}.ProcessRestriction`, 'single'],
    ['status_code', 3, `${PM}.ProcessInstance.StatusCode`, 'single'],
    // druncschema 1.1.0: plain int32; ours is proto3 optional (same number, type and wire form).
    ['return_code', 4, 'int32', 'optional'],
    ['uuid', 5, `${PM}.ProcessUUID`, 'single'],
  ],
  [`${PM}.ProcessInstanceList`]: [
    ['name', 1, 'string', 'single'],
    ['token', 2, `${D}.Token`, 'single'],
    ['values', 3, `${PM}.ProcessInstance`, 'repeated'],
    ['flag', 4, `${D}.ResponseFlag`, 'single'],
  ],
  [`${PM}.BootRequest`]: [
    ['token', 1, `${D}.Token`, 'single'],
    ['process_description', 2, `${PM}.ProcessDescription`, 'single'],
    ['process_restriction', 3, `${PM}.ProcessRestriction`, 'single'],
  ],
};

const ENUMS: Record<string, Record<string, number>> = {
  [`${D}.ResponseFlag`]: {
    EXECUTED_SUCCESSFULLY: 0,
    FAILED: 1,
    NOT_EXECUTED_NOT_IMPLEMENTED: 2,
    NOT_EXECUTED_NOT_IN_CONTROL: 3,
    NOT_EXECUTED_NOT_AUTHORISED: 4,
    NOT_EXECUTED_NODE_IN_ERROR: 5,
    DRUNC_EXCEPTION_THROWN: 6,
    UNHANDLED_EXCEPTION_THROWN: 7,
    NOT_EXECUTED_BAD_REQUEST_FORMAT: 8,
    NOT_EXECUTED_NOT_READY: 9,
  },
  [`${PM}.ProcessInstance.StatusCode`]: { RUNNING: 0, DEAD: 1 },
};

/** [method, request, response]; all unary. */
const METHODS: Array<[string, string, string]> = [
  ['send_msg', `${D}.Request`, `${D}.OutcomeStatus`],
  ['describe', `${D}.Request`, `${D}.Description`],
  ['boot', `${PM}.BootRequest`, `${PM}.ProcessInstanceList`],
  ['terminate', `${D}.Request`, `${PM}.ProcessInstanceList`],
  ['restart', `${PM}.ProcessQuery`, `${PM}.ProcessInstanceList`],
  ['kill', `${PM}.ProcessQuery`, `${PM}.ProcessInstanceList`],
  ['flush', `${PM}.ProcessQuery`, `${PM}.ProcessInstanceList`],
  ['ps', `${PM}.ProcessQuery`, `${PM}.ProcessInstanceList`],
  ['logs', `${PM}.LogRequest`, `${PM}.LogLines`],
  ['log_on_server', `${D}.LogOnServerRequest`, `${D}.LogOnServerResponse`],
  ['echo_on_server', `${D}.LogOnServerRequest`, `${D}.LogOnServerResponse`],
];

const root = loadRoot([DRUNC_PROTO]);

describe("the project's druncschema .proto files", () => {
  it.each(Object.entries(DRUNCSCHEMA_1_1_0))('%s has druncschema 1.1.0 fields', (name, fields) => {
    const type = root.lookupType(name);
    expect(fieldsOf(type)).toEqual(fields);
  });

  it('the map env has string keys and values', () => {
    const env = root.lookupType(`${PM}.ProcessDescription`).fields
      .env as unknown as protobuf.MapField;
    expect([env.keyType, env.type]).toEqual(['string', 'string']);
  });

  it('define no message the table does not hold', () => {
    expect(messagesOf(root)).toEqual(Object.keys(DRUNCSCHEMA_1_1_0).sort());
  });

  it.each(Object.entries(ENUMS))('enum %s has druncschema 1.1.0 values', (name, values) => {
    expect(root.lookupEnum(name).values).toEqual(values);
  });

  it('serve ProcessManager with druncschema 1.1.0 methods and the newer three, all unary', () => {
    const service = root.lookupService(DRUNC_SERVICE_PATH);
    const methods = service.methodsArray.map((m) => {
      expect([m.requestStream ?? false, m.responseStream ?? false]).toEqual([false, false]);
      return [m.name, fullName(m.resolvedRequestType!), fullName(m.resolvedResponseType!)];
    });
    expect(methods).toEqual(METHODS);
  });
});
