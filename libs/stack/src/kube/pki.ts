import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  /** The API server's client certificate towards kubelets (logs, exec), `--kubelet-client-*`. */
  kubeletClientCert: string;
  kubeletClientKey: string;
}

/** The user the API server is to a kubelet; bound to `system:kubelet-api-admin` by the node part. */
export const KUBELET_CLIENT_USER = 'kpm-apiserver-kubelet-client';

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
    kubeletClientCert: join(dir, 'apiserver-kubelet-client.crt'),
    kubeletClientKey: join(dir, 'apiserver-kubelet-client.key'),
  };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(pki.caCert) || !existsSync(pki.caKey)) createCa(pki);
  if (!existsSync(pki.servingCert) || !existsSync(pki.servingKey)) createServingCert(pki);
  if (!existsSync(pki.serviceAccountKey) || !existsSync(pki.serviceAccountPub)) {
    createServiceAccountKeys(pki);
  }
  if (!existsSync(pki.tokenFile)) createAdminToken(pki);
  if (!existsSync(pki.kubeletClientCert) || !existsSync(pki.kubeletClientKey)) {
    issueCertificate(pki, {
      cert: pki.kubeletClientCert,
      key: pki.kubeletClientKey,
      subject: `/CN=${KUBELET_CLIENT_USER}`,
      usage: 'clientAuth',
    });
  }
  const adminToken = readFileSync(pki.tokenFile, 'utf8').split(',')[0].trim();
  return { ...pki, adminToken };
}

function createCa(pki: PkiFiles): void {
  // A new CA invalidates every certificate it signed (the node's too): issue them again.
  for (const file of readdirSync(pki.dir)) {
    if (/\.(crt|key)$/.test(file) && !file.startsWith('ca.')) rmSync(join(pki.dir, file));
  }
  // prettier-ignore
  openssl(pki.dir, [
    'req', '-x509', '-new', '-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
    '-keyout', pki.caKey, '-out', pki.caCert, '-days', '3650', '-subj', '/CN=kpm-local-ca',
    '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
  ]);
}

function createServingCert(pki: PkiFiles): void {
  issueCertificate(pki, {
    cert: pki.servingCert,
    key: pki.servingKey,
    subject: '/CN=kube-apiserver',
    usage: 'serverAuth',
    sans: SERVING_SANS,
  });
}

/** A certificate and key the CA signs. */
export interface IssuedCertificate {
  cert: string;
  key: string;
  /** OpenSSL's form, e.g. `/O=system:nodes/CN=system:node:kpm-real-1`. */
  subject: string;
  usage: 'serverAuth' | 'clientAuth';
  /** `IP:…`/`DNS:…` names, for a server certificate. */
  sans?: readonly string[];
}

/** Signs a new key's certificate with the stack's CA (an EC P-256 key, ten years). */
export function issueCertificate(
  pki: Pick<KubePki, 'dir' | 'caCert' | 'caKey'>,
  issued: IssuedCertificate,
): void {
  const base = issued.cert.replace(/\.crt$/, '');
  const csr = `${base}.csr`;
  const ext = `${base}.ext`;
  writeFileSync(
    ext,
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      `extendedKeyUsage=${issued.usage}`,
      ...(issued.sans?.length ? [`subjectAltName=${issued.sans.join(',')}`] : []),
    ].join('\n'),
  );
  try {
    // prettier-ignore
    openssl(pki.dir, [
      'req', '-new', '-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
      '-keyout', issued.key, '-out', csr, '-subj', issued.subject,
    ]);
    // prettier-ignore
    openssl(pki.dir, [
      'x509', '-req', '-in', csr, '-CA', pki.caCert, '-CAkey', pki.caKey, '-CAcreateserial',
      '-days', '3650', '-extfile', ext, '-out', issued.cert,
    ]);
  } finally {
    rmSync(csr, { force: true });
    rmSync(ext, { force: true });
  }
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

/** Runs `openssl` (KPM_OPENSSL overrides) in `cwd`; a failure carries its stderr. */
export function openssl(cwd: string, args: string[]): void {
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
