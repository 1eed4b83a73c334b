/**
 * The three services under their ServiceAccounts' identities, as the deploy kit runs them in a
 * cluster: the kit's RBAC applied to the real local API server, a token minted for each
 * ServiceAccount (TokenRequest), each service started with a kubeconfig holding only its token.
 * Boot, logs, restart, kill, terminate and a watcher failover all pass, so every call the code
 * makes is one its Role allows (a missing verb fails the command with Forbidden).
 */
import { eventually } from '@kpm/common';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CoordinationV1Api,
  CoreV1Api,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import {
  adminKubeConfig,
  applyKitRbac,
  KIT_NAMESPACE,
  serviceAccountKubeconfig,
  SERVICE_ACCOUNTS,
} from '../support/deploy-kit';
import { ServiceProcess } from '../support/service-process';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';
import { WatcherProcess } from '../support/watcher-process';

jest.setTimeout(300_000);

/** The Lease the kit's Role lets the watcher update (deploy/base/kpm.yaml, rbac.yaml). */
const LEASE = 'kpm-watcher';
const suffix = randomBytes(3).toString('hex');
const sessions: string[] = [];
const session = (name: string) => {
  sessions.push(`rbac-${suffix}-${name}`);
  return sessions[sessions.length - 1];
};

const app = (name: string, treeId: string, annotations: Record<string, string> = {}) => ({
  name,
  treeId,
  executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
  annotations,
});

/** A drunc controller: the same process running drunc-controller (its role is by executable). */
const controller = (...args: Parameters<typeof app>) => ({
  ...app(...args),
  executableAndArguments: [{ exec: 'drunc-controller', args: ['--name', args[0]] }],
});

let admin: KubeConfig;
let dir: string;
let state: ServiceProcess;
let bootWorker: ServiceProcess;
let watchers: WatcherProcess[] = [];
let client: ProcessManagerClient;
let watcherEnv: Record<string, string>;

async function deleteLease(): Promise<void> {
  await admin
    .makeApiClient(CoordinationV1Api)
    .deleteNamespacedLease({ namespace: KIT_NAMESPACE, name: LEASE })
    .catch(() => undefined);
}

/**
 * Each service's environment: the local broker, a private prefix and label domain, its token.
 * (The drunc gateway calls no Kubernetes API: its ServiceAccount has no role and no token.)
 */
async function serviceEnvs(): Promise<
  Record<Exclude<keyof typeof SERVICE_ACCOUNTS, 'drunc-gateway'>, Record<string, string>>
> {
  const common = {
    KPM_KAFKA_BROKERS: stackEnv().brokers.join(','),
    KPM_TOPIC_PREFIX: uniqueTopicPrefix('rbac'),
    KPM_LABEL_DOMAIN: `rbac-${suffix}.test.daq`,
  };
  const kubeconfig = (account: string) =>
    serviceAccountKubeconfig(admin, account, join(dir, `${account}.kubeconfig`));
  // Short Lease timings so the failover is quick; the rest of the watcher's settings as shipped.
  const watcherConfig = join(dir, 'watcher.yaml');
  writeFileSync(
    watcherConfig,
    'watcher:\n  leaseDurationSeconds: 4\n  leaseRenewDeadlineSeconds: 3\n  leaseRetryPeriodSeconds: 1\n',
  );
  return {
    'boot-worker': {
      ...common,
      KUBECONFIG: await kubeconfig(SERVICE_ACCOUNTS['boot-worker']),
      KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
      KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
      KPM_INSTANCE: 'boot-worker-rbac',
    },
    watcher: {
      ...common,
      KUBECONFIG: await kubeconfig(SERVICE_ACCOUNTS.watcher),
      KPM_CONFIG: watcherConfig,
      KPM_LEASE_NAMESPACE: KIT_NAMESPACE,
      KPM_LEASE_NAME: LEASE,
    },
    state: {
      ...common,
      KUBECONFIG: await kubeconfig(SERVICE_ACCOUNTS.state),
      KPM_INSTANCE: 'state-rbac',
    },
  };
}

beforeAll(async () => {
  const adminPath = stackEnv().kubeconfig;
  admin = adminKubeConfig(adminPath);
  applyKitRbac(adminPath!);
  await deleteLease(); // a holder left by an earlier run would delay the first election
  dir = mkdtempSync(join(tmpdir(), 'kpm-rbac-'));
  const envs = await serviceEnvs();
  state = new ServiceProcess('state', envs.state);
  bootWorker = new ServiceProcess('boot-worker', envs['boot-worker']);
  watcherEnv = envs.watcher;
  watchers = ['watcher-a', 'watcher-b'].map((name) => new WatcherProcess(name, envs.watcher));
  await Promise.all([state.start(), bootWorker.start(), watchers[0].start()]);
  await watchers[0].leading();
  await watchers[1].start();
  // A call the RBAC forbids dead-letters its command, which then never completes: bounded waits
  // make that a failure naming the command well before the test's own timeout.
  const waitMs = 90_000;
  client = connectProcessManager({
    brokers: stackEnv().brokers,
    topicPrefix: envs.state.KPM_TOPIC_PREFIX,
    timeouts: { boot: waitMs, kill: waitMs, terminate: waitMs, restart: waitMs },
    user: 'alice', // the owner of most sessions here; bob's are killed as bob
  });
}, 240_000);

afterAll(async () => {
  await client?.close();
  await Promise.all([state, bootWorker, ...watchers].map((service) => service?.kill('SIGTERM')));
  await cleanUpSessions();
  await deleteLease();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

/** As the admin: release what a failed test may have left, then delete the namespaces. */
async function cleanUpSessions(): Promise<void> {
  const core = admin.makeApiClient(CoreV1Api);
  for (const namespace of sessions) {
    const pods = await core.listNamespacedPod({ namespace }).catch(() => undefined);
    await Promise.all(
      (pods?.items ?? []).map((pod) =>
        core
          .patchNamespacedPod(
            {
              namespace,
              name: pod.metadata!.name!,
              body: [{ op: 'remove', path: '/metadata/finalizers' }],
            },
            setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
          )
          .catch(() => undefined),
      ),
    );
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  }
}

async function returnCodes(name: string): Promise<Record<string, number | undefined>> {
  const table = await client.ps({ session: name });
  return Object.fromEntries(table.map((p) => [p.description.metadata.name, p.returnCode]));
}

function noForbidden(): void {
  for (const service of [bootWorker, ...watchers]) expect(service.logs()).not.toMatch(/Forbidden/);
}

it('boots, serves logs, restarts, kills and terminates a session', async () => {
  const name = session('life');
  const boot = await client.boot(
    {
      session: name,
      user: 'alice',
      processes: [
        controller('root', '0', { 'sim.kpm.daq/graceful': 'true' }),
        app('ru-01', '0.1.1'),
        app('ru-02', '0.1.2'),
      ],
    },
    { wait: true },
  );
  expect(boot.completion?.status).toBe('succeeded');
  expect(boot.completion?.processes.map((p) => p.statusCode)).toEqual([
    'RUNNING',
    'RUNNING',
    'RUNNING',
  ]);

  // kwok serves no logs: the API server let the request through to the simulated node's
  // address, where nobody listens — not its Forbidden.
  const [logs] = await client.logs({ session: name, names: ['^ru-01$'] }, { tailLines: 5 });
  expect(logs.lines).toEqual([
    expect.stringMatching(/^Could not retrieve logs of ru-01 .*connection refused/),
  ]);

  // Restart lists restart records (ConfigMaps) and hands the Service over to the new pod.
  const [before] = await client.ps({ session: name, names: ['^ru-01$'] });
  const restart = await client.restart({ uuids: [before.uuid] }, { wait: true });
  expect(restart.completion?.status).toBe('succeeded');
  const [after] = await client.ps({ uuids: [before.uuid] });
  expect(after).toMatchObject({ uuid: before.uuid, statusCode: 'RUNNING' });
  expect(after.podUid).not.toBe(before.podUid);

  // A kill completes only once the watcher recorded the termination and released its finalizer.
  const killed = await client.kill(
    { query: { session: name, names: ['^ru-02$'] } },
    { wait: true },
  );
  expect(killed.completion?.processes.map((p) => p.returnCode)).toEqual([143]);

  const terminated = await client.terminate({ session: name, user: 'alice' }, { wait: true });
  expect(terminated.completion?.status).toBe('succeeded');
  expect(await returnCodes(name)).toEqual({ root: 0, 'ru-01': 143, 'ru-02': 143 });
  noForbidden();
});

it('fails over to the standby watcher, which records terminations under its own token', async () => {
  const name = session('failover');
  const boot = await client.boot(
    { session: name, user: 'bob', processes: [app('ru-01', '0.1.1'), app('ru-02', '0.1.2')] },
    { wait: true },
  );
  expect(boot.completion?.status).toBe('succeeded');

  const [leader, standby] = watchers;
  expect(await leader.isLeader()).toBe(true);
  await leader.kill('SIGKILL');
  await standby.leading();
  const lease = await admin
    .makeApiClient(CoordinationV1Api)
    .readNamespacedLease({ namespace: KIT_NAMESPACE, name: LEASE });
  expect(lease.spec?.holderIdentity).toBe(standby.name);

  const killed = await client.kill(
    { query: { session: name, names: ['^ru-01$'] }, user: 'bob' },
    { wait: true },
  );
  expect(killed.completion?.processes.map((p) => p.returnCode)).toEqual([143]);
  const terminated = await client.terminate({ session: name, user: 'bob' }, { wait: true });
  expect(terminated.completion?.status).toBe('succeeded');
  expect(await returnCodes(name)).toEqual({ 'ru-01': 143, 'ru-02': 143 });
  noForbidden();
});

describe('a watcher that may not list pods', () => {
  // Its own ServiceAccount, allowed its own Lease only: it wins the election, its pod list is
  // refused, and after watchFailureDeadlineSeconds its liveness fails so Kubernetes restarts it.
  const blind = `rbac-blind-${suffix}`;
  let blindWatcher: ServiceProcess | undefined;

  afterAll(async () => {
    await blindWatcher?.kill('SIGTERM');
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    await rbac
      .deleteNamespacedRoleBinding({ namespace: KIT_NAMESPACE, name: blind })
      .catch(() => undefined);
    await rbac
      .deleteNamespacedRole({ namespace: KIT_NAMESPACE, name: blind })
      .catch(() => undefined);
    const core = admin.makeApiClient(CoreV1Api);
    await core
      .deleteNamespacedServiceAccount({ namespace: KIT_NAMESPACE, name: blind })
      .catch(() => undefined);
    await admin
      .makeApiClient(CoordinationV1Api)
      .deleteNamespacedLease({ namespace: KIT_NAMESPACE, name: blind })
      .catch(() => undefined);
  });

  async function leaseOnlyAccount(): Promise<void> {
    const namespace = KIT_NAMESPACE;
    await admin
      .makeApiClient(CoreV1Api)
      .createNamespacedServiceAccount({ namespace, body: { metadata: { name: blind } } });
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name: blind },
        rules: [
          {
            apiGroups: ['coordination.k8s.io'],
            resources: ['leases'],
            verbs: ['get', 'create', 'update'],
          },
        ],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: blind },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: blind },
        subjects: [{ kind: 'ServiceAccount', name: blind, namespace }],
      },
    });
  }

  it('fails its liveness once the watch has failed past the deadline', async () => {
    await leaseOnlyAccount();
    const config = join(dir, 'blind.yaml');
    writeFileSync(
      config,
      'watcher:\n  watchFailureDeadlineSeconds: 3\n  leaseDurationSeconds: 4\n  leaseRenewDeadlineSeconds: 3\n  leaseRetryPeriodSeconds: 1\n',
    );
    blindWatcher = new ServiceProcess('watcher', {
      ...watcherEnv,
      KUBECONFIG: await serviceAccountKubeconfig(admin, blind, join(dir, `${blind}.kubeconfig`)),
      KPM_CONFIG: config,
      KPM_LEASE_NAME: blind,
      KPM_INSTANCE: blind,
    });
    const url = await blindWatcher.start(120_000, '/healthz');
    type Health = { overdue?: Record<string, { detail?: string }> };
    const body = await eventually(
      async () => {
        const response = await fetch(`${url}/healthz`);
        return response.status === 503 ? ((await response.json()) as Health) : false;
      },
      { what: '/healthz failing', timeoutMs: 60_000, everyMs: 250 },
    );
    expect(body.overdue?.['pod-watch']?.detail).toMatch(/forbidden/i);
  });
});
