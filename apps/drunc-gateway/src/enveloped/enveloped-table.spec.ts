/**
 * druncschema before 1.0 as it publishes itself — the schema of drunc v0.10 and of the drunc
 * drunc's web UI pins (schema/druncschema/*.proto of druncschema's develop, October 2024;
 * session_manager.proto as drunc's web UI calls it, with list_all_sessions and list_all_configs):
 * every message, field name, number and type, and both services' methods. The project's
 * .proto files under proto/enveloped must say exactly this, both ways.
 */
import { fieldsOf, fullName, messagesOf, type Field } from '../wire/descriptor-fields';
import { loadRoot } from '../wire/proto-files';
import { ENVELOPED_PROTOS, envelopedProtoDir } from './enveloped-wire';

const D = 'dunedaq.druncschema';

const DRUNCSCHEMA_ENVELOPED: Record<string, Field[]> = {
  [`${D}.Token`]: [
    ['token', 1, 'string', 'single'],
    ['user_name', 2, 'string', 'single'],
  ],
  [`${D}.PlainText`]: [['text', 1, 'string', 'single']],
  [`${D}.Stacktrace`]: [['text', 1, 'string', 'repeated']],
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
  [`${D}.CommandDescription`]: [
    ['name', 1, 'string', 'single'],
    ['data_type', 2, 'string', 'repeated'],
    ['help', 3, 'string', 'single'],
    ['return_type', 4, 'string', 'single'],
  ],
  [`${D}.Description`]: [
    ['type', 1, 'string', 'single'],
    ['name', 2, 'string', 'single'],
    ['session', 3, 'string', 'optional'],
    ['commands', 4, `${D}.CommandDescription`, 'repeated'],
    ['broadcast', 5, 'google.protobuf.Any', 'optional'],
  ],
  [`${D}.ProcessRestriction`]: [
    ['allowed_hosts', 1, 'string', 'repeated'],
    ['allowed_host_types', 2, 'string', 'repeated'],
  ],
  [`${D}.CommandNotificationMessage`]: [
    ['user', 1, 'string', 'single'],
    ['command', 2, 'string', 'single'],
  ],
  [`${D}.GenericNotificationMessage`]: [['message', 1, 'string', 'single']],
  [`${D}.ExceptionNotification`]: [
    ['error_text', 1, 'string', 'single'],
    ['stack_trace', 2, `${D}.ExceptionNotification.StackLine`, 'repeated'],
  ],
  [`${D}.ExceptionNotification.StackLine`]: [
    ['line_text', 1, 'string', 'single'],
    ['line_number', 2, 'string', 'single'],
    ['file', 3, 'string', 'single'],
  ],
  [`${D}.LogRequest`]: [
    ['query', 1, `${D}.ProcessQuery`, 'single'],
    ['how_far', 2, 'int32', 'single'],
  ],
  [`${D}.LogLine`]: [
    ['uuid', 1, `${D}.ProcessUUID`, 'single'],
    ['line', 2, 'string', 'single'],
  ],
  [`${D}.ProcessUUID`]: [['uuid', 1, 'string', 'single']],
  [`${D}.ProcessMetadata`]: [
    ['uuid', 1, `${D}.ProcessUUID`, 'single'],
    ['user', 2, 'string', 'single'],
    ['session', 3, 'string', 'optional'],
    ['name', 4, 'string', 'single'],
    ['hostname', 5, 'string', 'single'],
    ['tree_id', 6, 'string', 'optional'],
  ],
  [`${D}.ProcessQuery`]: [
    ['uuids', 1, `${D}.ProcessUUID`, 'repeated'],
    ['names', 2, 'string', 'repeated'],
    ['user', 3, 'string', 'single'],
    ['session', 4, 'string', 'single'],
  ],
  [`${D}.ProcessDescription`]: [
    ['metadata', 1, `${D}.ProcessMetadata`, 'single'],
    ['env', 2, 'string', 'map'],
    ['executable_and_arguments', 3, `${D}.ProcessDescription.ExecAndArgs`, 'repeated'],
    ['process_execution_directory', 4, 'string', 'single'],
    ['process_logs_path', 5, 'string', 'single'],
  ],
  [`${D}.ProcessDescription.StringList`]: [['values', 1, 'string', 'repeated']],
  [`${D}.ProcessDescription.ExecAndArgs`]: [
    ['exec', 1, 'string', 'single'],
    ['args', 2, 'string', 'repeated'],
  ],
  [`${D}.ProcessInstance`]: [
    ['process_description', 1, `${D}.ProcessDescription`, 'single'],
    ['process_restriction', 2, `${D}.ProcessRestriction`, 'single'],
    ['status_code', 3, `${D}.ProcessInstance.StatusCode`, 'single'],
    ['return_code', 4, 'int32', 'single'],
    ['uuid', 5, `${D}.ProcessUUID`, 'single'],
  ],
  [`${D}.BootRequest`]: [
    ['process_description', 1, `${D}.ProcessDescription`, 'single'],
    ['process_restriction', 2, `${D}.ProcessRestriction`, 'single'],
  ],
  [`${D}.ProcessInstanceList`]: [['values', 1, `${D}.ProcessInstance`, 'repeated']],
  [`${D}.ConfigKey`]: [
    ['file', 1, 'string', 'single'],
    ['session_id', 2, 'string', 'single'],
  ],
  [`${D}.AllConfigKeys`]: [['config_keys', 1, `${D}.ConfigKey`, 'repeated']],
  [`${D}.ActiveSession`]: [
    ['name', 1, 'string', 'single'],
    ['user', 2, 'string', 'single'],
    ['config_key', 3, `${D}.ConfigKey`, 'single'],
  ],
  [`${D}.AllActiveSessions`]: [['active_sessions', 1, `${D}.ActiveSession`, 'repeated']],
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
  },
  [`${D}.ProcessInstance.StatusCode`]: { RUNNING: 0, DEAD: 1 },
};

/** [method, server-streamed]: every method takes a Request and answers Response. */
const METHODS: Record<string, Array<[string, boolean]>> = {
  [`${D}.ProcessManager`]: [
    ['describe', false],
    ['boot', false],
    ['terminate', false],
    ['restart', false],
    ['kill', false],
    ['flush', false],
    ['ps', false],
    ['logs', true],
  ],
  [`${D}.SessionManager`]: [
    ['describe', false],
    ['list_all_sessions', false],
    ['start_session', false],
    ['stop_session', false],
    ['list_all_configs', false],
    ['load_config', false],
  ],
};

const root = loadRoot(ENVELOPED_PROTOS, envelopedProtoDir());

describe("the project's enveloped-era druncschema .proto files", () => {
  it.each(Object.entries(DRUNCSCHEMA_ENVELOPED))('%s has the era’s fields', (name, fields) => {
    expect(fieldsOf(root.lookupType(name))).toEqual(fields);
  });

  it('define no message the table does not hold', () => {
    expect(messagesOf(root)).toEqual(Object.keys(DRUNCSCHEMA_ENVELOPED).sort());
  });

  it.each(Object.entries(ENUMS))('enum %s has the era’s values', (name, values) => {
    expect(root.lookupEnum(name).values).toEqual(values);
  });

  it.each(Object.entries(METHODS))('%s takes Request and answers Response', (name, methods) => {
    const service = root.lookupService(name);
    expect(
      service.methodsArray.map((m) => [
        m.name,
        fullName(m.resolvedRequestType!),
        fullName(m.resolvedResponseType!),
        m.requestStream ?? false,
        m.responseStream ?? false,
      ]),
    ).toEqual(
      methods.map(([m, streamed]) => [m, `${D}.Request`, `${D}.Response`, false, streamed]),
    );
  });
});
