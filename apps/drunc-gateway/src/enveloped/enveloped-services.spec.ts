import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { DruncProcessManager } from '../drunc-process-manager';
import { ResponseFlag, type AnyMessage } from '../wire/drunc-messages';
import { addEnvelopedServices } from './enveloped-services';
import { EnvelopedWire, envelopedProtoDir, type EnvelopedResponse } from './enveloped-wire';

/** The era's services on a real gRPC server, called as drunc's stubs call them. */
const wire = new EnvelopedWire();
const token = { token: 'alice-token', user_name: 'alice' };
let server: grpc.Server;
let address: string;
const pm = {
  ps: jest.fn(() => Promise.resolve({ name: 'kpm', values: [], flag: 0 })),
  logs: jest.fn(() =>
    Promise.resolve({ name: 'p', uuid: { uuid: 'u-1' }, lines: ['one', 'two', 'three'], flag: 0 }),
  ),
  sessions: jest.fn(() => Promise.resolve([{ name: 'run-1', user: 'alice' }])),
  kill: jest.fn(() => Promise.resolve({ name: 'kpm', values: [], flag: 0 })),
};
const deadlines: number[] = [];

beforeAll(async () => {
  server = new grpc.Server();
  addEnvelopedServices(server, pm as unknown as DruncProcessManager, {
    name: 'kpm',
    configurations: ['f.data.xml:s-1'],
    answerBy: (call) => {
      const by = Number(call.getDeadline());
      deadlines.push(by);
      return by - 1_000;
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
  address = `127.0.0.1:${port}`;
});

afterAll(() => server.forceShutdown());

type Callback = (error: grpc.ServiceError | null, response: EnvelopedResponse) => void;
type Stub = grpc.Client &
  Record<string, (r: unknown, o: grpc.CallOptions, cb: Callback) => void> & {
    logs(r: unknown, o: grpc.CallOptions): grpc.ClientReadableStream<EnvelopedResponse>;
  };

function stub(service: 'ProcessManager' | 'SessionManager'): Stub {
  const definition = protoLoader.loadSync(
    ['druncschema/process_manager.proto', 'druncschema/session_manager.proto'],
    { keepCase: true, defaults: true, oneofs: true, includeDirs: [envelopedProtoDir()] },
  );
  const name = `dunedaq.druncschema.${service}`;
  const Client = grpc.makeGenericClientConstructor(
    definition[name] as grpc.ServiceDefinition,
    name,
  );
  return new Client(address, grpc.credentials.createInsecure()) as unknown as Stub;
}

function unary(service: 'ProcessManager' | 'SessionManager', rpc: string, data?: AnyMessage) {
  const client = stub(service);
  return new Promise<EnvelopedResponse>((resolve, reject) =>
    client[rpc]({ token, data }, { deadline: Date.now() + 5_000 }, (error, response) => {
      client.close();
      return error ? reject(error) : resolve(response);
    }),
  );
}

describe('the enveloped era on a gRPC server', () => {
  it("ps answers a Response whose data is a ProcessInstanceList, within the caller's deadline", async () => {
    const response = await unary(
      'ProcessManager',
      'ps',
      wire.pack('ProcessQuery', { names: ['.*'] }),
    );
    expect([response.flag, response.name, response.data?.type_url]).toEqual([
      ResponseFlag.EXECUTED_SUCCESSFULLY,
      'kpm',
      'type.googleapis.com/dunedaq.druncschema.ProcessInstanceList',
    ]);
    expect(deadlines.at(-1)).toBeGreaterThan(Date.now());
  });

  it('logs streams one Response per line, then ends', async () => {
    const client = stub('ProcessManager');
    const request = {
      token,
      data: wire.pack('LogRequest', { query: { uuids: [{ uuid: 'u-1' }] } }),
    };
    const stream = client.logs(request, { deadline: Date.now() + 5_000 });
    const lines: string[] = [];
    for await (const response of stream as AsyncIterable<EnvelopedResponse>) {
      lines.push(wire.decode<{ line: string }>(response.data as AnyMessage, 'LogLine').line);
    }
    client.close();
    expect(lines).toEqual(['one', 'two', 'three']);
  });

  it('a garbage Any is a Response with a flag, not a gRPC error', async () => {
    const response = await unary('ProcessManager', 'kill', {
      type_url: 'nonsense',
      value: Buffer.from([1, 2, 3]),
    });
    expect(response.flag).toBe(ResponseFlag.NOT_EXECUTED_BAD_REQUEST_FORMAT);
    expect(pm.kill).not.toHaveBeenCalled();
  });

  it('the SessionManager lists sessions and configurations; load_config is not implemented', async () => {
    const sessions = await unary('SessionManager', 'list_all_sessions');
    expect(wire.decode(sessions.data as AnyMessage, 'AllActiveSessions')).toEqual({
      active_sessions: [{ name: 'run-1', user: 'alice', config_key: null }],
    });
    const configs = await unary('SessionManager', 'list_all_configs');
    expect(wire.decode(configs.data as AnyMessage, 'AllConfigKeys')).toEqual({
      config_keys: [{ file: 'f.data.xml', session_id: 's-1' }],
    });
    const refused = await unary('SessionManager', 'load_config');
    expect(refused.flag).toBe(ResponseFlag.NOT_EXECUTED_NOT_IMPLEMENTED);
  });
});
