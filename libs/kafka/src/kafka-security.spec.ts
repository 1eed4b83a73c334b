import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import type { LogEvent } from '@kpm/common';
import { createKafkaClient } from './kafka-client';
import {
  describeKafkaSecurity,
  kafkaJsSecurity,
  KafkaSecurityError,
  type KafkaSecuritySettings,
} from './kafka-security';

const SECRET = 's3cr3t-Pa55word';
const dir = mkdtempSync(join(tmpdir(), 'kpm-kafka-security-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const password = file('password', `${SECRET}\n`);
const ca = file('ca.pem', '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n');
const cert = file('client.pem', 'CERT');
const key = file('client.key', 'KEY');
const token = file('token', 'eyJ.token.1\n');

describe('kafkaJsSecurity', () => {
  it.each<[string, KafkaSecuritySettings, object]>([
    ['nothing: plaintext', {}, { ssl: undefined, sasl: undefined }],
    ['TLS with the system CAs', { ssl: { enabled: true } }, { ssl: true }],
    ['TLS turned off', { ssl: { enabled: false } }, { ssl: undefined }],
    [
      'TLS with a CA and a client certificate',
      { ssl: { caFile: ca, certFile: cert, keyFile: key, serverName: 'kafka.daq' } },
      {
        ssl: {
          rejectUnauthorized: true,
          ca: [expect.stringContaining('BEGIN CERTIFICATE')],
          cert: 'CERT',
          key: 'KEY',
          servername: 'kafka.daq',
        },
      },
    ],
    [
      'SCRAM-SHA-512, the password from its file without the newline',
      { sasl: { mechanism: 'scram-sha-512', username: 'kpm-boot-worker', passwordFile: password } },
      { sasl: { mechanism: 'scram-sha-512', username: 'kpm-boot-worker', password: SECRET } },
    ],
    [
      'SCRAM-SHA-256',
      { sasl: { mechanism: 'scram-sha-256', username: 'op', passwordFile: password } },
      { sasl: { mechanism: 'scram-sha-256', username: 'op', password: SECRET } },
    ],
  ])('%s', (_, settings, expected) => {
    expect(kafkaJsSecurity(settings)).toMatchObject(expected);
  });

  it.each<[string, KafkaSecuritySettings, string]>([
    [
      'SCRAM without a password file',
      { sasl: { mechanism: 'scram-sha-256', username: 'op' } },
      'kafka.sasl: scram-sha-256 needs username and passwordFile',
    ],
    [
      'a password file that is not there',
      { sasl: { mechanism: 'scram-sha-512', username: 'op', passwordFile: join(dir, 'nope') } },
      `kafka.sasl.passwordFile: cannot read ${join(dir, 'nope')} (ENOENT)`,
    ],
    [
      'an empty password file',
      { sasl: { mechanism: 'scram-sha-512', username: 'op', passwordFile: file('empty', '\n') } },
      'kafka.sasl.passwordFile:',
    ],
    [
      'a certificate without its key',
      { ssl: { certFile: cert } },
      'kafka.ssl: certFile and keyFile go together',
    ],
    [
      'OAUTHBEARER without a provider or token file',
      { sasl: { mechanism: 'oauthbearer' } },
      'kafka.sasl: oauthbearer needs a token provider',
    ],
  ])('refuses %s, naming the setting', (_, settings, message) => {
    expect(() => kafkaJsSecurity(settings)).toThrow(KafkaSecurityError);
    expect(() => kafkaJsSecurity(settings)).toThrow(message);
  });

  it('OAUTHBEARER asks the provider hook, or reads the token file on every authentication', async () => {
    const hook = () => Promise.resolve({ value: 'from-hook' });
    const hooked = kafkaJsSecurity({ sasl: { mechanism: 'oauthbearer' } }, hook).sasl;
    expect(hooked).toEqual({ mechanism: 'oauthbearer', oauthBearerProvider: hook });
    const fromFile = kafkaJsSecurity({ sasl: { mechanism: 'oauthbearer', tokenFile: token } })
      .sasl as { oauthBearerProvider: () => Promise<{ value: string }> };
    expect(await fromFile.oauthBearerProvider()).toEqual({ value: 'eyJ.token.1' });
    writeFileSync(token, 'eyJ.token.2\n'); // rotated, as a projected service-account token is
    expect(await fromFile.oauthBearerProvider()).toEqual({ value: 'eyJ.token.2' });
  });
});

describe('describeKafkaSecurity: what logs may say', () => {
  it.each<[string, KafkaSecuritySettings, string]>([
    ['plaintext', {}, 'PLAINTEXT'],
    ['TLS', { ssl: { caFile: ca } }, `SSL, CA ${ca}`],
    [
      'SCRAM over TLS',
      {
        ssl: { caFile: ca },
        sasl: { mechanism: 'scram-sha-512', username: 'op', passwordFile: password },
      },
      `SASL_SSL, SCRAM-SHA-512 as op (password from ${password}), CA ${ca}`,
    ],
    [
      'OAUTHBEARER',
      { ssl: { enabled: true }, sasl: { mechanism: 'oauthbearer', tokenFile: token } },
      `SASL_SSL, OAUTHBEARER (token from ${token})`,
    ],
  ])('%s', (_, settings, text) => {
    expect(describeKafkaSecurity(settings)).toBe(text);
  });
});

describe('a secured client never logs its secret', () => {
  it('kafkajs errors and logs of a failed connection hold no password', async () => {
    const lines: string[] = [];
    const sink = {
      error: (l: LogEvent) => lines.push(JSON.stringify(l)),
      warn: (l: LogEvent) => lines.push(JSON.stringify(l)),
      log: (l: LogEvent) => lines.push(JSON.stringify(l)),
    };
    const settings: KafkaSecuritySettings = {
      sasl: { mechanism: 'scram-sha-512', username: 'op', passwordFile: password },
    };
    const kafka = createKafkaClient(
      { brokers: ['127.0.0.1:1'], clientId: 'redaction-test', ...settings },
      { logs: sink, retries: 0, maxRetryTimeMs: 100 },
    );
    const admin = kafka.admin();
    const error = await admin.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const said = [...lines, inspect(error, { depth: 5 }), inspect(settings, { depth: 5 })].join(
      '\n',
    );
    expect(lines.length).toBeGreaterThan(0);
    expect(said).not.toContain(SECRET);
  });
});
