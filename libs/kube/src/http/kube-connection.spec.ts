import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { bearerFromFile, loadKubeConnection, type KubeConnection } from './kube-connection';

const dir = () => mkdtempSync(join(tmpdir(), 'kpm-conn-'));

function kubeconfig(
  where: string,
  cluster: Record<string, unknown>,
  user: Record<string, unknown>,
): string {
  const file = join(where, 'config');
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'other', cluster: { server: 'https://wrong:1' } },
        { name: 'c', cluster },
      ],
      users: [{ name: 'u', user }],
      contexts: [
        { name: 'other', context: { cluster: 'other', user: 'u' } },
        { name: 'x', context: { cluster: 'c', user: 'u' } },
      ],
      'current-context': 'x',
    }),
  );
  return file;
}

const connection = (value: ReturnType<typeof loadKubeConnection>): KubeConnection => {
  if ('delegate' in value) throw new Error(`delegated: ${value.why}`);
  return value;
};

describe('loadKubeConnection', () => {
  it("reads the current context's cluster and user: CA data, a token, the server without its slash", () => {
    const file = kubeconfig(
      dir(),
      {
        server: 'https://127.0.0.1:16443/',
        'certificate-authority-data': Buffer.from('CA').toString('base64'),
      },
      { token: 'tok' },
    );
    const c = connection(loadKubeConnection(file));
    expect(c.server).toBe('https://127.0.0.1:16443');
    expect(c.tls).toMatchObject({ ca: Buffer.from('CA'), rejectUnauthorized: true });
    expect(c.authorization()).toBe('Bearer tok');
  });

  it('reads certificate and key files relative to the kubeconfig, and skips verification only when told', () => {
    const where = dir();
    writeFileSync(join(where, 'client.crt'), 'CERT');
    mkdirSync(join(where, 'keys'));
    writeFileSync(join(where, 'keys', 'client.key'), 'KEY');
    const file = kubeconfig(
      where,
      {
        server: 'https://api:6443',
        'insecure-skip-tls-verify': true,
        'tls-server-name': 'kubernetes',
      },
      { 'client-certificate': 'client.crt', 'client-key': 'keys/client.key' },
    );
    const c = connection(loadKubeConnection(file));
    expect(c.tls).toEqual({
      ca: undefined,
      cert: Buffer.from('CERT'),
      key: Buffer.from('KEY'),
      rejectUnauthorized: false,
      servername: 'kubernetes',
    });
    expect(c.authorization()).toBeUndefined();
  });

  it.each([
    ['an exec plugin', { exec: { command: 'aws' } }, {}],
    ['an auth provider', { 'auth-provider': { name: 'oidc' } }, {}],
    ['basic auth', { username: 'a', password: 'b' }, {}],
    ['impersonation', { token: 't', as: 'someone' }, {}],
    ['a proxy', { token: 't' }, { 'proxy-url': 'http://proxy:3128' }],
  ])('hands a kubeconfig with %s to client-node', (_, user, cluster) => {
    const file = kubeconfig(dir(), { server: 'https://api:6443', ...cluster }, user);
    expect(loadKubeConnection(file)).toMatchObject({ delegate: true, path: file });
  });

  it('uses $KUBECONFIG, else ~/.kube/config, else the service account, else localhost:8080', () => {
    const home = dir();
    const serviceAccount = dir();
    const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' };
    const none = { env: {}, home, serviceAccount };
    expect(connection(loadKubeConnection(undefined, none)).server).toBe('http://localhost:8080');
    writeFileSync(join(serviceAccount, 'token'), 'sa-token\n');
    writeFileSync(join(serviceAccount, 'ca.crt'), 'SA-CA');
    const pod = connection(loadKubeConnection(undefined, { env, home, serviceAccount }));
    expect(pod.server).toBe('https://[fd00::1]:443');
    expect(pod.tls.ca).toEqual(Buffer.from('SA-CA'));
    expect(pod.authorization()).toBe('Bearer sa-token');
    mkdirSync(join(home, '.kube'));
    kubeconfig(join(home, '.kube'), { server: 'https://home:1' }, {});
    expect(connection(loadKubeConnection(undefined, { env, home, serviceAccount })).server).toBe(
      'https://home:1',
    );
    const explicit = kubeconfig(dir(), { server: 'https://env:2' }, {});
    const withEnv = { env: { ...env, KUBECONFIG: explicit }, home, serviceAccount };
    expect(connection(loadKubeConnection(undefined, withEnv)).server).toBe('https://env:2');
  });
});

describe('bearerFromFile', () => {
  it('reads a rotated token again once a minute has passed', () => {
    const file = join(dir(), 'token');
    writeFileSync(file, 'first');
    let now = 1_000_000;
    const bearer = bearerFromFile(file, () => now);
    expect(bearer()).toBe('Bearer first');
    writeFileSync(file, 'second');
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    now += 59_000;
    expect(bearer()).toBe('Bearer first');
    now += 1_000;
    expect(bearer()).toBe('Bearer second');
  });
});
