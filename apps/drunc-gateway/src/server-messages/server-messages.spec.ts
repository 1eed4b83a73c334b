import { status } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { GatewayError } from '../errors/gateway-error';
import { ResponseFlag, type LogOnServerRequest } from '../wire/drunc-messages';
import { DRUNC_PROTO, DRUNC_SERVICE_PATH, LOADER_OPTIONS, protoDir } from '../wire/proto-files';
import { NOTIFICATION_TYPE, NotificationReader } from './notification';
import { DruncServerMessages, type ServerLogEntry, type ServerMessage } from './server-messages';
import type { ServerLogLevel } from './severity';

const token = { token: 'alice-token', user_name: 'alice' };
const reader = new NotificationReader();

function messages() {
  const written: Array<[ServerLogLevel, ServerLogEntry]> = [];
  const announced: ServerMessage[] = [];
  const server = new DruncServerMessages(
    'kpm',
    { write: (level, entry) => written.push([level, entry]) },
    { announce: (message) => Promise.resolve(void announced.push(message)) },
  );
  return { server, written, announced };
}

/** What drunc's ProcessManagerDriver sends at connect. */
const logRequest = (patch: Partial<LogOnServerRequest> = {}): LogOnServerRequest => ({
  token,
  text: 'alice connected',
  severity: 'INFO',
  target: '',
  execute_along_path: false,
  execute_on_all_subsequent_children_in_path: false,
  ...patch,
});

async function refusal(call: () => Promise<unknown>): Promise<GatewayError> {
  try {
    await call();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('log_on_server and echo_on_server', () => {
  it.each([
    ['DEBUG', 'debug'],
    ['INFO', 'log'],
    ['info', 'log'],
    ['WARNING', 'warn'],
    ['Warn', 'warn'],
    ['ERROR', 'error'],
    ['EXCEPTION', 'error'],
    ['CRITICAL', 'fatal'],
    ['FATAL', 'fatal'],
  ])(
    'log the text at severity %s (level %s) with the user, and answer as drunc',
    async (severity, level) => {
      const { server, written, announced } = messages();
      const answer = await server.logOnServer(logRequest({ severity }));
      expect(answer).toEqual({
        token,
        name: 'kpm',
        flag: ResponseFlag.EXECUTED_SUCCESSFULLY,
        children: [],
      });
      expect(written).toEqual([
        [level, { event: 'drunc.log_on_server', user: 'alice', severity, text: 'alice connected' }],
      ]);
      expect(announced).toEqual([
        { rpc: 'log_on_server', user: 'alice', severity, text: 'alice connected' },
      ]);
    },
  );

  it('echo_on_server answers the same, under its own event', async () => {
    const { server, written } = messages();
    expect(await server.echoOnServer(logRequest({ severity: 'WARNING', text: 'hello' }))).toEqual({
      token,
      name: 'kpm',
      flag: ResponseFlag.EXECUTED_SUCCESSFULLY,
      children: [],
    });
    expect(written).toEqual([
      [
        'warn',
        { event: 'drunc.echo_on_server', user: 'alice', severity: 'WARNING', text: 'hello' },
      ],
    ]);
  });

  it('log an empty text, and a call without a token (a controller child sends none)', async () => {
    const { server, written } = messages();
    const answer = await server.logOnServer(logRequest({ token: null, text: '' }));
    expect(answer).toEqual({
      token: null,
      name: 'kpm',
      flag: ResponseFlag.EXECUTED_SUCCESSFULLY,
      children: [],
    });
    expect(written).toEqual([
      ['log', { event: 'drunc.log_on_server', user: '', severity: 'INFO', text: '' }],
    ]);
  });

  it.each(['', 'LOUD', 'log', '__proto__', 'toString'])(
    'do not log a severity %j that names no level: NOT_EXECUTED_NOT_IMPLEMENTED, as drunc',
    async (severity) => {
      const { server, written, announced } = messages();
      const answer = await server.logOnServer(logRequest({ severity }));
      expect(answer.flag).toBe(ResponseFlag.NOT_EXECUTED_NOT_IMPLEMENTED);
      expect(answer.name).toBe('kpm');
      expect(written).toHaveLength(1);
      const [level, entry] = written[0];
      expect([level, entry.event, entry.user, entry.severity]).toEqual([
        'warn',
        'drunc.log_on_server.not_logged',
        'alice',
        severity,
      ]);
      expect(entry.reason).toContain('DEBUG, INFO, WARNING');
      expect(entry).not.toHaveProperty('text');
      expect(announced).toEqual([]);
    },
  );
});

describe('send_msg', () => {
  it("logs the GenericNotificationMessage drunc's driver packs, and answers an empty OutcomeStatus", async () => {
    const { server, written, announced } = messages();
    expect(await server.sendMsg({ token, data: reader.pack('session run-1 ended') })).toEqual({});
    expect(written).toEqual([
      ['log', { event: 'drunc.send_msg', user: 'alice', text: 'session run-1 ended' }],
    ]);
    expect(announced).toEqual([{ rpc: 'send_msg', user: 'alice', text: 'session run-1 ended' }]);
  });

  it.each([
    ['no data', null],
    ['an empty Any', { type_url: '', value: Buffer.alloc(0) }],
  ])('takes %s as no message (the driver sends none when it has none)', async (_what, data) => {
    const { server, written } = messages();
    expect(await server.sendMsg({ token, data })).toEqual({});
    expect(written).toEqual([['log', { event: 'drunc.send_msg', user: 'alice', text: '' }]]);
  });

  it('accepts any type URL prefix, as Any.Is does', async () => {
    const { server, written } = messages();
    const packed = reader.pack('x');
    await server.sendMsg({
      token,
      data: { ...packed, type_url: `example.org/${NOTIFICATION_TYPE}` },
    });
    expect(written[0][1].text).toBe('x');
  });

  it.each([
    [
      'an Any of another type',
      {
        type_url: 'type.googleapis.com/dunedaq.druncschema.PlainText',
        value: Buffer.from([10, 1, 120]),
      },
      `data: send_msg takes an Any of type type.googleapis.com/${NOTIFICATION_TYPE}, got an Any of type "type.googleapis.com/dunedaq.druncschema.PlainText" (3 bytes)`,
    ],
    [
      'bytes with no type',
      { type_url: '', value: Buffer.from([1]) },
      `data: send_msg takes an Any of type type.googleapis.com/${NOTIFICATION_TYPE}, got an Any with no type (1 bytes)`,
    ],
    [
      'garbage of the right type',
      {
        type_url: `type.googleapis.com/${NOTIFICATION_TYPE}`,
        value: Buffer.from([0xff, 0x00, 0x13]),
      },
      `data: 3 bytes that do not decode as a ${NOTIFICATION_TYPE} (`,
    ],
  ])(
    'refuses %s: INVALID_ARGUMENT naming data, with the whole reason',
    async (_what, data, reason) => {
      const { server, written, announced } = messages();
      const error = await refusal(() => server.sendMsg({ token, data }));
      expect(error.rich.code).toBe(status.INVALID_ARGUMENT);
      expect(error.rich.domain).toBe('ProcessManager.send_msg');
      expect(error.rich.reason).toBe('NOT_EXECUTED_BAD_REQUEST_FORMAT');
      expect(error.rich.violations?.map((v) => v.field)).toEqual(['data']);
      expect(error.message).toContain(`send_msg refused: ${reason}`);
      expect(written).toEqual([]);
      expect(announced).toEqual([]);
    },
  );
});

describe('the answers on the wire', () => {
  const service = protoLoader.loadSync(DRUNC_PROTO, {
    ...LOADER_OPTIONS,
    includeDirs: [protoDir()],
  })[DRUNC_SERVICE_PATH] as Record<string, protoLoader.MethodDefinition<object, object>>;

  it('serialise as drunc decodes them', async () => {
    const { server } = messages();
    const log = service.log_on_server;
    const answer = log.responseDeserialize(
      log.responseSerialize(await server.logOnServer(logRequest())),
    );
    expect(answer).toEqual({ token, name: 'kpm', flag: 0, children: [] });
    const echo = service.echo_on_server;
    const request = echo.requestDeserialize(echo.requestSerialize(logRequest()));
    expect(request).toEqual(logRequest());
    const send = service.send_msg;
    expect(send.responseSerialize(await server.sendMsg({ token, data: null })).length).toBe(0);
  });
});
