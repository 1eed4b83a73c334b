/**
 * `npm run bench:soak`: kpm over time. Several sessions are booted, restarted, killed and
 * flushed over and over (with ps and logs between) at a stated command rate, on the stack's
 * simulated nodes, for `--minutes` (default 30). Every minute: each service's RSS and V8 heap
 * (in use, reserved, and the Buffers outside it),
 * the command latency and the termination lag percentiles. At the end every session is
 * terminated and the ledger checked: every command exactly one completion, every pod exactly one
 * termination.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import { delay, eventually } from '@kpm/common';
import { PodLab } from '../../test/support/kpm-pods';
import { stackEnv, uniqueTopicPrefix } from '../../test/support/stack-env';
import { ensureTopics } from '../../test/support/watcher-env';
import { machine, releaseSessions } from '../e2e/bench-env';
import { KpmServices } from '../e2e/kpm-services';
import { toSvg } from '../e2e/plots';
import { Ledger } from './ledger';
import { SoakPods } from './pod-watch';
import {
  checkTable,
  driftTable,
  minuteOf,
  memoryTable,
  minuteTable,
  soakPlot,
  type CommandSample,
  type SoakCheck,
  type SoakMinute,
} from './soak-report';

interface Options {
  minutes: number;
  sessions: number;
  processes: number;
  /** Commands per second over all sessions (an upper bound: each session waits for its last). */
  rate: number;
  out: string;
}

const USAGE =
  'usage: npm run bench:soak -- [--minutes 30] [--sessions 4] [--processes 20] [--rate 2] [--out dir]';

function parseOptions(argv: string[]): Options {
  const options = {
    minutes: 30,
    sessions: 4,
    processes: 20,
    rate: 2,
    out: join(__dirname, '..', 'results'),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    const key = flag?.replace(/^--/, '') as keyof Options;
    if (key === 'out' && value) options.out = value;
    else if (key in options && key !== 'out' && value && /^\d+(\.\d+)?$/.test(value))
      options[key] = Number(value);
    else throw new Error(`bench:soak: bad argument ${flag} ${value ?? ''}\n${USAGE}`);
  }
  return options;
}

const log = (message: string): void => console.log(`[bench:soak] ${message}`);

/** Sends commands no faster than `rate` a second, in all, and records how each went. */
class Pacer {
  readonly samples: CommandSample[] = [];
  private nextAtMs = Date.now();

  constructor(private readonly rate: number) {}

  async run(type: string, command: () => Promise<unknown>): Promise<void> {
    const slot = this.nextAtMs;
    this.nextAtMs = Math.max(Date.now(), slot) + 1000 / this.rate;
    await delay(Math.max(0, slot - Date.now()));
    const started = performance.now();
    let ok = true;
    try {
      await command();
    } catch (error) {
      ok = false;
      if (!/logs/.test(type)) log(`  ${type}: ${(error as Error).message.slice(0, 200)}`);
    }
    this.samples.push({ type, endedAtMs: Date.now(), ms: performance.now() - started, ok });
  }
}

/** One session's cycle: boot, ps, logs, restart one, kill all, flush; new names every cycle. */
async function cycle(
  client: ProcessManagerClient,
  pacer: Pacer,
  session: string,
  round: number,
  size: number,
): Promise<void> {
  const name = (i: number) => `ru-c${round}-${String(i).padStart(3, '0')}`;
  const processes = Array.from({ length: size }, (_, i) => ({
    name: name(i),
    treeId: `1.1.${i}`,
    executableAndArguments: [{ exec: 'daq_application', args: ['--name', name(i)] }],
  }));
  const wait = { wait: true };
  await pacer.run('boot', () => client.boot({ session, user: 'bench', processes }, wait));
  await pacer.run('ps', () => client.ps({ session }));
  await pacer.run('logs', () =>
    client.logs({ session, names: [`^${name(0)}$`] }, { tailLines: 20 }),
  );
  await pacer.run('restart', () => client.restart({ session, names: [`^${name(1)}$`] }, wait));
  await pacer.run('kill', () => client.kill({ query: { session } }, wait));
  await pacer.run('flush', () => client.flush({ session }, wait));
}

/** Each minute: the memory now, and the latency and lag of what ended during that minute. */
class Minutes {
  private readonly memory = new Map<number, Pick<SoakMinute, 'rssMb' | 'heapMb' | 'memory'>>();
  private readonly startMs = Date.now();

  constructor(
    private readonly services: KpmServices,
    private readonly pacer: Pacer,
    private readonly ledger: Ledger,
    private readonly pods: SoakPods,
  ) {}

  private within(atMs: number, minute: number): boolean {
    return atMs >= this.startMs + (minute - 1) * 60_000 && atMs < this.startMs + minute * 60_000;
  }

  /** The memory now, at the end of `minute`. */
  async sample(minute: number): Promise<void> {
    const rssMb = this.services.rss();
    const memory = await this.services.memoryParts();
    const heapMb = Object.fromEntries(
      Object.entries(memory).map(([service, parts]) => [service, parts.heapUsedMb]),
    );
    this.memory.set(minute, { rssMb, heapMb, memory });
    log(`minute ${minute}: ${JSON.stringify(this.memory.get(minute))}`);
  }

  /** Every sampled minute with the latency and lag of what ended in it (once all has arrived). */
  rows(): SoakMinute[] {
    return [...this.memory].map(([minute, memory]) => {
      const samples = this.pacer.samples.filter((s) => this.within(s.endedAtMs, minute));
      const lags: number[] = [];
      for (const [uid, endedAtMs] of this.pods.endedAtMs) {
        const recorded = this.ledger.terminations.get(uid);
        if (recorded && this.within(endedAtMs, minute)) lags.push(recorded.atMs - endedAtMs);
      }
      return { ...minuteOf(minute, samples, lags), ...memory };
    });
  }
}

/** Every command of the ledger one completion, every pod seen one termination. */
function check(ledger: Ledger, pods: SoakPods): SoakCheck {
  const commands = [...ledger.commands.keys()];
  const uids = [...pods.seen];
  return {
    commands: commands.length,
    missing: commands.filter((id) => !ledger.completions.has(id)),
    duplicated: commands.filter((id) => (ledger.completions.get(id) ?? 0) > 1),
    pods: uids.length,
    podsWithoutTermination: uids.filter((uid) => !ledger.terminations.has(uid)),
    podsWithSeveralTerminations: uids.filter((uid) => ledger.terminations.get(uid)!.count > 1),
  };
}

interface Soak {
  client: ProcessManagerClient;
  pacer: Pacer;
  sessions: string[];
  ledger: Ledger;
  pods: SoakPods;
}

/** Cycles every session until the time is up, then terminates them and waits for the ledger. */
async function drive(soak: Soak, options: Options, minutes: Minutes): Promise<void> {
  const endAtMs = Date.now() + options.minutes * 60_000;
  let minute = 0;
  const sampler = setInterval(() => void minutes.sample(++minute), 60_000);
  try {
    await Promise.all(
      soak.sessions.map(async (session) => {
        for (let round = 0; Date.now() < endAtMs; round++) {
          await cycle(soak.client, soak.pacer, session, round, options.processes);
        }
      }),
    );
  } finally {
    clearInterval(sampler);
  }
  for (const session of soak.sessions) {
    await soak.pacer.run('terminate', () =>
      soak.client.terminate({ session, user: 'bench' }, { wait: true }),
    );
  }
  await eventually(
    () =>
      check(soak.ledger, soak.pods).missing.length === 0 &&
      [...soak.pods.seen].every((uid) => soak.ledger.terminations.has(uid)),
    { what: 'every completion and termination on Kafka', timeoutMs: 120_000, everyMs: 1000 },
  ).catch(() => log('not every completion or termination arrived within 120 s (see the check)'));
}

async function report(minutes: SoakMinute[], result: SoakCheck, options: Options): Promise<void> {
  const text = [
    `# Soak (${machine()}; ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')})`,
    `${options.minutes} minutes, ${options.sessions} sessions of ${options.processes} processes, at most ${options.rate} commands/s`,
    `## Minute by minute\n\n${minuteTable(minutes)}`,
    `## Drift\n\n${driftTable(minutes)}`,
    `## Where the memory went\n\n${memoryTable(minutes)}`,
    `## Nothing lost\n\n${checkTable(result)}`,
  ]
    .join('\n\n')
    .trimEnd();
  mkdirSync(options.out, { recursive: true });
  writeFileSync(
    join(options.out, 'soak.json'),
    // Where it was written is no part of the result (and names a path of this machine).
    `${JSON.stringify({ options: { ...options, out: undefined }, minutes, check: result }, null, 2)}\n`,
  );
  writeFileSync(join(options.out, 'soak.md'), `${text}\n`); // as Prettier writes it
  writeFileSync(join(options.out, 'soak.svg'), await toSvg(soakPlot(minutes)));
  console.log(`\n${text}`);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const { brokers } = stackEnv();
  const runId = `soak-${randomBytes(3).toString('hex')}`;
  const lab = await PodLab.open(runId);
  const prefix = uniqueTopicPrefix('soak');
  await ensureTopics(prefix);
  const ledger = await new Ledger(brokers, prefix).start();
  const pods = await new SoakPods(lab.kubeconfig, lab.labels.creatorSelector()).start();
  const services = new KpmServices(prefix, lab.domain);
  const client = connectProcessManager({ brokers, topicPrefix: prefix, user: 'bench' });
  const sessions = Array.from({ length: options.sessions }, (_, i) => `${runId}-s${i}`);
  try {
    await services.start(log);
    log(`services up; idle RSS ${JSON.stringify(services.rss())}`);
    const pacer = new Pacer(options.rate);
    const minutes = new Minutes(services, pacer, ledger, pods);
    await drive({ client, pacer, sessions, ledger, pods }, options, minutes);
    await report(minutes.rows(), check(ledger, pods), options);
  } finally {
    await client.close();
    await releaseSessions(lab, sessions);
    await services.stop();
    pods.stop();
    await ledger.stop();
    await lab.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
