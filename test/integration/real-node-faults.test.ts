/**
 * The real node's faults, survived (issue #30): the kubelet SIGKILLed mid-session and started
 * again, containerd stopped mid-session and started again, a real OOM kill, and the ends kpm
 * recorded before a `flush` that a `terminate` must not wait for again. Each fault is caused with
 * the stack's own commands (`stackRealNode()`, `kpm stack node …`), which signal only the daemons
 * the stack started; the node is brought back after each, and in `afterAll` whatever happens.
 *
 * The suite takes the node's kubelet and containerd down: it is in SERIAL_SUITES. It prints the
 * fault timings it measured (docs/operations.md, "The real node's faults").
 */
import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import { eventually } from '@kpm/common';
import {
  CompletionType,
  ProcessEventType,
  terminationEventId,
  topicName,
  type CommandCompleted,
  type ProcessSpec,
} from '@kpm/contracts';
import { stackRealNode } from '@kpm/stack';
import { KpmTrio } from '../support/kpm-trio';
import { PodTimeline } from '../support/pod-timeline';
import { realNode, realNodeBootEnv, standin } from '../support/real-node';
import { stackEnv } from '../support/stack-env';
import { terminationOf, terminationsSeen } from '../support/terminations';
import { TopicProbe } from '../support/topic-probe';

jest.setTimeout(240_000);

const target = realNode();
const node = stackRealNode();
const marker = `faults-${randomBytes(3).toString('hex')}`;
const kubeconfig = new KubeConfig();
let core: CoreV1Api;
let h: KpmTrio;
let client: ProcessManagerClient;
let probe: TopicProbe;
const timelines: PodTimeline[] = [];
const NODE_LOST_SECONDS = 5;
/** What the suite measured, printed at the end. */
const timings: Record<string, number> = {};

/** A process on the real node; `tag` is an argument the stand-in ignores, found in /proc. */
const onNode = (name: string, treeId: string, ...args: string[]): ProcessSpec => ({
  name,
  treeId,
  executableAndArguments: standin(...args, `${marker}-${name}`),
  restriction: { allowedHosts: [target.node] },
});
/** Runs until stopped; SIGTERM or drunc's preStop SIGQUIT ends it with 7. */
const steady = (name: string, treeId = '1.1.1') =>
  onNode(name, treeId, '--term-exit', '7', '--quit-exit', '7');

beforeAll(async () => {
  h = await KpmTrio.start('faults', {
    ...realNodeBootEnv(target),
    // A kill's grace period: the stand-ins end on SIGTERM at once.
    KPM_KILL_TIMEOUT_SECONDS: '5',
    // The lost node's test: evicted this long after the node is marked unreachable.
    KPM_NODE_LOST_SECONDS: String(NODE_LOST_SECONDS),
  });
  client = connectProcessManager({
    brokers: stackEnv().brokers,
    topicPrefix: h.prefix,
    user: 'alice',
  });
  probe = await new TopicProbe(stackEnv().brokers, [
    topicName('terminations', h.prefix),
    topicName('process-events', h.prefix),
    topicName('completions', h.prefix),
  ]).start();
  kubeconfig.loadFromFile(stackEnv().kubeconfig!);
  core = kubeconfig.makeApiClient(CoreV1Api);
}, 180_000);

afterAll(async () => {
  // Whatever failed, the node comes back for the suites after this one.
  await node.start();
  for (const timeline of timelines) timeline.stop();
  await probe?.stop();
  await client?.close();
  await h?.close();
  console.log(`real-node fault timings (ms): ${JSON.stringify(timings, null, 2)}`);
}, 180_000);

/** Boots `processes` in a new session of the suite, each waited for until its container runs. */
async function bootRunning(name: string, processes: ProcessSpec[]) {
  const session = h.session(name);
  const timeline = await new PodTimeline(kubeconfig, session).start();
  timelines.push(timeline);
  const booted = await client.boot({ session, user: 'alice', processes }, { wait: true });
  const pods = Object.fromEntries(
    booted.completion!.processes.map((p) => [p.description.metadata.name, p.podUid]),
  );
  return { session, timeline, pods };
}

function waitRunning(timeline: PodTimeline, names: string[]): Promise<number[]> {
  return Promise.all(
    names.map((name) =>
      timeline.waitFor(`${name} Running`, (m) => m.name === name && m.phase === 'Running'),
    ),
  );
}

/** The terminations published for `podUid` so far (its record id derives from the uid). */
const recordsOf = (podUid: string) =>
  terminationsSeen(probe).filter((t) => t.id === terminationEventId(podUid));

/** Whether a process of this suite named `name` runs on the host (its ignored argument). */
function runs(name: string): boolean {
  const tag = `${marker}-${name}`;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(tag)) return true;
    } catch {
      // it ended while we looked
    }
  }
  return false;
}

/** The completion of a command sent without waiting. */
async function completionOf(commandId: string): Promise<CommandCompleted> {
  const record = await probe.waitFor(
    (r) =>
      r.event?.type === CompletionType.commandCompleted && r.event.data.commandId === commandId,
    60_000,
  );
  return record.event!.data as unknown as CommandCompleted;
}

const exitsOf = (completion: CommandCompleted) =>
  Object.fromEntries(
    completion.processes.map((p) => [
      p.description.metadata.name,
      [p.statusCode, p.returnCode, p.reason],
    ]),
  );

describe('ends recorded before a flush are not waited for again', () => {
  it('an image that cannot be pulled, and a process that exited: flush, then terminate completes succeeded', async () => {
    const { session, timeline, pods } = await bootRunning('pull', [
      { ...onNode('unpullable', '1.1.1'), image: 'kpm.invalid/nowhere:missing' },
      onNode('exited', '1.1.2', '--exit', '3', '--after', '1s'),
      steady('steady', '1.1.3'),
    ]);
    await waitRunning(timeline, ['steady']);
    const pulled = await terminationOf(probe, pods.unpullable, 60_000);
    expect([pulled.data.exitCode, pulled.data.reason]).toEqual([-1, 'ErrImagePull']);
    const exited = await terminationOf(probe, pods.exited, 60_000);
    expect([exited.data.exitCode, exited.data.reason]).toEqual([3, 'Error']);

    // Their pods stay (kpm deletes a pod only when told to), their ends recorded.
    const listed = await core.listNamespacedPod({ namespace: session });
    expect(listed.items.map((p) => p.metadata!.name).sort()).toEqual([
      'exited',
      'steady',
      'unpullable',
    ]);
    const flushed = await client.flush({ session }, { wait: true });
    expect(flushed.completion!.processes.map((p) => p.description.metadata.name).sort()).toEqual([
      'exited',
      'unpullable',
    ]);

    const started = Date.now();
    const terminated = await client.terminate({ session, user: 'alice' }, { wait: true });
    timings.terminateAfterFlushMs = Date.now() - started;
    expect(terminated.completion!.status).toBe('succeeded');
    expect(exitsOf(terminated.completion!)).toEqual({ steady: ['DEAD', 7, 'Error'] });
    // The terminate did aim at the flushed processes' pods, and did not wait for them.
    const accepted = probe
      .events(ProcessEventType.killAccepted)
      .find((e) => e.data.commandId === terminated.commandId)!;
    expect(Object.values(accepted.data.podUids as Record<string, string>).sort()).toEqual(
      [pods.unpullable, pods.exited, pods.steady].sort(),
    );
    expect(recordsOf(pods.unpullable)).toHaveLength(1);
    expect(recordsOf(pods.exited)).toHaveLength(1);
  });

  it("drunc's shell: restart a process, kill it at once, flush, terminate the session: succeeded", async () => {
    const { session, timeline, pods } = await bootRunning('restart', [
      steady('app-1', '1.1.1'),
      steady('app-2', '1.1.2'),
      steady('app-3', '1.1.3'),
    ]);
    await waitRunning(timeline, ['app-1', 'app-2', 'app-3']);
    // Both sent at once: the session's lane runs the kill as soon as the restart has created
    // the new pod, before the real node has started it (drunc's shell, a quick hand).
    const restart = await client.restart({ session, names: ['^app-1$'] });
    const kill = await client.kill({ query: { session, names: ['^app-1$'] } });
    const restarted = await completionOf(restart.commandId);
    expect(restarted.status).toBe('succeeded');
    const again = restarted.processes[0].podUid;
    expect(again).not.toBe(pods['app-1']);
    const killed = await completionOf(kill.commandId);
    expect(killed.status).toBe('succeeded');
    const [ended] = killed.processes;
    console.log(`app-1's new pod, killed as the restart created it: ${ended.reason}`);
    expect([ended.podUid, ended.statusCode]).toEqual([again, 'DEAD']);
    expect(recordsOf(again)).toHaveLength(1);

    await client.flush({ session, names: ['^app-1$'] }, { wait: true });
    const terminated = await client.terminate({ session, user: 'alice' }, { wait: true });
    expect(terminated.completion!.status).toBe('succeeded');
    expect(exitsOf(terminated.completion!)).toEqual({
      'app-2': ['DEAD', 7, 'Error'],
      'app-3': ['DEAD', 7, 'Error'],
    });
  });
});

it('a process above its memory limit ends OOMKilled, 137', async () => {
  const { pods } = await bootRunning('oom', [
    { ...onNode('hog', '1.1.1', '--memory', '256Mi'), resources: { limits: { memory: '64Mi' } } },
  ]);
  const ended = await terminationOf(probe, pods.hog, 60_000);
  expect([ended.data.exitCode, ended.data.reason, ended.data.signal]).toEqual([
    137,
    'OOMKilled',
    9,
  ]);
});

/**
 * The fault's promises: the process that ended while the daemon was away is reported once, with
 * its real exit code, once the node is back; the one still running is never reported dead; a
 * later kill of it completes.
 */
describe.each([
  ['the kubelet SIGKILLed', 'kubelet', () => node.killKubelet()],
  ['containerd stopped', 'containerd', () => node.stopContainerd()],
])('%s mid-session, then started again', (_title, daemon, fault) => {
  it('reports the end that happened meanwhile once, with its exit code; never the running one', async () => {
    const { session, timeline, pods } = await bootRunning(daemon, [
      steady('steady', '1.1.1'),
      onNode('brief', '1.1.2', '--exit', '3', '--after', '8s'),
    ]);
    await waitRunning(timeline, ['steady', 'brief']);
    expect(recordsOf(pods.brief)).toEqual([]); // it runs for 8 s more

    let back = false;
    try {
      await fault();
      const away = Date.now();
      await eventually(() => !runs('brief'), {
        what: `brief's exit while ${daemon} was away`,
        timeoutMs: 30_000,
      });
      expect(recordsOf(pods.brief)).toEqual([]); // nobody could tell
      expect(recordsOf(pods.steady)).toEqual([]);
      const starting = Date.now();
      await node.start();
      back = true;
      const started = Date.now();
      timings[`${daemon}DownMs`] = started - away;
      timings[`${daemon}StartCommandMs`] = started - starting;
      const ended = await terminationOf(probe, pods.brief, 60_000);
      timings[`${daemon}StartedToEndPublishedMs`] = Date.now() - started;
      // How late kpm told an end that happened while the node could not: since the exit.
      timings[`${daemon}ExitToEndPublishedMs`] = Date.now() - Date.parse(ended.data.finishedAt!);
      expect([ended.data.exitCode, ended.data.reason]).toEqual([3, 'Error']);
    } finally {
      if (!back) await node.start();
    }

    // The kubelet has reported the node's containers again: steady is still running.
    const [row] = await client.ps({ session, names: ['^steady$'] });
    expect(row.statusCode).toBe('RUNNING');
    expect(runs('steady')).toBe(true);
    const started = Date.now();
    const killed = await client.kill({ query: { session, names: ['^steady$'] } }, { wait: true });
    timings[`${daemon}LaterKillMs`] = Date.now() - started;
    expect(exitsOf(killed.completion!)).toEqual({ steady: ['DEAD', 7, 'Error'] });
    expect(recordsOf(pods.brief)).toHaveLength(1);
    expect(recordsOf(pods.steady)).toHaveLength(1);
    await client.terminate({ session, user: 'alice' }, { wait: true });
  });
});

/**
 * The kubelet stopped for less than the node-lifecycle grace period (50 s): the Node is still
 * Ready, so nobody can tell whether the process runs, and a kill cannot end it. kpm invents no
 * end: the kill completes timed_out at its deadline with the process pending — nothing waits
 * forever — and the process's real end is reported once the kubelet is back and has stopped it.
 */
it('the kubelet stopped: a kill times out with the process pending, its real end comes when the kubelet is back', async () => {
  const { session, timeline, pods } = await bootRunning('stranded', [steady('stranded')]);
  await waitRunning(timeline, ['stranded']);
  let back = false;
  try {
    await node.stopKubelet();
    const sent = Date.now();
    const kill = await client.kill({
      query: { session, names: ['^stranded$'] },
      timeoutSeconds: 10,
    });
    const done = await completionOf(kill.commandId);
    timings.strandedKillCompletedMs = Date.now() - sent;
    expect(done).toMatchObject({
      status: 'timed_out',
      errors: [{ message: '1 of 1 processes still pending after 10 s (0 ended)' }],
    });
    expect(done.pending).toHaveLength(1);
    expect(recordsOf(pods.stranded)).toEqual([]); // no end invented
    const [row] = await client.ps({ session, names: ['^stranded$'] });
    expect(row.statusCode).toBe('RUNNING');

    const starting = Date.now();
    await node.start();
    back = true;
    const started = Date.now();
    const ended = await terminationOf(probe, pods.stranded, 60_000);
    timings.strandedStartedToEndPublishedMs = Date.now() - started;
    timings.strandedStartCommandMs = started - starting;
    // Its real exit: SIGTERM (or drunc's preStop SIGQUIT) ends it with 7, unless the kubelet
    // found the deletion's grace spent and killed it.
    expect([7, 137]).toContain(ended.data.exitCode);
    console.log(`the stranded process, stopped once the kubelet was back: ${ended.data.exitCode}`);
    // The state applies the termination in its own time: ps asks until it has.
    await eventually(
      async () => {
        const [dead] = await client.ps({ session, names: ['^stranded$'] });
        expect([dead.statusCode, dead.returnCode]).toEqual(['DEAD', ended.data.exitCode]);
      },
      { what: 'the stranded process DEAD in the table', timeoutMs: 30_000, everyMs: 500 },
    );
  } finally {
    if (!back) await node.start();
  }
  await client.terminate({ session, user: 'alice' }, { wait: true });
});

/** The real node's Ready condition status: True, False or Unknown. */
async function readyOf(): Promise<string | undefined> {
  const found = await core.readNode({ name: target.node });
  return found.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

/**
 * The node lost: its kubelet stopped for longer than the node-lifecycle grace period. The cluster
 * marks it Unknown and taints it unreachable; kpm reports, each once and without an invented exit
 * code, a process it was asked to kill there as soon as the node is lost (nobody can stop it), and
 * every other process there when Kubernetes evicts it after `nodeLostSeconds`. When the node comes
 * back its kubelet stops the containers of those deleted pods.
 */
it('the node lost: a kill there completes, the rest end NodeLost after their toleration, each once', async () => {
  const { session, timeline, pods } = await bootRunning('lost', [
    steady('kept', '1.1.1'),
    steady('killed', '1.1.2'),
  ]);
  await waitRunning(timeline, ['kept', 'killed']);
  let back = false;
  try {
    await node.stopKubelet();
    const stopped = Date.now();
    // Sent while the node still looks Ready: the deletion waits for a kubelet that never comes.
    const kill = await client.kill({
      query: { session, names: ['^killed$'] },
      timeoutSeconds: 300,
    });
    await eventually(async () => expect(await readyOf()).toBe('Unknown'), {
      what: `${target.node} Ready Unknown`,
      timeoutMs: 150_000,
      everyMs: 1000,
    });
    const lost = Date.now();
    timings.kubeletStoppedToNodeUnknownMs = lost - stopped;
    // Eviction counts the toleration from the taint's timeAdded (whole seconds, rounded down).
    const tainted = await eventually(
      async () => {
        const found = await core.readNode({ name: target.node });
        const taint = found.spec?.taints?.find(
          (t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute',
        );
        expect(taint?.timeAdded).toBeDefined();
        return new Date(taint!.timeAdded as unknown as string).getTime();
      },
      { what: `${target.node} tainted unreachable`, timeoutMs: 30_000, everyMs: 500 },
    );

    const killed = await completionOf(kill.commandId);
    timings.nodeUnknownToKillCompletedMs = Date.now() - lost;
    expect(killed.status).toBe('succeeded');
    expect(exitsOf(killed)).toEqual({ killed: ['DEAD', -1, 'NodeLost'] });
    const record = await terminationOf(probe, pods.killed, 5_000);
    expect(record.data.failure?.podMessage).toMatch(
      new RegExp(`^node ${target.node} lost \\(Ready Unknown since .*: NodeStatusUnknown: `),
    );

    const evicted = await terminationOf(probe, pods.kept, (NODE_LOST_SECONDS + 60) * 1000);
    timings.taintToEvictedEndMs = Date.now() - tainted;
    expect([evicted.data.exitCode, evicted.data.reason]).toEqual([-1, 'NodeLost']);
    // Not before its toleration ran out.
    expect(timings.taintToEvictedEndMs).toBeGreaterThanOrEqual(NODE_LOST_SECONDS * 1000);
    await eventually(
      async () => {
        const rows = await client.ps({ session });
        expect(rows.map((r) => [r.description.metadata.name, r.statusCode]).sort()).toEqual([
          ['kept', 'DEAD'],
          ['killed', 'DEAD'],
        ]);
      },
      { what: 'both DEAD in the table', timeoutMs: 30_000, everyMs: 500 },
    );
    // Their processes still run: only the kubelet could stop them.
    expect(runs('kept') && runs('killed')).toBe(true);

    await node.start();
    back = true;
    const started = Date.now();
    await eventually(async () => expect(await readyOf()).toBe('True'), {
      what: `${target.node} Ready again`,
      timeoutMs: 120_000,
      everyMs: 1000,
    });
    // Back, the kubelet finds their pods deleted and stops them.
    await eventually(() => !runs('kept') && !runs('killed'), {
      what: 'the lost processes stopped by the kubelet back',
      timeoutMs: 120_000,
    });
    timings.nodeBackToProcessesStoppedMs = Date.now() - started;
  } finally {
    if (!back) await node.start();
  }
  expect(recordsOf(pods.kept)).toHaveLength(1);
  expect(recordsOf(pods.killed)).toHaveLength(1);
  const terminated = await client.terminate({ session, user: 'alice' }, { wait: true });
  expect(terminated.completion!.status).toBe('succeeded');
});
