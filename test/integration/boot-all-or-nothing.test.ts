import { randomBytes } from 'node:crypto';
import {
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Node,
} from '@kubernetes/client-node';
import { eventually } from '@kpm/common';
import { CommandType, ProcessEventType } from '@kpm/contracts';
import { simulatedNode } from '@kpm/stack/kube/kwok';
import { BootWorkerHarness } from '../support/boot-worker-harness';
import { stackEnv } from '../support/stack-env';

/**
 * An all-or-nothing boot on the real API server and kwok (docs/design.md §4 "All or nothing"): a
 * session of 200 processes over ten hosts, one of them cordoned, is refused whole — one error per
 * process on that host, no namespace, no pod — and boots whole once the host is back; a session
 * asking more of a host than its allocatable less its pods' requests is refused naming the
 * processes that do not fit.
 */
jest.setTimeout(240_000);

const { commandRejected, processBooted, bootAccepted } = ProcessEventType;
const PROCESSES = 200;
const HOSTS = 10;
const CORDONED = 6; // the seventh host
// The suite's own hosts are tainted: no other suite's process that names no host lands on them.
const TAINT = { key: 'kpm.test/all-or-nothing', value: 'true', effect: 'NoSchedule' };

let h: BootWorkerHarness;
let core: CoreV1Api;
let hosts: string[];

function processesOver(names: readonly string[]) {
  return Array.from({ length: PROCESSES }, (_, i) => ({
    name: `ru-${String(i).padStart(3, '0')}`,
    treeId: `0.1.${i + 1}`,
    executableAndArguments: [{ exec: 'daq_application', args: ['--name', `ru-${i}`] }],
    restriction: { allowedHosts: [names[i % names.length]] },
  }));
}

async function setCordoned(name: string, unschedulable: boolean): Promise<void> {
  await core.patchNode(
    { name, body: { spec: { unschedulable } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

beforeAll(async () => {
  h = await BootWorkerHarness.start('bwa', {
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
    KPM_RUN_AS_USERS: 'alice:1000:1000',
    // The node list is read fresh for each boot: the uncordon below is seen at once.
    KPM_POD_MANAGEMENT_HOST_CACHE_EXPIRY_SECONDS: '0',
  });
  const config = new KubeConfig();
  config.loadFromFile(stackEnv().kubeconfig!);
  core = config.makeApiClient(CoreV1Api);
  const suffix = randomBytes(2).toString('hex');
  hosts = Array.from(
    { length: HOSTS },
    (_, i) => `aon-${suffix}-${String(i + 1).padStart(2, '0')}`,
  );
  await Promise.all(
    hosts.map((name) => {
      const node = simulatedNode(name) as V1Node;
      return core.createNode({ body: { ...node, spec: { taints: [TAINT] } } });
    }),
  );
  await eventually(
    async () => {
      const ready = await Promise.all(
        hosts.map(async (name) =>
          (await core.readNode({ name })).status?.conditions?.some(
            (c) => c.type === 'Ready' && c.status === 'True',
          ),
        ),
      );
      return ready.every(Boolean);
    },
    { what: `${HOSTS} simulated hosts Ready`, timeoutMs: 120_000, everyMs: 250 },
  );
  await setCordoned(hosts[CORDONED], true);
}, 180_000);

afterAll(async () => {
  await h?.close();
  await Promise.all((hosts ?? []).map((name) => core.deleteNode({ name }).catch(() => undefined)));
}, 180_000);

describe('an all-or-nothing boot', () => {
  it('refuses the whole session when one host is cordoned, naming every process on it', async () => {
    const session = h.session('refused');
    await h.send('aon-refused', CommandType.boot, {
      session,
      user: 'alice',
      allOrNothing: true,
      processes: processesOver(hosts),
    });
    const rejected = await h.fact(commandRejected, 'aon-refused');
    const errors = rejected.data.errors as { path: string; message: string }[];
    const onCordoned = processesOver(hosts).flatMap((p, i) =>
      p.restriction.allowedHosts[0] === hosts[CORDONED] ? [i] : [],
    );
    expect(onCordoned).toHaveLength(PROCESSES / HOSTS);
    expect(errors[0]).toEqual({
      path: 'allOrNothing',
      message: `the boot is all-or-nothing and ${onCordoned.length} of ${PROCESSES} processes cannot land: nothing was created`,
    });
    expect(errors.slice(1)).toEqual(
      onCordoned.map((i) => ({
        path: `processes[${i}]`,
        message: `"ru-${String(i).padStart(3, '0')}" cannot land: no allowed host is Ready and schedulable: ${hosts[CORDONED]} (cordoned)`,
      })),
    );
    expect(h.facts(bootAccepted, 'aon-refused')).toEqual([]);
    expect(await h.namespaceExists(session)).toBe(false);
  });

  it('boots the whole session once the host is uncordoned', async () => {
    await setCordoned(hosts[CORDONED], false);
    const session = h.session('booted');
    await h.send('aon-booted', CommandType.boot, {
      session,
      user: 'alice',
      allOrNothing: true,
      processes: processesOver(hosts),
    });
    const booted = await h.factCount(processBooted, 'aon-booted', PROCESSES);
    expect(booted).toHaveLength(PROCESSES);
    expect(h.facts(commandRejected, 'aon-booted')).toEqual([]);
  });
});

describe('an all-or-nothing boot that does not fit', () => {
  /** A host that offers 4 cores, 2 of them requested by a running process. */
  it('refuses the session naming each process past what its host has free', async () => {
    const host = hosts[0];
    await core.patchNodeStatus(
      { name: host, body: { status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await eventually(
      async () => (await core.readNode({ name: host })).status?.allocatable?.cpu === '4',
      { what: `${host} offering 4 cores`, timeoutMs: 30_000, everyMs: 250 },
    );
    const onHost = (name: string, cpu: string) => ({
      name,
      executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
      restriction: { allowedHosts: [host] },
      resources: { requests: { cpu }, limits: { cpu } },
    });
    const first = h.session('fit-first');
    await h.send('aon-fit-first', CommandType.boot, {
      session: first,
      user: 'alice',
      processes: [onHost('holder', '2')],
    });
    await h.fact(processBooted, 'aon-fit-first');

    const session = h.session('fit');
    await h.send('aon-fit', CommandType.boot, {
      session,
      user: 'alice',
      allOrNothing: true,
      processes: [onHost('ru-a', '1'), onHost('ru-b', '1500m'), onHost('ru-c', '500m')],
    });
    const rejected = await h.fact(commandRejected, 'aon-fit');
    expect(rejected.data.errors).toEqual([
      {
        path: 'allOrNothing',
        message: 'the boot is all-or-nothing and 1 of 3 processes cannot land: nothing was created',
      },
      {
        path: 'processes[1]',
        message: `"ru-b" cannot land: it does not fit on ${host}: it requests cpu 1500m where 1 is free (the node's allocatable less what its pods and this boot's earlier processes request)`,
      },
    ]);
    expect(await h.namespaceExists(session)).toBe(false);
  });
});
