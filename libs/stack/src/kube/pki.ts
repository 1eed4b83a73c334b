import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stackPaths } from '../paths';

/** The local control plane's keys and credentials, all under `.kpm/data/kube/pki`. */
export interface KubePki {
  dir: string;
  caCert: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  /** Service-account token signing keypair (RSA: every apiserver version accepts it). */
  serviceAccountKey: string;
  serviceAccountPub: string;
  /** `--token-auth-file`: one admin in system:masters. */
  tokenFile: string;
  adminToken: string;
}

export const ADMIN_USER = 'kpm-admin';

/** Names the serving certificate is valid for: loopback plus the in-cluster service names. */
const SERVING_SANS = [
  'IP:127.0.0.1',
  'IP:10.96.0.1',
  'DNS:localhost',
  'DNS:kubernetes',
  'DNS:kubernetes.default',
  'DNS:kubernetes.default.svc',
  'DNS:kubernetes.default.svc.cluster.local',
];

export function pkiDir(): string {
  return join(stackPaths.data('kube'), 'pki');
}

type PkiFiles = Omit<KubePki, 'adminToken'>;

/** Creates whatever is missing (idempotent); existing keys are kept so clients stay valid. */
export function ensurePki(dir: string = pkiDir()): KubePki {
  const pki: PkiFiles = {
    dir,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    servingCert: join(dir, 'apiserver.crt'),
    servingKey: join(dir, 'apiserver.key'),
    serviceAccountKey: join(dir, 'sa.key'),
    serviceAccountPub: join(dir, 'sa.pub'),
    tokenFile: join(dir, 'tokens.csv'),
  };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(pki.caCert) || !existsSync(pki.caKey)) createCa(pki);
  if (!existsSync(pki.servingCert) || !existsSync(pki.servingKey)) createServingCert(pki);
  if (!existsSync(pki.serviceAccountKey) || !existsSync(pki.serviceAccountPub)) {
    createServiceAccountKeys(pki);
  }
  if (!existsSync(pki.tokenFile)) createAdminToken(pki);
  const adminToken = readFileSync(pki.tokenFile, 'utf8').split(',')[0].trim();
  return { ...pki, adminToken };
}

function createCa(pki: PkiFiles): void {
  // A new CA invalidates the old serving certificate.
  rmSync(pki.servingCert, { force: true });
  // prettier-ignore
  openssl(pki.dir, [
    'req', '-x509', '-new', '-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
    '-keyout', pki.caKey, '-out', pki.caCert, '-days', '3650', '-subj', '/CN=kpm-local-ca',
    '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
  ]);
}

function createServingCert(pki: PkiFiles): void {
  const csr = join(pki.dir, 'apiserver.csr');
  const ext = join(pki.dir, 'apiserver.ext');
  writeFileSync(
    ext,
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      `subjectAltName=${SERVING_SANS.join(',')}`,
    ].join('\n'),
  );
  // prettier-ignore
  openssl(pki.dir, [
    'req', '-new', '-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
    '-keyout', pki.servingKey, '-out', csr, '-subj', '/CN=kube-apiserver',
  ]);
  // prettier-ignore
  openssl(pki.dir, [
    'x509', '-req', '-in', csr, '-CA', pki.caCert, '-CAkey', pki.caKey, '-CAcreateserial',
    '-days', '3650', '-extfile', ext, '-out', pki.servingCert,
  ]);
  rmSync(csr, { force: true });
}

function createServiceAccountKeys(pki: PkiFiles): void {
  // prettier-ignore
  openssl(pki.dir, [
    'genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', pki.serviceAccountKey,
  ]);
  openssl(pki.dir, [
    'pkey',
    '-in',
    pki.serviceAccountKey,
    '-pubout',
    '-out',
    pki.serviceAccountPub,
  ]);
}

function createAdminToken(pki: PkiFiles): void {
  const token = randomBytes(24).toString('hex');
  // token,user,uid,"group1,group2"
  writeFileSync(pki.tokenFile, `${token},${ADMIN_USER},${ADMIN_USER},"system:masters"\n`, {
    mode: 0o600,
  });
}

function openssl(cwd: string, args: string[]): void {
  try {
    execFileSync(process.env.KPM_OPENSSL ?? 'openssl', args, {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`kpm: openssl ${args[0]} failed: ${stderr || String(error)}`);
  }
}
