import type { Command } from 'commander';
import type { ProcessInstance } from '@kpm/contracts';
import type { PodLiveness } from '@kpm/kube';
import { cliSettings, withClient } from '../cli-context';
import { outcomeError } from '../command-outcome';
import { addQueryCommandFlags, queryOf, timeoutMs, type QueryCommandFlags } from '../options';
import { coloursFor, printJson } from '../output';
import { formatProcessTable, LIVE_PROCESS_COLUMNS, withLiveness } from '../render/process-table';

interface PsFlags extends QueryCommandFlags {
  live?: boolean;
}

export function registerPsCommand(program: Command): void {
  const command = addQueryCommandFlags(
    program
      .command('ps')
      .description('list processes, RUNNING and DEAD, with exit codes (from the state service)')
      .option(
        '--live',
        "also ask the cluster whether each process's pod is Running (drunc's is_alive), with your kubeconfig",
      ),
  );
  command.addHelpText(
    'after',
    '\nExamples:\n  npx kpm ps\n  npx kpm ps --session run-42 --name controller --json\n  npx kpm ps --session run-42 --live',
  );
  command.action((flags: PsFlags) => ps(flags));
}

async function ps(flags: PsFlags): Promise<void> {
  const processes = await withClient((client) =>
    client.ps(queryOf(flags), { timeoutMs: timeoutMs(flags) }).catch((error: unknown) => {
      throw outcomeError({ command: 'ps', json: flags.json }, error);
    }),
  );
  const colours = coloursFor(process.stdout);
  if (!flags.live) {
    if (flags.json) printJson(processes);
    else console.log(formatProcessTable(processes, colours));
    return;
  }
  const live = await liveness(processes);
  if (flags.json) printJson(processes.map((p) => ({ ...p, live: live.get(p.uuid) })));
  else
    console.log(formatProcessTable(withLiveness(processes, live), colours, LIVE_PROCESS_COLUMNS));
}

/** Loaded only for --live: a plain ps needs no Kubernetes client. */
async function liveness(processes: ProcessInstance[]): Promise<Map<string, PodLiveness>> {
  if (processes.length === 0) return new Map();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const live = require('../live/cluster-liveness') as typeof import('../live/cluster-liveness');
  return live.clusterLiveness(processes, cliSettings());
}
