/**
 * The secured local broker (`KPM_STACK_SECURE=1`): a separate KRaft node beside the plaintext
 * one, on its own ports (`KPM_KAFKA_SECURE_PORT`, default 19192, controller port + 1) and data
 * directory (`.kpm/data/kafka-secure`), whose only client listener is SASL_SSL.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KpmRole } from '@kpm/kafka';
import { stackPaths } from '../paths';
import { kafkaStackSettings, type KafkaStackSettings } from './kafka-settings';
import { renderedTemplate } from './kafka-storage';

export const DEFAULT_SECURE_KAFKA_PORT = 19192;

/** The SCRAM principals of the secured stack: the broker itself (super user), one per role. */
export const SECURE_PRINCIPALS: ReadonlyArray<{ user: string; role?: KpmRole }> = [
  { user: 'kpm-broker' },
  { user: 'kpm-boot-worker', role: 'boot-worker' },
  { user: 'kpm-watcher', role: 'watcher' },
  { user: 'kpm-state', role: 'state' },
  { user: 'kpm-drunc-gateway', role: 'drunc-gateway' },
  { user: 'kpm-operator', role: 'operator' },
];

export const SECURE_MECHANISM = 'SCRAM-SHA-512';

export interface SecureKafkaSettings extends KafkaStackSettings {
  /** Passwords (one file per principal), the CA and the broker's keystore. */
  secretsDir: string;
}

export function secureKafkaSettings(env: NodeJS.ProcessEnv = process.env): SecureKafkaSettings {
  const port = Number(env.KPM_KAFKA_SECURE_PORT || DEFAULT_SECURE_KAFKA_PORT);
  const base = kafkaStackSettings({
    ...env,
    KPM_KAFKA_PORT: String(port),
    KPM_KAFKA_CONTROLLER_PORT: env.KPM_KAFKA_SECURE_CONTROLLER_PORT ?? String(port + 1),
  });
  const dataDir = stackPaths.data('kafka-secure');
  return {
    ...base,
    dataDir,
    propertiesFile: join(dataDir, 'server.properties'),
    logDir: join(dataDir, 'log'),
    secretsDir: join(dataDir, 'secrets'),
  };
}

/** The file holding `user`'s password; made (random, mode 600) on first use. */
export function passwordFile(settings: SecureKafkaSettings, user: string): string {
  const file = join(settings.secretsDir, `${user}.password`);
  if (!existsSync(file)) {
    mkdirSync(settings.secretsDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, `${randomBytes(18).toString('base64url')}\n`, { mode: 0o600 });
  }
  return file;
}

export function password(settings: SecureKafkaSettings, user: string): string {
  return readFileSync(passwordFile(settings, user), 'utf8').trim();
}

/** The client variables of `user` on this broker, as `.kpm/stack.env` and the services take them. */
export function secureClientEnv(
  settings: SecureKafkaSettings,
  caFile: string,
  user: string,
): Record<string, string> {
  return {
    KPM_KAFKA_BROKERS: `${settings.host}:${settings.port}`,
    KPM_KAFKA_SSL_CA_FILE: caFile,
    KPM_KAFKA_SASL_MECHANISM: SECURE_MECHANISM.toLowerCase(),
    KPM_KAFKA_SASL_USERNAME: user,
    KPM_KAFKA_SASL_PASSWORD_FILE: passwordFile(settings, user),
  };
}

/** `kpm services up` on the secured stack: each service as its own principal. */
export function serviceKafkaIdentity(
  service: string,
  stackEnv: Record<string, string>,
): Record<string, string> {
  const dir = stackEnv.KPM_KAFKA_SECRETS_DIR;
  if (!dir || !stackEnv.KPM_KAFKA_SASL_USERNAME) return {};
  return {
    KPM_KAFKA_SASL_USERNAME: `kpm-${service}`,
    KPM_KAFKA_SASL_PASSWORD_FILE: join(dir, `kpm-${service}.password`),
  };
}

/** server.properties of the secured broker: SASL_SSL for clients, mutual TLS for the controller. */
export function renderSecureProperties(
  settings: SecureKafkaSettings,
  keystoreFile: string,
  caFile: string,
): string {
  const base = renderedTemplate(settings)
    .split('\n')
    .filter(
      (line) =>
        !/^(listeners|advertised\.listeners|inter\.broker\.listener\.name|listener\.security\.protocol\.map)=/.test(
          line,
        ),
    )
    .join('\n');
  const broker = password(settings, 'kpm-broker');
  const secure = [
    `listeners=SASL_SSL://127.0.0.1:${settings.port},CONTROLLER://127.0.0.1:${settings.controllerPort}`,
    `advertised.listeners=SASL_SSL://127.0.0.1:${settings.port}`,
    'inter.broker.listener.name=SASL_SSL',
    'listener.security.protocol.map=SASL_SSL:SASL_SSL,CONTROLLER:SSL',
    'sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512',
    `sasl.mechanism.inter.broker.protocol=${SECURE_MECHANISM}`,
    // Each enabled mechanism needs a login module; the broker logs in to itself with SCRAM-SHA-512.
    ...['scram-sha-256', 'scram-sha-512'].map(
      (mechanism) =>
        `listener.name.sasl_ssl.${mechanism}.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="kpm-broker" password="${broker}";`,
    ),
    'ssl.keystore.type=PEM',
    `ssl.keystore.location=${keystoreFile}`,
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${caFile}`,
    'listener.name.controller.ssl.client.auth=required',
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    // The broker as itself: over SCRAM on SASL_SSL, by its certificate on the controller listener.
    'super.users=User:kpm-broker;User:CN=kpm-broker',
    'allow.everyone.if.no.acl.found=false',
  ];
  mkdirSync(settings.dataDir, { recursive: true });
  writeFileSync(settings.propertiesFile, `${base}\n${secure.join('\n')}\n`, { mode: 0o600 });
  return settings.propertiesFile;
}
