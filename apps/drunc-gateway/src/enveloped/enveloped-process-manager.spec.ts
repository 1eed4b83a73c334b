import { status } from '@grpc/grpc-js';
import type { DruncProcessManager } from '../drunc-process-manager';
import { GatewayError } from '../errors/gateway-error';
import {
  ResponseFlag,
  StatusCode,
  type AnyMessage,
  type ProcessInstance,
  type ProcessInstanceList,
} from '../wire/drunc-messages';
import { EnvelopedProcessManager } from './enveloped-process-manager';
import { EnvelopedSessionManager } from './enveloped-session-manager';
import { EnvelopedWire, type EnvelopedResponse, type EnvelopedType } from './enveloped-wire';

const wire = new EnvelopedWire();
const token = { token: 'alice-token', user_name: 'alice' };
const instance = (uuid: string): ProcessInstance => ({
  process_description: {
    metadata: {
      uuid: { uuid },
      user: 'alice',
      session: 'run-1',
      name: 'dummy_boot_0',
      hostname: 'n',
    },
    env: {},
    executable_and_arguments: [{ exec: 'echo', args: ['x'] }],
    process_execution_directory: '/d',
    process_logs_path: '/d/log.txt',
  },
  process_restriction: { allowed_hosts: ['n'], allowed_host_types: [] },
  status_code: StatusCode.DEAD,
  return_code: 0,
  uuid: { uuid },
});
const list = (uuids: string[], flag = ResponseFlag.EXECUTED_SUCCESSFULLY): ProcessInstanceList => ({
  name: 'kpm',
  values: uuids.map(instance),
  flag,
});

/** The shared mapping, recording what the era hands it. */
function mapping(patch: Partial<Record<keyof DruncProcessManager, jest.Mock>> = {}) {
  const pm = {
    boot: jest.fn(() => Promise.resolve(list(['u-1']))),
    ps: jest.fn(() => Promise.resolve(list(['u-1', 'u-2']))),
    kill: jest.fn(() => Promise.resolve(list(['u-1']))),
    flush: jest.fn(() => Promise.resolve(list([]))),
    restart: jest.fn(() => Promise.resolve(list(['u-1']))),
    terminate: jest.fn(() => Promise.resolve(list(['u-1', 'u-2']))),
    logs: jest.fn(() =>
      Promise.resolve({
        name: 'dummy_boot_0',
        uuid: { uuid: 'u-1' },
        lines: ['one', 'two'],
        flag: ResponseFlag.EXECUTED_SUCCESSFULLY,
      }),
    ),
    sessions: jest.fn(() => Promise.resolve([{ name: 'run-1', user: 'alice' }])),
    ...patch,
  };
  const era = new EnvelopedProcessManager(pm as unknown as DruncProcessManager, wire, 'kpm');
  return { pm, era };
}

/** As drunc's driver builds a Request: the token, and the payload packed in an Any. */
const request = (type?: EnvelopedType, payload: object = {}) => ({
  token,
  data: type ? wire.pack(type, payload) : null,
});
const query = (patch: object = {}) => request('ProcessQuery', patch);
const soon = Date.now() + 10_000;

/** As drunc's client reads a Response: the flag, and the data unpacked to the expected type. */
function read<T>(response: EnvelopedResponse, type: EnvelopedType): T {
  expect(response.data?.type_url).toBe(`type.googleapis.com/dunedaq.druncschema.${type}`);
  return wire.decode<T>(response.data as AnyMessage, type);
}

describe('EnvelopedProcessManager: each RPC answers the payload type drunc unpacks', () => {
  it.each([
    ['ps', (e: EnvelopedProcessManager) => e.ps(query({ names: ['.*'] })), 'ProcessInstanceList'],
    [
      'kill',
      (e: EnvelopedProcessManager) => e.kill(query({ uuids: [{ uuid: 'u-1' }] }), soon),
      'ProcessInstanceList',
    ],
    [
      'flush',
      (e: EnvelopedProcessManager) => e.flush(query({ uuids: [{ uuid: 'u-1' }] }), soon),
      'ProcessInstanceList',
    ],
    [
      'terminate',
      (e: EnvelopedProcessManager) => e.terminate(query(), soon),
      'ProcessInstanceList',
    ],
    [
      'restart',
      (e: EnvelopedProcessManager) => e.restart(query({ uuids: [{ uuid: 'u-1' }] }), soon),
      'ProcessInstance',
    ],
    [
      'boot',
      (e: EnvelopedProcessManager) => e.boot(request('BootRequest', bootPayload()), soon),
      'ProcessInstance',
    ],
    ['describe', (e: EnvelopedProcessManager) => e.describe(request()), 'Description'],
  ] as const)('%s → %s, flag EXECUTED_SUCCESSFULLY', async (_rpc, call, type) => {
    const response = await call(mapping().era);
    expect([response.flag, response.name, response.children]).toEqual([0, 'kpm', []]);
    read(response, type);
  });

  it("ps hands drunc_ui's query (names ['.*'], no session, no user) to the shared mapping with the token", async () => {
    const { pm, era } = mapping();
    const answer = read<{ values: ProcessInstance[] }>(
      await era.ps(query({ names: ['.*'] })),
      'ProcessInstanceList',
    );
    expect(pm.ps).toHaveBeenCalledWith({ token, uuids: [], names: ['.*'], user: '', session: '' });
    expect(answer.values.map((v) => [v.uuid.uuid, v.process_description.metadata?.name])).toEqual([
      ['u-1', 'dummy_boot_0'],
      ['u-2', 'dummy_boot_0'],
    ]);
    expect(answer.values[0].return_code).toBe(0);
  });

  it('boot hands the BootRequest with the token and answers its one ProcessInstance', async () => {
    const { pm, era } = mapping();
    const booted = read<ProcessInstance>(
      await era.boot(request('BootRequest', bootPayload()), soon),
      'ProcessInstance',
    );
    expect(pm.boot).toHaveBeenCalledWith(
      expect.objectContaining({
        token,
        process_description: expect.objectContaining({
          metadata: expect.objectContaining({ name: 'dummy_boot_0', session: 'run-1' }),
          process_logs_path: '/d/log_alice_run-1_dummy-boot_0.log',
        }),
        process_restriction: { allowed_hosts: ['localhost'], allowed_host_types: [] },
      }),
      soon,
    );
    expect(booted.uuid.uuid).toBe('u-1');
  });

  it("terminate ignores the era's query (drunc ends everything it runs): the caller's sessions", async () => {
    const { pm, era } = mapping();
    await era.terminate(query({ session: 'whatever' }), soon);
    expect(pm.terminate).toHaveBeenCalledWith({ token }, soon);
  });

  it('a kill kpm finished only in part answers FAILED with the list', async () => {
    const { era } = mapping({
      kill: jest.fn(() => Promise.resolve(list(['u-1'], ResponseFlag.FAILED))),
    });
    const response = await era.kill(query({ uuids: [{ uuid: 'u-1' }] }), soon);
    expect(response.flag).toBe(ResponseFlag.FAILED);
    expect(read<ProcessInstanceList>(response, 'ProcessInstanceList').values).toHaveLength(1);
  });

  it('logs streams one LogLine per line', async () => {
    const responses = await mapping().era.logs(
      request('LogRequest', { query: { uuids: [{ uuid: 'u-1' }] }, how_far: 100 }),
    );
    expect(
      responses.map((r) => [r.flag, read<{ line: string; uuid: { uuid: string } }>(r, 'LogLine')]),
    ).toEqual([
      [0, { uuid: { uuid: 'u-1' }, line: 'one' }],
      [0, { uuid: { uuid: 'u-1' }, line: 'two' }],
    ]);
  });

  it('logs refused by the mapping is one NOT_EXECUTED_BAD_REQUEST_FORMAT with the reason', async () => {
    const { era } = mapping({
      logs: jest.fn(() =>
        Promise.resolve({
          name: '',
          uuid: null,
          lines: ['no process'],
          flag: ResponseFlag.NOT_EXECUTED_BAD_REQUEST_FORMAT,
        }),
      ),
    });
    const [refused, ...more] = await era.logs(request('LogRequest', { query: {}, how_far: 100 }));
    expect(more).toEqual([]);
    expect(refused.flag).toBe(ResponseFlag.NOT_EXECUTED_BAD_REQUEST_FORMAT);
    expect(read<{ text: string }>(refused, 'PlainText').text).toBe('logs refused: no process');
  });
});

describe('EnvelopedProcessManager: refusals are flags with the whole explanation, never gRPC errors', () => {
  it.each([
    [
      'an Any of another type',
      { type_url: 'type.googleapis.com/dunedaq.druncschema.LogRequest', value: Buffer.alloc(0) },
      'got an Any of type "type.googleapis.com/dunedaq.druncschema.LogRequest"',
    ],
    [
      'a made-up type',
      { type_url: 'garbage', value: Buffer.from('xyz') },
      'got an Any of type "garbage"',
    ],
    ['no data', null, 'got no data'],
    [
      'bytes that do not decode',
      {
        type_url: 'type.googleapis.com/dunedaq.druncschema.ProcessQuery',
        value: Buffer.from([0x0a, 0xff]),
      },
      'got 2 bytes that do not decode as one',
    ],
  ])('kill with %s: NOT_EXECUTED_BAD_REQUEST_FORMAT, nothing done', async (_name, data, says) => {
    const { pm, era } = mapping();
    const response = await era.kill({ token, data }, soon);
    expect(response.flag).toBe(ResponseFlag.NOT_EXECUTED_BAD_REQUEST_FORMAT);
    expect(response.token).toEqual(token);
    const { text } = read<{ text: string }>(response, 'PlainText');
    expect(text).toContain(
      'kill: data: expected an Any of type type.googleapis.com/dunedaq.druncschema.ProcessQuery',
    );
    expect(text).toContain(says);
    expect(pm.kill).not.toHaveBeenCalled();
  });

  it.each([
    [status.INVALID_ARGUMENT, ResponseFlag.NOT_EXECUTED_BAD_REQUEST_FORMAT, 'PlainText'],
    [status.PERMISSION_DENIED, ResponseFlag.NOT_EXECUTED_NOT_AUTHORISED, 'PlainText'],
    [status.UNIMPLEMENTED, ResponseFlag.NOT_EXECUTED_NOT_IMPLEMENTED, 'PlainText'],
    [status.INTERNAL, ResponseFlag.DRUNC_EXCEPTION_THROWN, 'Stacktrace'],
    [status.DEADLINE_EXCEEDED, ResponseFlag.DRUNC_EXCEPTION_THROWN, 'Stacktrace'],
    [status.UNAVAILABLE, ResponseFlag.DRUNC_EXCEPTION_THROWN, 'Stacktrace'],
  ] as const)('a refusal of code %s is flag %s with a %s', async (code, flag, type) => {
    const message = `restart refused: the explanation (${code})`;
    const error = new GatewayError({
      code,
      message,
      reason: 'R',
      domain: 'ProcessManager.restart',
    });
    const { era } = mapping({ restart: jest.fn(() => Promise.reject(error)) });
    const response = await era.restart(query({ uuids: [{ uuid: 'nope' }] }), soon);
    expect(response.flag).toBe(flag);
    const text = read<{ text: string | string[] }>(response, type).text;
    expect(Array.isArray(text) ? text.filter(Boolean).pop() : text).toBe(message);
  });

  it('an unexpected error is UNHANDLED_EXCEPTION_THROWN naming the RPC', async () => {
    const { era } = mapping({ ps: jest.fn(() => Promise.reject(new Error('boom'))) });
    const response = await era.ps(query({ names: ['.*'] }));
    expect(response.flag).toBe(ResponseFlag.UNHANDLED_EXCEPTION_THROWN);
    expect(read<{ text: string[] }>(response, 'Stacktrace').text).toEqual([
      'Unhandled exception in ProcessManager.ps: boom',
    ]);
  });
});

describe('EnvelopedSessionManager', () => {
  const sessions = (configurations: string[] = []) => {
    const { pm } = mapping();
    return {
      pm,
      sm: new EnvelopedSessionManager(
        pm as unknown as DruncProcessManager,
        wire,
        'kpm',
        configurations,
      ),
    };
  };

  it("list_all_sessions answers kpm's sessions and their users as AllActiveSessions", async () => {
    const { sm } = sessions();
    const answer = read<{ active_sessions: unknown[] }>(
      await sm.list_all_sessions(request()),
      'AllActiveSessions',
    );
    expect(answer.active_sessions).toEqual([{ name: 'run-1', user: 'alice', config_key: null }]);
  });

  it('list_all_configs answers the configurations the gateway was given, split at the last colon', () => {
    const { sm } = sessions([
      'config/daqsystemtest/example-configs.data.xml:local-1x1-config',
      'C:/x.xml:s',
    ]);
    expect(read(sm.list_all_configs(), 'AllConfigKeys')).toEqual({
      config_keys: [
        { file: 'config/daqsystemtest/example-configs.data.xml', session_id: 'local-1x1-config' },
        { file: 'C:/x.xml', session_id: 's' },
      ],
    });
  });

  it('describe is a session_manager Description; start_session is NOT_EXECUTED_NOT_IMPLEMENTED', () => {
    const { sm } = sessions();
    const description = read<{ type: string; commands: Array<{ name: string }> }>(
      sm.describe(),
      'Description',
    );
    expect([description.type, description.commands.map((c) => c.name)]).toEqual([
      'session_manager',
      ['describe', 'list_all_sessions', 'list_all_configs'],
    ]);
    const refused = sm.notImplemented('start_session', request());
    expect(refused.flag).toBe(ResponseFlag.NOT_EXECUTED_NOT_IMPLEMENTED);
    expect(read<{ text: string }>(refused, 'PlainText').text).toBe(
      'start_session is not implemented by kpm',
    );
  });
});

/** drunc's dummy_boot: `dummy_boot_<i>`, allowed_hosts ["localhost"], a log file in the working directory. */
function bootPayload() {
  return {
    process_description: {
      metadata: { user: 'alice', session: 'run-1', name: 'dummy_boot_0', hostname: '' },
      executable_and_arguments: [{ exec: 'echo', args: ['Starting dummy_boot.'] }],
      env: {},
      process_execution_directory: '/d',
      process_logs_path: '/d/log_alice_run-1_dummy-boot_0.log',
    },
    process_restriction: { allowed_hosts: ['localhost'] },
  };
}
