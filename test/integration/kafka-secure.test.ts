/**
 * The secured local stack (`KPM_STACK_SECURE=1 npx kpm stack up`): a broker of its own, beside
 * the shared plaintext one, with a SASL_SSL listener, SCRAM users and the least ACLs per role.
 * A whole session runs over it (each service as its own principal, the client as the operator),
 * and the broker itself refuses plaintext, a wrong password, and a principal without write ACL
 * on the commands topic.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Kafka, logLevel } from 'kafkajs';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import { topicName } from '@kpm/contracts';
import { createKafkaClient, type KafkaSecuritySettings } from '@kpm/kafka';
import { runService } from '@kpm/service-kit';
import { readStackEnv } from '@kpm/stack';
import { BootWorkerModule } from '../../apps/boot-worker/src/boot-worker.module';
import { StateModule } from '../../apps/state/src/state.module';
import { WatcherModule } from '../../apps/watcher/src/watcher.module';
import { testSettings } from '../support/services';

jest.setTimeout(300_000);

const home = mkdtempSync(join(tmpdir(), 'kpm-secure-stack-'));
const port = 19292 + Math.floor(Math.random() * 200) * 2;
const domain = `secure-${randomBytes(3).toString('hex')}.test.daq`;
const stackVars = {
  KPM_HOME: home,
  KPM_STACK_SECURE: '1',
  KPM_STACK_PARTS: 'kafka',
  KPM_KAFKA_SECURE_PORT: String(port),
  KPM_TOPIC_PREFIX: 'kpm',
};
let secure: Record<string, string>;
const apps: INestApplication[] = [];
let client: ProcessManagerClient | undefined;

/** `npx kpm stack up` of the secured broker alone, in a KPM_HOME of this suite. */
function kpm(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/kpm.js', ...args], {
      env: { ...process.env, ...stackVars },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => output.push(c));
    child.stderr.on('data', (c: Buffer) => output.push(c));
    child.on('close', (code) => {
      const text = Buffer.concat(output).toString('utf8');
      if (code === 0) resolve(text);
      else reject(new Error(`kpm ${args.join(' ')} exited with ${code}:\n${text}`));
    });
  });
}

/** The client variables of a principal; its password from its file. */
function principal(user: string, passwordFile?: string): Record<string, string> {
  return {
    ...secure,
    KPM_KAFKA_SASL_USERNAME: user,
    KPM_KAFKA_SASL_PASSWORD_FILE:
      passwordFile ?? join(secure.KPM_KAFKA_SECRETS_DIR, `${user}.password`),
  };
}

function security(env: Record<string, string>): KafkaSecuritySettings {
  return {
    ssl: { caFile: env.KPM_KAFKA_SSL_CA_FILE },
    sasl: {
      mechanism: 'scram-sha-512',
      username: env.KPM_KAFKA_SASL_USERNAME,
      passwordFile: env.KPM_KAFKA_SASL_PASSWORD_FILE,
    },
  };
}

beforeAll(async () => {
  await kpm(['stack', 'up']);
  secure = readStackEnv(join(home, 'stack.env'));
}, 240_000);

afterAll(async () => {
  await client?.close();
  for (const app of apps.reverse()) await app.close();
  // Our own broker only: its pid file is in this suite's KPM_HOME.
  const pid = Number(readFileSync(join(home, 'run', 'kafka-secure.pid'), 'utf8'));
  process.kill(-pid, 'SIGTERM');
}, 120_000);

it('writes what the CLI needs into .kpm/stack.env, naming files, never a password', () => {
  expect(secure).toMatchObject({
    KPM_KAFKA_BROKERS: `127.0.0.1:${port}`,
    KPM_KAFKA_SASL_MECHANISM: 'scram-sha-512',
    KPM_KAFKA_SASL_USERNAME: 'kpm-operator',
    KPM_TOPIC_PREFIX: 'kpm',
    KPM_KAFKA_SSL_CA_FILE: expect.stringMatching(/ca\.pem$/),
    KPM_KAFKA_SASL_PASSWORD_FILE: expect.stringMatching(/kpm-operator\.password$/),
  });
  const password = readFileSync(secure.KPM_KAFKA_SASL_PASSWORD_FILE, 'utf8').trim();
  expect(readFileSync(join(home, 'stack.env'), 'utf8')).not.toContain(password);
});

describe('the broker refuses', () => {
  it('a plaintext client', async () => {
    const kafka = new Kafka({
      brokers: [secure.KPM_KAFKA_BROKERS],
      logLevel: logLevel.NOTHING,
      connectionTimeout: 3_000,
      requestTimeout: 5_000,
      retry: { retries: 0 },
    });
    const admin = kafka.admin();
    await expect(admin.connect().then(() => admin.listTopics())).rejects.toThrow();
    await admin.disconnect();
  });

  it('a wrong password, as an authentication failure', async () => {
    const wrong = join(home, 'wrong.password');
    writeFileSync(wrong, 'not-the-password\n');
    const kafka = createKafkaClient(
      {
        brokers: [secure.KPM_KAFKA_BROKERS],
        clientId: 'wrong',
        ...security(principal('kpm-operator', wrong)),
      },
      { logs: 'silent', retries: 0 },
    );
    const admin = kafka.admin();
    const error = (await admin.connect().catch((e: unknown) => e)) as Error;
    expect(error.name).toBe('KafkaJSSASLAuthenticationError');
    expect(error.message).toMatch(/SCRAM-SHA-512|Authentication failed/i);
  });

  it('a principal without write ACL on the commands topic (the watcher)', async () => {
    const kafka = createKafkaClient(
      {
        brokers: [secure.KPM_KAFKA_BROKERS],
        clientId: 'watcher-writes-commands',
        ...security(principal('kpm-watcher')),
      },
      { logs: 'silent', retries: 0 },
    );
    const producer = kafka.producer();
    await producer.connect();
    try {
      const error = (await producer
        .send({ topic: topicName('commands'), messages: [{ key: 'run-1', value: '{}' }] })
        .catch((e: unknown) => e)) as Error & { type?: string };
      expect(error.type ?? error.message).toMatch(/TOPIC_AUTHORIZATION_FAILED|not authorized/i);
    } finally {
      await producer.disconnect();
    }
  });
});

it('runs a whole session, boot to terminate, each service as its own principal', async () => {
  const service = async (
    name: string,
    module: (s: ReturnType<typeof testSettings>) => Promise<INestApplication>,
  ) => {
    const settings = testSettings(name, 'kpm', {
      ...principal(`kpm-${name}`),
      KPM_LABEL_DOMAIN: domain,
      KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
      KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
    });
    apps.push(await module(settings));
  };
  await service('watcher', (s) => runService(WatcherModule.register(s), s));
  await service('state', (s) => runService(StateModule.register(s), s, StateModule.consumer(s)));
  await service('boot-worker', (s) =>
    runService(BootWorkerModule.register(s), s, BootWorkerModule.consumer(s)),
  );
  client = connectProcessManager({
    brokers: [secure.KPM_KAFKA_BROKERS],
    topicPrefix: 'kpm',
    user: 'alice',
    ...security(secure),
  });
  const session = `secure-${randomBytes(3).toString('hex')}`;
  const processes = ['ru-01', 'ru-02'].map((name, i) => ({
    name,
    treeId: `0.1.${i + 1}`,
    executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
  }));
  const booted = await client.boot({ session, user: 'alice', processes }, { wait: true });
  expect(booted.completion?.processes.map((p) => p.statusCode)).toEqual(['RUNNING', 'RUNNING']);
  const terminated = await client.terminate({ session, user: 'alice' }, { wait: true });
  expect(terminated.completion?.status).toBe('succeeded');
  expect(terminated.completion?.processes.map((p) => p.statusCode).sort()).toEqual([
    'DEAD',
    'DEAD',
  ]);
});
