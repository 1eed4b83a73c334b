/**
 * The controller on Nest's gRPC transport, called as drunc's stubs call it: what drunc's newer
 * clients tell the server (send_msg, log_on_server, echo_on_server) is served and answered on
 * the wire, and a refusal carries drunc's rich status.
 */
import { createServer } from 'node:net';
import { credentials, loadPackageDefinition, type ServiceError } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { INestMicroservice } from '@nestjs/common';
import { Transport } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { KpmSettings } from '@kpm/config';
import { DruncProcessManager } from './drunc-process-manager';
import { ProcessManagerController } from './process-manager.controller';
import { NotificationReader } from './server-messages/notification';
import {
  DruncServerMessages,
  type ServerLogEntry,
  type ServerMessage,
} from './server-messages/server-messages';
import { decodeStatusDetails } from './wire/rich-status';
import { DRUNC_PROTO, DRUNC_PACKAGE, LOADER_OPTIONS, protoDir } from './wire/proto-files';

type Callback = (error: ServiceError | null, answer: unknown) => void;
type Client = Record<string, (request: object, callback: Callback) => void> & { close(): void };

const token = { token: 't', user_name: 'alice' };
const written: ServerLogEntry[] = [];
const announced: ServerMessage[] = [];
const loader = { ...LOADER_OPTIONS, includeDirs: [protoDir()] };
let app: INestMicroservice;
let client: Client;

function call(method: string, request: object): Promise<unknown> {
  return new Promise((resolve, reject) =>
    client[method](request, (error, answer) => (error ? reject(error) : resolve(answer))),
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  const testing = await Test.createTestingModule({
    controllers: [ProcessManagerController],
    providers: [
      { provide: DruncProcessManager, useValue: {} },
      { provide: KpmSettings, useValue: { gateway: {} } },
      {
        provide: DruncServerMessages,
        useValue: new DruncServerMessages(
          'kpm',
          { write: (_level, entry) => written.push(entry) },
          { announce: (message) => Promise.resolve(void announced.push(message)) },
        ),
      },
    ],
  }).compile();
  const port = await freePort();
  app = testing.createNestMicroservice({
    logger: false,
    transport: Transport.GRPC,
    options: {
      package: DRUNC_PACKAGE,
      protoPath: DRUNC_PROTO,
      url: `127.0.0.1:${port}`,
      loader,
    },
  });
  await app.listen();
  const definition = loadPackageDefinition(protoLoader.loadSync(DRUNC_PROTO, loader));
  const Service = DRUNC_PACKAGE.split('.').reduce(
    (ns: Record<string, unknown>, part) => ns[part] as Record<string, unknown>,
    definition as Record<string, unknown>,
  ).ProcessManager as new (
    address: string,
    creds: ReturnType<typeof credentials.createInsecure>,
  ) => Client;
  client = new Service(`127.0.0.1:${port}`, credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await app?.close();
});

it('log_on_server answers LogOnServerResponse, logs the event and announces it', async () => {
  const answer = await call('log_on_server', { token, text: 'hi', severity: 'INFO' });
  expect(answer).toEqual({ token, name: 'kpm', flag: 0, children: [] });
  expect(written.at(-1)).toEqual({
    event: 'drunc.log_on_server',
    user: 'alice',
    severity: 'INFO',
    text: 'hi',
  });
  expect(announced.at(-1)).toEqual({
    rpc: 'log_on_server',
    user: 'alice',
    severity: 'INFO',
    text: 'hi',
  });
});

it('echo_on_server answers LogOnServerResponse', async () => {
  const answer = await call('echo_on_server', { token, text: 'hi', severity: 'DEBUG' });
  expect(answer).toEqual({ token, name: 'kpm', flag: 0, children: [] });
  expect(written.at(-1)?.event).toBe('drunc.echo_on_server');
});

it('send_msg answers an empty OutcomeStatus', async () => {
  const data = new NotificationReader().pack('bye');
  expect(await call('send_msg', { token, data })).toEqual({});
  expect(written.at(-1)).toEqual({ event: 'drunc.send_msg', user: 'alice', text: 'bye' });
});

it('send_msg refuses a garbage Any with drunc rich status', async () => {
  const data = { type_url: 'type.googleapis.com/no.such.Message', value: Buffer.from([1]) };
  const error = (await call('send_msg', { token, data }).then(
    () => undefined,
    (e: ServiceError) => e,
  )) as ServiceError;
  expect(error.code).toBe(3);
  const [details] = error.metadata.get('grpc-status-details-bin') as Buffer[];
  const rich = decodeStatusDetails(details);
  expect(rich.errorInfo?.domain).toBe('ProcessManager.send_msg');
  expect(rich.violations.map((v) => v.field)).toEqual(['data']);
  expect(rich.message).toContain('"type.googleapis.com/no.such.Message"');
});
