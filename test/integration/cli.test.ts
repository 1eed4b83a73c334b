/**
 * The kpm CLI end to end on the real stack: `node bin/kpm.js …` as a child process, exactly as an
 * operator runs it, against boot-worker, watcher and state started by `kpm services up`. The
 * services run under a KPM_HOME, topic prefix, label domain and ports of this file's own, so
 * nothing here touches another suite's (or the operator's) services, topics or pods.
 */
import { eventually } from '@kpm/common';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { CommandCompleted, ProcessInstance, ProcessTerminated } from '@kpm/contracts';
import { topicSpecs } from '@kpm/contracts';
import { ensureServiceBuilt } from '@kpm/stack';
import { freePort } from '../support/service-process';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';

jest.setTimeout(300_000);

const ROOT = join(__dirname, '..', '..');
const suffix = randomBytes(3).toString('hex');
const prefix = uniqueTopicPrefix('cli');
const session = `cli-${suffix}`;
const home = mkdtempSync(join(tmpdir(), 'kpm-cli-home-'));
const env: Record<string, string> = {
  KPM_HOME: home,
  KPM_TOPIC_PREFIX: prefix,
  KPM_LABEL_DOMAIN: `cli-${suffix}.test.daq`,
  KPM_USER: 'operator',
  KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
  NO_COLOR: '1',
};

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npx kpm …` as a child process with this suite's environment. */
function kpm(...args: string[]): Promise<Run> {
  return kpmWith({}, ...args);
}

function kpmWith(extraEnv: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'kpm.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

/** Runs kpm and parses its JSON output, failing with both streams when the exit code differs. */
async function kpmJson<T>(expectedCode: number, ...args: string[]): Promise<T> {
  const run = await kpm(...args, '--json');
  if (run.code !== expectedCode) {
    throw new Error(`kpm ${args.join(' ')} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  }
  return JSON.parse(run.stdout) as T;
}

const sessionFile = (name: string, lines: string[]) => {
  const file = join(home, name);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
};

/** A four-process tree; `app-2` fails on its own with exit code 3 after 1.5 s. */
const TREE = sessionFile('tree.yaml', [
  `session: ${session}`,
  'defaults:',
  '  image: kpm.invalid/daq-app:1.0',
  '  executableAndArguments: [{exec: daq_application}]',
  'processes:',
  '  - name: root',
  '    treeId: 0',
  '    executableAndArguments: [{exec: drunc-controller}]',
  '    annotations: {sim.kpm.daq/graceful: "true"}',
  '  - name: segment',
  '    treeId: 0.1',
  '    executableAndArguments: [{exec: drunc-controller}]',
  '    annotations: {sim.kpm.daq/graceful: "true"}',
  '  - name: app-1',
  '    treeId: 0.1.1',
  '    executableAndArguments: [{exec: daq_application, args: [--name, app-1]}]',
  '  - name: app-2',
  '    treeId: 0.1.2',
  '    executableAndArguments: [{exec: daq_application, args: [--name, app-2]}]',
  '    annotations: {sim.kpm.daq/exit-code: "3", sim.kpm.daq/run-ms: "1500"}',
]);

const byName = (processes: ProcessInstance[]) =>
  Object.fromEntries(processes.map((p) => [p.description.metadata.name, p]));

describe('kpm CLI on the real stack', () => {
  beforeAll(async () => {
    const { brokers, kubeconfig } = stackEnv();
    writeFileSync(
      join(home, 'stack.env'),
      `KPM_KAFKA_BROKERS=${brokers.join(',')}\nKUBECONFIG=${kubeconfig ?? ''}\n`,
    );
    env.KPM_STATE_PORT = String(await freePort());
    env.KPM_BOOT_WORKER_PORT = String(await freePort());
    env.KPM_WATCHER_PORT = String(await freePort());
    env.KPM_DRUNC_GATEWAY_HTTP_PORT = String(await freePort());
    env.KPM_DRUNC_GATEWAY_PORT = String(await freePort());
    // Build under the shared lock first, so `services up` below finds the services fresh.
    for (const service of ['boot-worker', 'watcher', 'state', 'drunc-gateway']) {
      await ensureServiceBuilt(service);
    }
    const up = await kpm('services', 'up', '--json');
    if (up.code !== 0) throw new Error(`kpm services up failed:\n${up.stdout}\n${up.stderr}`);
    const status = JSON.parse(up.stdout) as Array<{ service: string; ready: boolean }>;
    expect(status.map((s) => [s.service, s.ready])).toEqual([
      ['boot-worker', true],
      ['watcher', true],
      ['state', true],
      ['drunc-gateway', true],
    ]);
    // drunc's shells find the gateway in the stack's environment.
    expect(readFileSync(join(home, 'stack.env'), 'utf8')).toContain(
      `KPM_DRUNC_GATEWAY=grpc://127.0.0.1:${env.KPM_DRUNC_GATEWAY_PORT}\n`,
    );
  }, 600_000); // a fresh clone builds the four services first

  afterAll(async () => {
    await kpm('terminate', '--session', session, '--wait');
    await kpm('terminate', '--session', `${session}-slow`, '--wait');
    const down = await kpm('services', 'down');
    expect(readFileSync(join(home, 'stack.env'), 'utf8')).not.toContain('KPM_DRUNC_GATEWAY=');
    const kafka = new Kafka({ brokers: stackEnv().brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin
      .deleteTopics({ topics: topicSpecs({ prefix }).map((t) => t.topic) })
      .catch(() => {});
    await admin.disconnect();
    rmSync(home, { recursive: true, force: true });
    expect(down.code).toBe(0);
  });

  it('boot --wait prints the booted tree and exits 0', async () => {
    const run = await kpm('boot', '-f', TREE, '--wait');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^boot \\S+ succeeded in [\\d.]+ s \\(session ${session}\\)`),
    );
    for (const name of ['root', 'segment', 'app-1', 'app-2']) expect(run.stdout).toContain(name);
    expect(run.stdout).not.toContain('\x1b['); // not a terminal: no colour, no progress bar
  });

  it('ps shows the process that failed on its own with its exit code', async () => {
    await eventually(
      async () => {
        const app2 = byName(await kpmJson<ProcessInstance[]>(0, 'ps', '--session', session))[
          'app-2'
        ];
        expect(app2).toMatchObject({ statusCode: 'DEAD', returnCode: 3, reason: 'Error' });
      },
      { what: 'app-2 DEAD with 3', timeoutMs: 60_000 },
    );
    const table = await kpm('ps', '--session', session);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/app-2\s*│ 0\.1\.2 │ application\s*│ DEAD\s*│ 3\s*│ Error/);
    expect(table.stdout).toMatch(/root\s*│ 0\s*│ root-controller\s*│ RUNNING/);
  });

  it("ps --live asks the cluster for each pod (drunc's is_alive) with the operator's kubeconfig", async () => {
    type Live = ProcessInstance & { live: { alive: boolean; phase: string } };
    const rows = byName(await kpmJson<Live[]>(0, 'ps', '--session', session, '--live')) as Record<
      string,
      Live
    >;
    expect(rows.root.live).toEqual({ alive: true, phase: 'Running' });
    expect(rows['app-2']).toMatchObject({
      statusCode: 'DEAD',
      live: { alive: false, phase: 'Failed' },
    });
    const table = await kpm('ps', '--session', session, '--live');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/root\s*│ 0\s*│ root-controller\s*│ RUNNING\s*│ Running/);
    expect(table.stdout).toMatch(/app-2\s*│ 0\.1\.2 │ application\s*│ DEAD\s*│ Failed\s*│ 3/);
  });

  it('logs --uuid answers for one process', async () => {
    const { uuid } = byName(await kpmJson<ProcessInstance[]>(0, 'ps', '--session', session))[
      'app-1'
    ];
    const logs = await kpmJson<Array<{ uuid: string; lines: string[] }>>(
      0,
      'logs',
      '--uuid',
      uuid,
      '--tail',
      '5',
    );
    expect(logs).toEqual([{ uuid, lines: expect.any(Array) }]);
    expect((await kpm('logs', '--uuid', uuid)).code).toBe(0);
  });

  it('restart --wait boots the process again under the same uuid', async () => {
    const before = byName(await kpmJson<ProcessInstance[]>(0, 'ps', '--session', session))['app-1'];
    const completion = await kpmJson<CommandCompleted>(
      0,
      'restart',
      '--uuid',
      before.uuid,
      '--wait',
    );
    expect(completion).toMatchObject({
      status: 'succeeded',
      commandType: 'daq.kpm.command.restart.v1',
    });
    const after = byName(await kpmJson<ProcessInstance[]>(0, 'ps', '--session', session))['app-1'];
    expect(after).toMatchObject({ uuid: before.uuid, statusCode: 'RUNNING' });
    expect(after.podUid).not.toBe(before.podUid);
  });

  it('kill --name --wait kills only the matching processes, with SIGTERM exit codes', async () => {
    const completion = await kpmJson<CommandCompleted>(
      0,
      'kill',
      '--session',
      session,
      '--name',
      '^app-1$',
      '--wait',
    );
    expect(completion.status).toBe('succeeded');
    expect(completion.processes.map((p) => [p.description.metadata.name, p.returnCode])).toEqual([
      ['app-1', 143],
    ]);
    const running = (await kpmJson<ProcessInstance[]>(0, 'ps', '--session', session))
      .filter((p) => p.statusCode === 'RUNNING')
      .map((p) => p.description.metadata.name)
      .sort();
    expect(running).toEqual(['root', 'segment']);
  });

  it("refuses another user's terminate with exit 1, naming the field", async () => {
    const run = await kpm('terminate', '--session', session, '--as', 'intruder', '--wait');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^kpm: terminate command \S+ \(session \S+\) was rejected: session: /,
    );
    expect(run.stderr).toContain('"operator"');
  });

  it('terminate --wait ends the rest in shutdown order and reports every exit code', async () => {
    const completion = await kpmJson<CommandCompleted>(
      0,
      'terminate',
      '--session',
      session,
      '--wait',
    );
    expect(completion.status).toBe('succeeded');
    const exits = Object.fromEntries(
      completion.processes.map((p) => [p.description.metadata.name, p.returnCode]),
    );
    expect(exits).toMatchObject({ root: 0, segment: 0 });
    // tail replays the session's terminations: the segment controller ended before the root.
    const tail = await kpm(
      'tail',
      '--session',
      session,
      '--topic',
      'terminations',
      '--from-beginning',
      '--count',
      '5',
      '--json',
    );
    expect(tail.code).toBe(0);
    const ended = tail.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { data: ProcessTerminated }).data);
    const order = ended.map((t) => t.name);
    expect(order.indexOf('segment')).toBeLessThan(order.indexOf('root'));
    expect(ended.find((t) => t.name === 'app-2')?.exitCode).toBe(3);
  });

  it('flush without --session forgets the DEAD processes of every session', async () => {
    const flushed = await kpmJson<CommandCompleted[]>(0, 'flush');
    const ours = flushed.find((c) => c.session === session);
    expect(ours?.processes.map((p) => p.description.metadata.name).sort()).toEqual([
      'app-1',
      'app-2',
      'root',
      'segment',
    ]);
    expect(await kpmJson<ProcessInstance[]>(0, 'ps', '--session', session)).toEqual([]);
  });

  it('kill that outlives its --timeout exits 3 with the pending process', async () => {
    const slow = sessionFile('slow.yaml', [
      `session: ${session}-slow`,
      'processes:',
      '  - name: stubborn',
      '    treeId: 0.1.1',
      '    image: kpm.invalid/daq-app:1.0',
      '    executableAndArguments: [{exec: daq_application}]',
      '    annotations: {sim.kpm.daq/stop-ms: "20000"}',
    ]);
    expect((await kpm('boot', '-f', slow, '--wait')).code).toBe(0);
    const run = await kpm(
      'kill',
      '--session',
      `${session}-slow`,
      '--grace',
      '60',
      '--timeout',
      '2',
      '--wait',
    );
    expect(run.stderr).toMatch(/timed out: 1 process\(es\) still pending \([0-9a-f-]{36}\)/);
    expect(run.code).toBe(3);
  });

  it('a session file the contract refuses exits 1 with file:line:column and field', async () => {
    const bad = sessionFile('bad.yaml', [
      `session: ${session}-bad`,
      'processes:',
      '  - name: ok-one',
      '    executableAndArguments: [{exec: x}]',
      '  - name: Not OK',
      '    executableAndArguments: [{exec: x}]',
      '    envv: {A: b}',
    ]);
    const run = await kpm('boot', '-f', bad, '--wait');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `${bad}:5:11: processes[1].name: must be a process name of 1 to 253 characters`,
    );
    expect(run.stderr).toContain(`${bad}:7:5: processes[1].envv: is not a known field`);
  });

  it('a boot the services refuse exits 1 with their reason', async () => {
    const foreign = sessionFile('foreign.yaml', [
      `session: ${session}-foreign`,
      'processes:',
      '  - name: app',
      '    image: docker.io/library/busybox:latest',
      '    executableAndArguments: [{exec: sleep, args: [infinity]}]',
    ]);
    const run = await kpm('boot', '-f', foreign, '--wait');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^kpm: boot command \S+ \(session \S+-foreign\) was rejected: processes\[0\]\.image: /,
    );
  });

  it('bad flags exit 2 with the flag named', async () => {
    const grace = await kpm('kill', '--session', session, '--grace', 'later');
    expect(grace.code).toBe(2);
    expect(grace.stderr).toContain("option '--grace <seconds>' argument 'later' is invalid");
    const name = await kpm('kill', '--session', session, '--name', '(a)\\1');
    expect(name.code).toBe(2);
    expect(name.stderr).toMatch(/^kpm: kill: --name: regular expression/);
    const missing = await kpm('restart');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'kpm: restart: say what to restart: --uuid U (repeatable) or --session S with --name RE',
    );
  });

  it('says so when the broker cannot be reached, exit 1', async () => {
    const run = await kpmWith({ KPM_KAFKA_BROKERS: '127.0.0.1:1' }, 'ps');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^kpm: cannot reach Kafka at 127\.0\.0\.1:1 \(.*ECONNREFUSED.*\); is the stack up\? npx kpm stack up/,
    );
  });
});
