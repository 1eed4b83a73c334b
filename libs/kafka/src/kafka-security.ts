/**
 * TLS and SASL for every Kafka client kpm makes (services, CLI, @kpm/client). Settings name
 * files, never secrets: the CA, client certificate and key, the key's passphrase, the SASL
 * password and the OAUTHBEARER token are read from files when a client is made (the token on
 * every authentication, so a rotated Kubernetes token file is picked up). Nothing read from a
 * file is ever part of a message: `describeKafkaSecurity` is what logs may say.
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';

/** TLS to the brokers. `enabled` alone trusts the system's CAs. */
export interface KafkaSslSettings {
  enabled?: boolean;
  /** PEM file of the CA(s) that signed the brokers' certificates. */
  caFile?: string;
  /** PEM files of a client certificate and its key, for brokers that ask for one (mTLS). */
  certFile?: string;
  keyFile?: string;
  /** File holding the key's passphrase, when the key is encrypted. */
  keyPasswordFile?: string;
  /** Host name to check the brokers' certificates against, when it differs from the address. */
  serverName?: string;
}

type KafkaSaslMechanism = 'scram-sha-256' | 'scram-sha-512' | 'oauthbearer';

export interface KafkaSaslSettings {
  mechanism: KafkaSaslMechanism;
  /** SCRAM: the principal's name and the file holding its password. */
  username?: string;
  passwordFile?: string;
  /** OAUTHBEARER without a provider hook: a file holding the current token, read each time. */
  tokenFile?: string;
}

/** The OAUTHBEARER hook: called on every authentication, returns a current token. */
export type OAuthBearerTokenProvider = () => Promise<{ value: string }>;

export interface KafkaSecuritySettings {
  ssl?: KafkaSslSettings;
  sasl?: KafkaSaslSettings;
}

/** A secret or certificate file that cannot be used: names the setting and the path only. */
export class KafkaSecurityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KafkaSecurityError';
  }
}

type ReadFile = (path: string) => string;
const readText: ReadFile = (path) => readFileSync(path, 'utf8');

/** The kafkajs `ssl` and `sasl` options for these settings. */
export function kafkaJsSecurity(
  settings: KafkaSecuritySettings,
  tokenProvider?: OAuthBearerTokenProvider,
  read: ReadFile = readText,
): { ssl?: ConnectionOptions | true; sasl?: SASLOptions } {
  return {
    ssl: settings.ssl ? tlsOptions(settings.ssl, read) : undefined,
    sasl: settings.sasl ? saslOptions(settings.sasl, tokenProvider, read) : undefined,
  };
}

function tlsOptions(ssl: KafkaSslSettings, read: ReadFile): ConnectionOptions | true | undefined {
  const given = ssl.caFile || ssl.certFile || ssl.keyFile || ssl.serverName;
  if (!given) return ssl.enabled === false ? undefined : true;
  if (!ssl.certFile !== !ssl.keyFile) {
    throw new KafkaSecurityError('kafka.ssl: certFile and keyFile go together (mutual TLS)');
  }
  return {
    rejectUnauthorized: true,
    ca: ssl.caFile ? [fileSetting('kafka.ssl.caFile', ssl.caFile, read)] : undefined,
    cert: ssl.certFile ? fileSetting('kafka.ssl.certFile', ssl.certFile, read) : undefined,
    key: ssl.keyFile ? fileSetting('kafka.ssl.keyFile', ssl.keyFile, read) : undefined,
    passphrase: ssl.keyPasswordFile
      ? secretFile('kafka.ssl.keyPasswordFile', ssl.keyPasswordFile, read)
      : undefined,
    servername: ssl.serverName,
  };
}

function saslOptions(
  sasl: KafkaSaslSettings,
  tokenProvider: OAuthBearerTokenProvider | undefined,
  read: ReadFile,
): SASLOptions {
  if (sasl.mechanism === 'oauthbearer') {
    const provider = tokenProvider ?? (sasl.tokenFile && tokenFileProvider(sasl.tokenFile, read));
    if (!provider) {
      throw new KafkaSecurityError(
        'kafka.sasl: oauthbearer needs a token provider (the client option) or tokenFile',
      );
    }
    return { mechanism: 'oauthbearer', oauthBearerProvider: provider };
  }
  if (!sasl.username || !sasl.passwordFile) {
    throw new KafkaSecurityError(
      `kafka.sasl: ${sasl.mechanism} needs username and passwordFile (KPM_KAFKA_SASL_USERNAME, KPM_KAFKA_SASL_PASSWORD_FILE)`,
    );
  }
  const password = secretFile('kafka.sasl.passwordFile', sasl.passwordFile, read);
  return { mechanism: sasl.mechanism, username: sasl.username, password };
}

function tokenFileProvider(path: string, read: ReadFile): OAuthBearerTokenProvider {
  return () => Promise.resolve({ value: secretFile('kafka.sasl.tokenFile', path, read) });
}

/** A secret's file, trimmed of the newline editors and `kubectl create secret` leave. */
function secretFile(setting: string, path: string, read: ReadFile): string {
  const value = fileSetting(setting, path, read).replace(/\r?\n$/, '');
  if (value === '') throw new KafkaSecurityError(`${setting}: ${path} is empty`);
  return value;
}

function fileSetting(setting: string, path: string, read: ReadFile): string {
  try {
    return read(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new KafkaSecurityError(`${setting}: cannot read ${path} (${code})`);
  }
}

/** What logs may say about a client's security: the protocol, mechanism, user and file names. */
export function describeKafkaSecurity(settings: KafkaSecuritySettings): string {
  const { ssl, sasl } = settings;
  const tls = ssl && ssl.enabled !== false;
  const protocol = `${sasl ? 'SASL_' : ''}${tls ? 'SSL' : 'PLAINTEXT'}`;
  const parts = [protocol];
  if (sasl?.mechanism === 'oauthbearer') {
    parts.push(
      `OAUTHBEARER (${sasl.tokenFile ? `token from ${sasl.tokenFile}` : 'token provider'})`,
    );
  } else if (sasl) {
    parts.push(
      `${sasl.mechanism.toUpperCase()} as ${sasl.username} (password from ${sasl.passwordFile})`,
    );
  }
  if (tls && ssl?.caFile) parts.push(`CA ${ssl.caFile}`);
  if (tls && ssl?.certFile) parts.push(`client certificate ${ssl.certFile}`);
  return parts.join(', ');
}
