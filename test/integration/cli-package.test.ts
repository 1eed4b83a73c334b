/**
 * The CLI as scripts and other machines use it, against the real services on the local stack:
 * `kpm ps --json` piped into another program delivers all of a listing over 1 MiB, and the CLI
 * packed with `npm pack` and installed into an empty directory (no checkout, no .kpm) lists the
 * processes of a session given only `--brokers` or `KPM_KAFKA_BROKERS`, with its code cache and
 * its tracing.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import { ensureServiceBuilt } from '@kpm/stack/service-build';
import { repoRoot } from '@kpm/stack/paths';
import { KpmTrio } from '../support/kpm-trio';
import { stackEnv } from '../support/stack-env';

jest.setTimeout(600_000);

const MIB = 1024 * 1024;

let h: KpmTrio;
let client: ProcessManagerClient;
let scratch: string;

beforeAll(async () => {
  h = await KpmTrio.start('cli-package');
  client = connectProcessManager({ brokers: stackEnv().brokers, topicPrefix: h.prefix });
  scratch = mkdtempSync(join(tmpdir(), 'kpm-cli-package-'));
}, 180_000);

afterAll(async () => {
  await client?.close();
  await h?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 180_000);

/** Runs a program (through a shell for pipes) and resolves to its exit code and output. */
function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd ?? repoRoot(), env: options.env, maxBuffer: 64 * MIB, timeout: 300_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The environment of a shell outside this checkout: no KPM_HOME, no broker variable. */
function plainEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra, NO_COLOR: '1' };
  delete env.KPM_HOME;
  delete env.KPM_KAFKA_BROKERS;
  return env;
}

/** The names in a `kpm ps --json` listing, sorted. */
function listedNames(json: string): string[] {
  const listed = JSON.parse(json) as Array<{ description: { metadata: { name: string } } }>;
  return listed.map((p) => p.description.metadata.name).sort();
}

async function bootSession(name: string, processCount: number, envBytes: number): Promise<string> {
  const session = h.session(name);
  // Wide environments make a large listing from few processes.
  const env = Object.fromEntries(
    Array.from({ length: Math.ceil(envBytes / 400) }, (_, i) => [
      `DAQ_SETTING_${i}`,
      'x'.repeat(380),
    ]),
  );
  const processes = Array.from({ length: processCount }, (_, i) => ({
    name: `ru-${i}`,
    treeId: `0.1.${i}`,
    executableAndArguments: [{ exec: 'daq_application', args: ['--name', `ru-${i}`] }],
    env,
  }));
  const booted = await client.boot({ session, user: 'alice', processes }, { wait: true });
  expect(booted.completion?.status).toBe('succeeded');
  return session;
}

it('kpm ps --json through a pipe delivers every byte of a listing over 1 MiB', async () => {
  // The boot-worker keeps each description in a pod annotation (at most 256 KiB): many
  // processes with 100 kB environments each.
  const session = await bootSession('pipe', 12, 100_000);
  const env = plainEnv({
    KPM_TOPIC_PREFIX: h.prefix,
    KPM_KAFKA_BROKERS: stackEnv().brokers.join(','),
  });
  const file = join(scratch, 'ps.json');
  const ps = `node bin/kpm.js ps --session ${session} --json`;
  const toFile = await run('sh', ['-c', `${ps} > ${file}`], { env });
  expect(toFile).toMatchObject({ code: 0, stderr: '' });
  const piped = await run('bash', ['-c', `set -o pipefail; ${ps} | wc -c`], { env });
  expect(piped).toMatchObject({ code: 0, stderr: '' });

  const size = statSync(file).size;
  expect(size).toBeGreaterThan(MIB);
  expect(Number(piped.stdout.trim())).toBe(size);
  await client.terminate({ session, user: 'alice' }, { wait: true });
});

it('the packed CLI, installed in an empty directory, runs kpm ps with --brokers or KPM_KAFKA_BROKERS', async () => {
  const session = await bootSession('packed', 2, 0);
  await ensureServiceBuilt('cli');
  // prepack builds dist; built just above, so the pack only collects the files.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', scratch]);
  expect(packed.code).toBe(0);
  const tarball = join(scratch, packed.stdout.trim().split('\n').pop()!);
  const app = join(scratch, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{ "private": true }\n');
  const installed = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball],
    { cwd: app },
  );
  expect(installed).toMatchObject({ code: 0 });
  // The package carries the CLI's one-file bundle, which bin/kpm.js runs outside a checkout.
  const { name } = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as {
    name: string;
  };
  expect(existsSync(join(app, 'node_modules', name, 'dist', 'apps', 'cli', 'kpm.js'))).toBe(true);

  const kpm = join(app, 'node_modules', '.bin', 'kpm');
  const brokers = stackEnv().brokers.join(',');
  const byFlag = await run(kpm, ['ps', '--session', session, '--brokers', brokers], {
    cwd: app,
    env: plainEnv({ KPM_TOPIC_PREFIX: h.prefix }),
  });
  expect(byFlag).toMatchObject({ code: 0, stderr: '' });
  expect(byFlag.stdout).toMatch(/ru-0[\s\S]*ru-1/);

  const byEnv = await run(kpm, ['ps', '--session', session, '--json'], {
    cwd: app,
    env: plainEnv({ KPM_TOPIC_PREFIX: h.prefix, KPM_KAFKA_BROKERS: brokers }),
  });
  expect(byEnv).toMatchObject({ code: 0, stderr: '' });
  expect(listedNames(byEnv.stdout)).toEqual(['ru-0', 'ru-1']);
  const listsBoth = (result: { code: number; stdout: string; stderr: string }) => {
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(listedNames(result.stdout)).toEqual(['ru-0', 'ru-1']);
  };

  // The bundle's code cache: written by the first run of a command, taken by the next; one V8
  // refuses (here: garbage) is compiled afresh and written again, the command unharmed.
  const cacheDir = join(scratch, 'cache');
  const cachedEnv = plainEnv({
    KPM_TOPIC_PREFIX: h.prefix,
    KPM_KAFKA_BROKERS: brokers,
    KPM_CACHE_DIR: cacheDir,
  });
  const psArgs = ['ps', '--session', session, '--json'];
  listsBoth(await run(kpm, psArgs, { cwd: app, env: cachedEnv }));
  const [bundleCache] = readdirSync(join(cacheDir, 'cli-code-cache'));
  const cacheFile = join(cacheDir, 'cli-code-cache', bundleCache, 'ps.v8cache');
  expect(statSync(cacheFile).size).toBeGreaterThan(100_000);
  listsBoth(await run(kpm, psArgs, { cwd: app, env: cachedEnv }));
  writeFileSync(cacheFile, 'not a code cache');
  listsBoth(await run(kpm, psArgs, { cwd: app, env: cachedEnv }));
  expect(statSync(cacheFile).size).toBeGreaterThan(100_000);

  // Tracing from the package: the bundle's OpenTelemetry API and the SDK beside it in
  // node_modules share one tracer provider, so the command's span reaches the exporter.
  const received: string[] = [];
  const otlp = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push(`${request.url} ${body}`);
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => otlp.listen(0, '127.0.0.1', resolve));
  const { port } = otlp.address() as AddressInfo;
  try {
    const traced = await run(kpm, psArgs, {
      cwd: app,
      env: { ...cachedEnv, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
    });
    listsBoth(traced);
  } finally {
    otlp.close();
  }
  // The CLI flushes its spans before it exits: the export is in by now.
  expect(received.some((r) => r.startsWith('/v1/traces ') && r.includes('"kpm ps"'))).toBe(true);
  await client.terminate({ session, user: 'alice' }, { wait: true });
});
