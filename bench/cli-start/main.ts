/**
 * `npm run bench:cli -- [--n 17] [--rounds 7] [--variant label:KEY=VALUE,…]… [--baseline DIR]`:
 * what the CLI adds around a command, as an operator waits for it. Each round boots a session
 * of N with `kpm boot --wait` and ends it with `kpm terminate --wait`, once per variant (the
 * CLI's environment), the variants alternating so the machine's noise falls on each alike. From
 * the records' CreateTime on Kafka: the CLI's start to its command, the completion to its exit, and
 * the whole CLI minus accepted → completion (the goal: ≤ 300 ms). Default variants: the CLI
 * without its code cache and with it (bin/kpm.js). `--baseline` adds, first, the CLI of another
 * checkout (an older commit, built there with `npm run build`) as it runs there.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ProcessEventType } from '@kpm/contracts';
import { table } from '../harness';
import { openBenchRun, releaseSessions } from '../e2e/bench-env';
import { runCli, sessionFile } from '../e2e/kpm-cli';
import { KpmServices } from '../e2e/kpm-services';
import { cliStartRows, type CliStartSample } from './cli-start-report';

interface Variant {
  label: string;
  env: Record<string, string>;
  /** Another checkout's bin/kpm.js; else this one's. */
  bin?: string;
}

const USAGE =
  'usage: bench:cli [--n N] [--rounds R] [--variant label:KEY=VALUE,…]… [--baseline DIR]';

function parseOptions(argv: string[]): { n: number; rounds: number; variants: Variant[] } {
  const options = { n: 17, rounds: 7, variants: [] as Variant[] };
  let baseline: Variant | undefined;
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--n' && /^[1-9]\d*$/.test(value ?? '')) options.n = Number(value);
    else if (flag === '--rounds' && /^[1-9]\d*$/.test(value ?? '')) options.rounds = Number(value);
    else if (flag === '--variant' && /^[\w-]+:(\w+=[^,]*)(,\w+=[^,]*)*$/.test(value ?? '')) {
      const [label, assignments] = splitAt(value, ':');
      const env = Object.fromEntries(assignments.split(',').map((a) => splitAt(a, '=')));
      options.variants.push({ label, env });
    } else if (flag === '--baseline' && value) {
      const bin = join(value, 'bin', 'kpm.js');
      if (!existsSync(bin)) {
        throw new Error(`bench:cli: --baseline ${value}: no bin/kpm.js there (a kpm checkout?)`);
      }
      baseline = { label: 'baseline', env: {}, bin };
    } else throw new Error(`bench:cli: bad argument ${flag} ${value ?? ''}\n${USAGE}`);
  }
  if (options.variants.length === 0) {
    options.variants = [
      { label: 'no code cache', env: { KPM_CLI_CODE_CACHE: '0' } },
      { label: 'code cache', env: {} },
    ];
  }
  if (baseline) options.variants.unshift(baseline);
  return options;
}

/** `text` around the first `separator`. */
function splitAt(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return [text.slice(0, at), text.slice(at + 1)];
}

const log = (message: string): void => console.log(`[bench:cli] ${message}`);

async function main(): Promise<void> {
  const { n, rounds, variants } = parseOptions(process.argv.slice(2));
  const { runId, lab, prefix, clock } = await openBenchRun('bench-cli', log);
  const services = new KpmServices(prefix, lab.domain);
  const sessions: string[] = [];
  const samples: CliStartSample[] = [];
  try {
    await services.start(log);
    for (let round = 0; round < rounds; round++) {
      for (const [v, variant] of variants.entries()) {
        const session = `${runId}-r${round}v${v}`;
        sessions.push(session);
        const env = { ...variant.env, KPM_TOPIC_PREFIX: prefix };
        for (const [command, args, accepted] of [
          [
            'boot',
            ['boot', '-f', sessionFile(session, n), '--wait'],
            ProcessEventType.bootAccepted,
          ],
          [
            'terminate',
            ['terminate', '--session', session, '--wait'],
            ProcessEventType.killAccepted,
          ],
        ] as const) {
          const cli = await runCli([...args], env, variant.bin);
          if (cli.exitCode !== 0)
            throw new Error(`kpm ${command} exited ${cli.exitCode}: ${cli.stderr}`);
          const fact = await clock.command(session, accepted, 60_000);
          samples.push({
            variant: variant.label,
            command,
            startToCommandMs: fact.moments.commandAtMs! - cli.startedAtMs,
            completionToExitMs: cli.exitedAtMs - fact.moments.completionAtMs,
            beyondCompletionMs: cli.ms - fact.acceptedToCompletionMs,
          });
          log(`${variant.label} ${command} ${JSON.stringify(samples.at(-1))}`);
        }
      }
    }
    console.log(
      `\nThe CLI around a command of ${n} processes, ${rounds} rounds, variants alternating (median, range):\n`,
    );
    console.log(
      table(
        [
          'variant',
          'command',
          'CLI start → command ms',
          'completion → CLI exit ms',
          'CLI − accepted→completion ms',
        ],
        cliStartRows(samples),
      ),
    );
  } finally {
    await releaseSessions(lab, sessions);
    await services.stop();
    await clock.stop();
    await lab.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
