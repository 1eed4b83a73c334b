import { inspect } from 'node:util';
import { loadSettings } from './load-settings';
import { yamlFile } from './yaml-file.spec-helper';

describe('kafka.ssl and kafka.sasl', () => {
  it('are absent by default: plaintext, no authentication', () => {
    const { kafka } = loadSettings('state', {});
    expect(kafka.ssl).toBeUndefined();
    expect(kafka.sasl).toBeUndefined();
  });

  it('come from KPM_KAFKA_SSL_* and KPM_KAFKA_SASL_* variables', () => {
    const { kafka } = loadSettings('boot-worker', {
      KPM_KAFKA_SSL: 'true',
      KPM_KAFKA_SSL_CA_FILE: '/etc/kpm/kafka/ca.pem',
      KPM_KAFKA_SSL_CERT_FILE: '/etc/kpm/kafka/tls.crt',
      KPM_KAFKA_SSL_KEY_FILE: '/etc/kpm/kafka/tls.key',
      KPM_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      KPM_KAFKA_SASL_USERNAME: 'kpm-boot-worker',
      KPM_KAFKA_SASL_PASSWORD_FILE: '/etc/kpm/kafka/password',
    });
    expect({ ...kafka.ssl }).toEqual({
      enabled: true,
      caFile: '/etc/kpm/kafka/ca.pem',
      certFile: '/etc/kpm/kafka/tls.crt',
      keyFile: '/etc/kpm/kafka/tls.key',
    });
    expect({ ...kafka.sasl }).toEqual({
      mechanism: 'scram-sha-512',
      username: 'kpm-boot-worker',
      passwordFile: '/etc/kpm/kafka/password',
    });
  });

  it('come from the YAML file', () => {
    const file = yamlFile(
      'kafka:\n  ssl: { caFile: /ca.pem }\n  sasl: { mechanism: oauthbearer, tokenFile: /var/run/secrets/token }\n',
    );
    const { kafka } = loadSettings('watcher', { KPM_CONFIG: file });
    expect(kafka.ssl?.caFile).toBe('/ca.pem');
    expect(kafka.sasl).toMatchObject({
      mechanism: 'oauthbearer',
      tokenFile: '/var/run/secrets/token',
    });
  });

  it.each<[string, Record<string, string>, RegExp]>([
    [
      'an unknown mechanism',
      { KPM_KAFKA_SASL_MECHANISM: 'gssapi' },
      /kafka\.sasl\.mechanism: mechanism must be one of scram-sha-256/,
    ],
    [
      'a relative CA file',
      { KPM_KAFKA_SSL_CA_FILE: 'ca.pem' },
      /kafka\.ssl\.caFile: caFile must be an absolute path/,
    ],
    [
      'a password in a variable',
      { KPM_KAFKA_SASL_PASSWORD: 'hunter2' },
      /KPM_KAFKA_SASL_PASSWORD: kpm reads secrets from files only; set KPM_KAFKA_SASL_PASSWORD_FILE/,
    ],
  ])('refuses %s, naming it', (_, env, message) => {
    expect(() => loadSettings('state', env)).toThrow(message);
  });

  it('never echoes a secret given in a variable, and takes the next good settings', () => {
    const error = (() => {
      try {
        loadSettings('state', { KPM_KAFKA_SASL_PASSWORD: 'hunter2' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).not.toContain('hunter2');
    const { kafka } = loadSettings('state', {
      KPM_KAFKA_SASL_MECHANISM: 'scram-sha-256',
      KPM_KAFKA_SASL_USERNAME: 'op',
      KPM_KAFKA_SASL_PASSWORD_FILE: '/run/secrets/op',
    });
    // The printed settings name the file, which is all they hold.
    expect(inspect(kafka, { depth: 5 })).toContain('/run/secrets/op');
  });
});
