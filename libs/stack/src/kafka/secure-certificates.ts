/**
 * The secured local broker's own CA and certificate, made once with openssl: a CA (kept only in
 * the stack's secrets directory), and the broker's key and certificate for 127.0.0.1/localhost,
 * which also authenticates the broker to its own KRaft controller listener (mutual TLS).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from '../run-command';

export interface BrokerCertificates {
  /** PEM of the CA: what clients trust (KPM_KAFKA_SSL_CA_FILE). */
  caFile: string;
  /** PEM holding the broker's private key and certificate (Kafka's PEM keystore). */
  keystoreFile: string;
}

const OPENSSL_HINT = 'install openssl, e.g. apt-get install openssl';

export async function ensureBrokerCertificates(dir: string): Promise<BrokerCertificates> {
  const caFile = join(dir, 'ca.pem');
  const keystoreFile = join(dir, 'broker-keystore.pem');
  if (existsSync(caFile) && existsSync(keystoreFile)) return { caFile, keystoreFile };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = (name: string) => join(dir, name);
  const openssl = (args: string[]) =>
    runCommand('openssl', args, { cwd: dir, timeoutMs: 60_000, installHint: OPENSSL_HINT });
  await openssl([
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '3650'],
    ...['-keyout', file('ca.key'), '-out', caFile, '-subj', '/CN=kpm local stack CA'],
  ]);
  await openssl([
    ...['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('broker.key')],
    ...['-out', file('broker.csr'), '-subj', '/CN=kpm-broker'],
  ]);
  writeFileSync(file('broker.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  await openssl([
    ...['x509', '-req', '-in', file('broker.csr'), '-CA', caFile, '-CAkey', file('ca.key')],
    ...['-CAcreateserial', '-days', '825', '-out', file('broker.pem')],
    ...['-extfile', file('broker.ext')],
  ]);
  const key = readFileSync(file('broker.key'), 'utf8');
  const chain = readFileSync(file('broker.pem'), 'utf8') + readFileSync(caFile, 'utf8');
  writeFileSync(keystoreFile, key + chain, { mode: 0o600 });
  return { caFile, keystoreFile };
}
