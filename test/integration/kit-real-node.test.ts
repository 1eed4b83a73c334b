/**
 * kpm run the way its users run it: its image built here with no container engine
 * (`ensureKpmImage`, imported into the real node's containerd), then
 * `kubectl apply -k deploy/overlays/local` — boot-worker, watcher, state and the drunc gateway as pods on the local
 * stack's real node, under their ServiceAccounts (the kubelet's projected tokens), uid 10001, a
 * read-only root filesystem, Available through their real probes. A session booted over Kafka
 * is carried out by them (the RBAC suite's boot, logs, restart, kill and terminate, under the
 * kit's RBAC); a boot whose boot-worker pod is killed halfway completes once, by the
 * replacement; a real Prometheus scrapes them with kpm's rules; `kubectl delete -k` removes it
 * all. The services must not run locally meanwhile (they would share the consumer groups).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import { topicName, type ProcessSpec } from '@kpm/contracts';
import {
  Daemon,
  ensureKpmImage,
  importIntoContainerd,
  REAL_NODE_LABEL,
  repoRoot,
  waitFor,
  type BuiltImage,
} from '@kpm/stack';
import { adminKubeConfig, DEPLOY_DIR, KIT_NAMESPACE, kubectl } from '../support/deploy-kit';
import { exportedSeries, missingSeries, seriesNamedInRules } from '../support/prometheus';
import { realNode } from '../support/real-node';
import { stackEnv } from '../support/stack-env';
import { suitePorts } from '../support/suite-ports';
import { TopicProbe, type ProbedRecord } from '../support/topic-probe';

jest.setTimeout(600_000);

const KIT = join(DEPLOY_DIR, 'overlays', 'local');
/** The services' host ports in the local overlay (deploy/overlays/local/real-node-*.yaml). */
const PORTS = {
  'boot-worker': 18481,
  watcher: 18482,
  state: 18480,
  'drunc-gateway': 18483,
} as const;
type Service = keyof typeof PORTS;
const SERVICES = Object.keys(PORTS) as Service[];
/** The kit's topic prefix (deploy/overlays/local/kpm.yaml). */
const PREFIX = 'kpm';

const target = realNode();
const sessions: string[] = [];
const session = (name: string): string => {
  sessions.push(`kit-${Date.now().toString(36)}-${name}`);
  return sessions[sessions.length - 1];
};
const onNode = (name: string, treeId: string, exec: string, args: string[]): ProcessSpec => ({
  name,
  treeId,
  image: target.image,
  restriction: { allowedHosts: [target.node] },
  executableAndArguments: [{ exec, args: ['--name', name, ...args] }],
});

let admin: KubeConfig;
let kubeconfig: string;
let image: BuiltImage;
let client: ProcessManagerClient;
let applyToAvailableMs: number;

const kit = (args: string[]): string => kubectl(args, { kubeconfig }).stdout;

/** The kit's pod of a service (one replica each on the local overlay), once it exists. */
async function servicePod(service: Service): Promise<V1Pod> {
  const pods = await admin.makeApiClient(CoreV1Api).listNamespacedPod({
    namespace: KIT_NAMESPACE,
    labelSelector: `app.kubernetes.io/name=kpm-${service}`,
  });
  const live = pods.items.filter((pod) => !pod.metadata?.deletionTimestamp);
  expect(live).toHaveLength(1);
  return live[0];
}

function exec(pod: V1Pod, script: string): { stdout: string; stderr: string } {
  const name = pod.metadata!.name!;
  return kubectl(['-n', KIT_NAMESPACE, 'exec', name, '--', 'sh', '-c', script], { kubeconfig });
}

function podLogs(service: Service): string {
  return kit(['-n', KIT_NAMESPACE, 'logs', `deployment/kpm-${service}`, '--tail=-1']);
}

beforeAll(async () => {
  kubeconfig = stackEnv().kubeconfig!;
  admin = adminKubeConfig(kubeconfig);
  // Local services would share the kit's consumer groups and take part of its work.
  const running = SERVICES.filter((service) => new Daemon(service).isRunning());
  if (running.length > 0) {
    throw new Error(`local services running (${running.join(', ')}): npx kpm services down first`);
  }
  const node = await admin.makeApiClient(CoreV1Api).readNode({ name: target.node });
  // The overlay selects and tolerates the real node by this label and taint.
  if (node.metadata?.labels?.[REAL_NODE_LABEL] !== 'true') {
    throw new Error(
      `node ${target.node} lacks the label ${REAL_NODE_LABEL}=true the overlay selects ` +
        '(a Node keeps the labels and taints of its first registration: re-register it)',
    );
  }
  image = await ensureKpmImage((line) => process.stdout.write(`[image] ${line}\n`), {
    compile: false,
  });
  await importIntoContainerd(image, ['localhost/kpm/kpm:0.1.0']);
  // A kit left by an earlier run goes first, so the apply below starts from nothing.
  kit(['delete', '-k', KIT, '--ignore-not-found', '--wait']);
  const started = Date.now();
  kit(['apply', '-k', KIT]);
  kit([
    '-n',
    KIT_NAMESPACE,
    'wait',
    '--for=condition=Available',
    'deployment',
    '--all',
    '--timeout=300s',
  ]);
  applyToAvailableMs = Date.now() - started;
  process.stdout.write(`kubectl apply → all Deployments Available: ${applyToAvailableMs} ms\n`);
  client = connectProcessManager({
    brokers: stackEnv().brokers,
    topicPrefix: PREFIX,
    user: 'alice',
    timeouts: { boot: 120_000, kill: 90_000, terminate: 90_000, restart: 90_000 },
  });
}, 900_000);

afterAll(async () => {
  await client?.close();
  for (const name of sessions) {
    kubectl(['delete', 'namespace', name, '--ignore-not-found', '--wait=false'], { kubeconfig });
  }
  kubectl(['delete', '-k', KIT, '--ignore-not-found', '--wait'], { kubeconfig });
}, 300_000);

it('runs the four services as pods on the real node, Available through their probes', async () => {
  for (const service of SERVICES) {
    const pod = await servicePod(service);
    expect(pod.spec?.nodeName).toBe(target.node);
    expect(pod.spec?.hostNetwork).toBe(true);
    expect(pod.spec?.serviceAccountName).toBe(`kpm-${service}`);
    const [status] = pod.status!.containerStatuses!;
    expect(status).toMatchObject({
      ready: true,
      restartCount: 0,
      image: 'localhost/kpm/kpm:0.1.0',
    });
    expect(status.imageID).toBe(image.imageId);
    const ready = await fetch(`http://127.0.0.1:${PORTS[service]}/readyz`);
    expect(ready.status).toBe(200);
  }
  expect(applyToAvailableMs).toBeGreaterThan(0);
});

it.each(SERVICES)(
  '%s: uid 10001, a read-only root, writes only to /tmp, its ServiceAccount token as projected',
  async (service) => {
    const pod = await servicePod(service);
    expect(exec(pod, 'id -u; id -g').stdout).toBe('10001\n10001\n');
    const root = exec(pod, 'touch /kpm/probe 2>&1 || true; touch /probe 2>&1 || true').stdout;
    expect(root).toBe(
      "touch: cannot touch '/kpm/probe': Read-only file system\n" +
        "touch: cannot touch '/probe': Read-only file system\n",
    );
    expect(exec(pod, 'touch /tmp/probe && rm /tmp/probe && echo ok').stdout).toBe('ok\n');
    // What is mounted writable: /tmp (the emptyDir) and the kubelet's own files, no more.
    const writable = exec(pod, "awk '$4 ~ /^rw/ {print $2}' /proc/mounts").stdout.split('\n');
    expect(
      writable.filter(
        (path) => path && !/^\/(tmp|dev|proc|sys|etc\/(hosts|hostname|resolv\.conf))/.test(path),
      ),
    ).toEqual([]);
    const token = exec(pod, 'ls /var/run/secrets/kubernetes.io/serviceaccount 2>&1 || true').stdout;
    if (service === 'state' || service === 'drunc-gateway') {
      // The state service and the gateway never call Kubernetes: no token at all.
      expect(token).toContain('No such file or directory');
    } else {
      expect(token.split('\n')).toEqual(expect.arrayContaining(['ca.crt', 'namespace', 'token']));
      const projected = pod.spec!.volumes!.find((volume) => volume.projected);
      expect(projected?.projected?.sources).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            serviceAccountToken: expect.objectContaining({ path: 'token' }),
          }),
        ]),
      );
    }
  },
);

it('carries out a session booted over Kafka: boot, logs, restart, kill, terminate', async () => {
  const name = session('life');
  const processes = [
    onNode('ru-01', '0.1.1', 'daq_application', ['--log-every', '500ms']),
    // An application: drunc's preStop `kill -QUIT 1` ends it, with the code it gives SIGQUIT.
    onNode('ru-02', '0.1.2', 'daq_application', ['--quit-exit', '3']),
  ];
  const boot = await client.boot({ session: name, user: 'alice', processes }, { wait: true });
  expect(boot.completion?.status).toBe('succeeded');
  expect(boot.completion?.processes.map((p) => p.nodeName)).toEqual([target.node, target.node]);

  await waitFor(
    'ru-01 logs its ticks',
    async () => {
      const [logs] = await client.logs({ session: name, names: ['^ru-01$'] }, { tailLines: 20 });
      return logs.lines.some((line) => line.includes('daq_application: tick n=1'));
    },
    { timeoutMs: 60_000, intervalMs: 500 },
  );

  const [before] = await client.ps({ session: name, names: ['^ru-01$'] });
  const restart = await client.restart({ uuids: [before.uuid] }, { wait: true });
  expect(restart.completion?.status).toBe('succeeded');
  const [after] = await client.ps({ uuids: [before.uuid] });
  expect(after.podUid).not.toBe(before.podUid);

  const killed = await client.kill(
    { query: { session: name, names: ['^ru-02$'] } },
    { wait: true },
  );
  expect(killed.completion?.processes.map((p) => p.returnCode)).toEqual([3]);

  const terminated = await client.terminate({ session: name, user: 'alice' }, { wait: true });
  expect(terminated.completion?.status).toBe('succeeded');
  for (const service of ['boot-worker', 'watcher'] as const) {
    expect(podLogs(service)).not.toMatch(/Forbidden/);
  }
});

it('finishes a boot whose boot-worker pod was killed halfway, once', async () => {
  const name = session('killed');
  // The root controller listens only after 20 s: the boot waits on it (TCP readiness) before
  // it boots the application, and the boot-worker pod is killed in that wait. Its port is a node
  // port (drunc's NodePort Service), in the suite's own block.
  const rootPort = String(suitePorts('kit-real-node', 1).node(0));
  const processes = [
    onNode('root', '0', 'drunc-controller', ['--port', rootPort, '--ready-after', '20s']),
    onNode('ru-01', '0.1.1', 'daq_application', []),
  ];
  const core = admin.makeApiClient(CoreV1Api);
  const podsOf = async () => (await core.listNamespacedPod({ namespace: name })).items;
  const completions = await new TopicProbe(stackEnv().brokers, [
    topicName('completions', PREFIX),
  ]).start();
  try {
    const victim = await servicePod('boot-worker');
    const boot = client.boot({ session: name, user: 'alice', processes }, { wait: true });
    const ended = boot.then((result) => {
      throw new Error(`the boot ended before its root pod existed: ${JSON.stringify(result)}`);
    });
    ended.catch(() => undefined); // once the race below is over, only the boot's result counts
    const rootCreated = waitFor(
      'the root controller’s pod',
      async () => (await podsOf()).some((pod) => pod.metadata?.name === 'root'),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    await Promise.race([rootCreated, ended]);
    kit([
      '-n',
      KIT_NAMESPACE,
      'delete',
      'pod',
      victim.metadata!.name!,
      '--grace-period=0',
      '--force',
    ]);
    const booted = await boot;
    expect(booted.completion?.status).toBe('succeeded');
    // The application's pod came only once the root controller was Ready (it listens after 20 s).
    const pods = await podsOf();
    const pod = (app: string) => pods.find((p) => p.metadata?.name === app)!;
    const rootReady = pod('root').status!.conditions!.find((c) => c.type === 'Ready')!;
    expect(rootReady.status).toBe('True');
    expect(pod('ru-01').metadata!.creationTimestamp!.getTime()).toBeGreaterThanOrEqual(
      new Date(rootReady.lastTransitionTime!).getTime(),
    );
    // The replacement started while the session was being booted (it lists the session's
    // namespace at its start), and the boot completed after it started: it finished the work.
    const replacement = await servicePod('boot-worker');
    expect(replacement.metadata!.name).not.toBe(victim.metadata!.name);
    const running = replacement.status!.containerStatuses![0].state!.running!;
    expect(new Date(booted.completion!.completedAt).getTime()).toBeGreaterThan(
      new Date(running.startedAt!).getTime(),
    );
    expect(podLogs('boot-worker')).toMatch(
      new RegExp(`Active namespaces created by kpm:[^]*${name}`),
    );
    expect(pods.map((p) => p.metadata!.labels!.app).sort()).toEqual(['root', 'ru-01']);

    const terminated = await client.terminate({ session: name, user: 'alice' }, { wait: true });
    expect(terminated.completion?.status).toBe('succeeded');
    // A session's completions share a partition, in order: once the terminate's is read, any
    // second completion of the boot would have been read before it.
    const of = (id: string) => (record: ProbedRecord) => record.event?.data?.commandId === id;
    await completions.waitFor(of(terminated.commandId), 60_000);
    expect(completions.records.filter(of(booted.commandId))).toHaveLength(1);
  } finally {
    await completions.stop();
  }
});

it('records a process that ends while its watcher pod is being replaced', async () => {
  const name = session('watcher');
  const processes = [onNode('ru-01', '0.1.1', 'daq_application', ['--quit-exit', '4'])];
  const boot = await client.boot({ session: name, user: 'alice', processes }, { wait: true });
  expect(boot.completion?.status).toBe('succeeded');
  const victim = await servicePod('watcher');
  kit([
    '-n',
    KIT_NAMESPACE,
    'delete',
    'pod',
    victim.metadata!.name!,
    '--grace-period=0',
    '--force',
  ]);
  // The pod keeps the watcher's finalizer until a watcher records its end: the kill completes
  // only once the replacement, under the kit's Lease, has done so.
  const killed = await client.kill(
    { query: { session: name, names: ['^ru-01$'] } },
    { wait: true },
  );
  expect(killed.completion?.processes.map((p) => p.returnCode)).toEqual([4]);
  const replacement = await servicePod('watcher');
  expect(replacement.metadata!.name).not.toBe(victim.metadata!.name);
  expect(
    podLogs('watcher')
      .split('\n')
      .some(
        (line) =>
          line.includes('"event":"lease.leading"') && line.includes('"lease":"kpm-watcher"'),
      ),
  ).toBe(true);
  const terminated = await client.terminate({ session: name, user: 'alice' }, { wait: true });
  expect(terminated.completion?.status).toBe('succeeded');
});

it('is scraped by a real Prometheus, which sees every kpm target up and loads kpm’s rules', async () => {
  const rules = join(repoRoot(), 'deploy', 'prometheus', 'kpm-rules.yaml');
  const prometheus = await startPrometheus(rules);
  try {
    await waitFor(
      'every kpm target up',
      async () => {
        const targets = (await prometheus.api('targets')) as {
          activeTargets: { health: string }[];
        };
        return (
          targets.activeTargets.length === SERVICES.length &&
          targets.activeTargets.every((t) => t.health === 'up')
        );
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const loaded = (await prometheus.api('rules')) as {
      groups: { name: string; rules: { health: string }[] }[];
    };
    expect(loaded.groups.map((group) => group.name).sort()).toEqual([
      'kpm.alerts',
      'kpm.recording',
    ]);
    for (const group of loaded.groups) {
      for (const rule of group.rules) expect(rule.health).not.toBe('err');
    }
    // The rules name only series these pods export.
    const exported = new Set<string>();
    for (const service of SERVICES) {
      const text = await (await fetch(`http://127.0.0.1:${PORTS[service]}/metrics`)).text();
      for (const name of exportedSeries(text)) exported.add(name);
    }
    expect(missingSeries(seriesNamedInRules(parse(readFileSync(rules, 'utf8'))), exported)).toEqual(
      [],
    );
  } finally {
    await prometheus.stop();
  }
});

it('is removed by kubectl delete -k', async () => {
  kit(['delete', '-k', KIT, '--wait']);
  const namespaces = kubectl(['get', 'namespaces', '-o', 'name'], { kubeconfig }).stdout;
  expect(namespaces).not.toContain(`namespace/${KIT_NAMESPACE}`);
  for (const service of SERVICES) {
    await expect(fetch(`http://127.0.0.1:${PORTS[service]}/healthz`)).rejects.toThrow();
  }
});

/** Debian's Prometheus (scripts/debian-package.sh), scraping the kit's pods every second. */
async function startPrometheus(rules: string): Promise<{
  api: (path: string) => Promise<unknown>;
  stop: () => Promise<void>;
}> {
  const binary = debianCommand('prometheus', 'prometheus');
  const dir = mkdtempSync(join(tmpdir(), 'kpm-prometheus-'));
  const port = await freePort();
  const targets = SERVICES.map((service) => `127.0.0.1:${PORTS[service]}`);
  writeFileSync(
    join(dir, 'prometheus.yml'),
    JSON.stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: [rules],
      scrape_configs: [{ job_name: 'kpm', static_configs: [{ targets }] }],
    }),
  );
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: 'ignore' },
  );
  const api = async (path: string): Promise<unknown> => {
    const body = (await (await fetch(`http://127.0.0.1:${port}/api/v1/${path}`)).json()) as {
      data: unknown;
    };
    return body.data;
  };
  await waitFor(
    'Prometheus answers',
    async () => (await fetch(`http://127.0.0.1:${port}/-/ready`)).ok,
    {
      timeoutMs: 30_000,
      intervalMs: 200,
    },
  );
  return {
    api,
    stop: async () => {
      const ended = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await ended;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Debian package's command, installed when missing (scripts/debian-package.sh). */
function debianCommand(pkg: string, command: string): string {
  const script = join(repoRoot(), 'scripts', 'debian-package.sh');
  return execFileSync(script, [pkg, command]).toString().trim();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
