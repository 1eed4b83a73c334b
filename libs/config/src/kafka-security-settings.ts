/**
 * `kafka.ssl` and `kafka.sasl`: how kpm's Kafka clients authenticate (libs/kafka
 * kafka-security.ts makes the client). Secrets are named by file, never given as values, so a
 * printed or logged settings object holds no secret.
 */
import 'reflect-metadata';
import { IsBoolean, IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { ABSOLUTE_PATH, ABSOLUTE_PATH_MESSAGE } from './boot-worker-settings';

const FILE = { message: ABSOLUTE_PATH_MESSAGE };

/** An optional setting naming a file by absolute path (secrets are read from files). */
export function IsOptionalFile(): PropertyDecorator {
  return (target, key) => {
    IsOptional()(target, key);
    Matches(ABSOLUTE_PATH, FILE)(target, key);
  };
}

export class KafkaSslConfig {
  /** TLS with the system's CAs when no caFile is given; false turns TLS off. */
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  /** The CA bundle (PEM) the brokers' certificates are checked against. */
  @IsOptionalFile()
  caFile?: string;

  /** The client certificate (PEM), for brokers that authenticate clients by TLS. */
  @IsOptionalFile()
  certFile?: string;

  /** The client certificate's key (PEM). */
  @IsOptionalFile()
  keyFile?: string;

  /** A file holding the key's passphrase (never the passphrase itself). */
  @IsOptionalFile()
  keyPasswordFile?: string;

  /** The name the brokers' certificates must carry, when it is not the host connected to. */
  @IsOptional()
  @IsString()
  serverName?: string;
}

const SASL_MECHANISMS = ['scram-sha-256', 'scram-sha-512', 'oauthbearer'] as const;

export class KafkaSaslConfig {
  /** `scram-sha-256`, `scram-sha-512` or `oauthbearer`. */
  @IsIn(SASL_MECHANISMS, { message: `mechanism must be one of ${SASL_MECHANISMS.join(', ')}` })
  mechanism!: (typeof SASL_MECHANISMS)[number];

  /** The SCRAM user. */
  @IsOptional()
  @IsString()
  username?: string;

  /** A file holding the SCRAM password (never the password itself). */
  @IsOptionalFile()
  passwordFile?: string;

  /** A file holding the OAUTHBEARER token, read again at every login. */
  @IsOptionalFile()
  tokenFile?: string;
}

const flag = (raw: string) => ['1', 'true', 'yes'].includes(raw.trim().toLowerCase());

export const KAFKA_SECURITY_ENV: ReadonlyArray<[string, string, (raw: string) => unknown]> = [
  ['KPM_KAFKA_SSL', 'kafka.ssl.enabled', flag],
  ['KPM_KAFKA_SSL_CA_FILE', 'kafka.ssl.caFile', String],
  ['KPM_KAFKA_SSL_CERT_FILE', 'kafka.ssl.certFile', String],
  ['KPM_KAFKA_SSL_KEY_FILE', 'kafka.ssl.keyFile', String],
  ['KPM_KAFKA_SSL_KEY_PASSWORD_FILE', 'kafka.ssl.keyPasswordFile', String],
  ['KPM_KAFKA_SSL_SERVER_NAME', 'kafka.ssl.serverName', String],
  ['KPM_KAFKA_SASL_MECHANISM', 'kafka.sasl.mechanism', (raw) => raw.trim().toLowerCase()],
  ['KPM_KAFKA_SASL_USERNAME', 'kafka.sasl.username', String],
  ['KPM_KAFKA_SASL_PASSWORD_FILE', 'kafka.sasl.passwordFile', String],
  ['KPM_KAFKA_SASL_TOKEN_FILE', 'kafka.sasl.tokenFile', String],
];

/** Variables that would put a secret in the environment: refused, naming the file variable. */
const SECRET_VALUES: ReadonlyArray<[string, string]> = [
  ['KPM_KAFKA_SASL_PASSWORD', 'KPM_KAFKA_SASL_PASSWORD_FILE'],
  ['KPM_KAFKA_SSL_KEY_PASSWORD', 'KPM_KAFKA_SSL_KEY_PASSWORD_FILE'],
  ['KPM_KAFKA_SASL_TOKEN', 'KPM_KAFKA_SASL_TOKEN_FILE'],
];

export function secretValueProblems(env: Record<string, string | undefined>): string[] {
  return SECRET_VALUES.filter(([name]) => env[name] !== undefined).map(
    ([name, file]) => `${name}: kpm reads secrets from files only; set ${file} instead`,
  );
}
