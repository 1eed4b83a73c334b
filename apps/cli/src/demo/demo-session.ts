/**
 * The demo's session, played against running services: boot it, let the process annotated to
 * fail end on its own, terminate the rest in drunc's shutdown order (narrating the stages and
 * each termination as it arrives), and show every exit code.
 */
import { randomUUID } from 'node:crypto';
import {
  ProcessEventType,
  TerminationType,
  type CommandCompleted,
  type KpmEvent,
  type ProcessInstance,
} from '@kpm/contracts';
import { CommandError, type Boot, type ProcessManagerClient } from '@kpm/client';
import type { Colours } from '../output';
import { withProgress } from '../progress/with-progress';
import { formatCompletion } from '../render/completion-view';
import { describeEvent } from '../render/event-line';
import { formatProcessTable } from '../render/process-table';
import { SessionWatch } from './session-watch';

const EXIT_CODE = 'sim.kpm.daq/exit-code';
const RUN_MS = 'sim.kpm.daq/run-ms';
const BOOT_COLUMNS = ['name', 'tree', 'role', 'status', 'node', 'uuid'];
const EXIT_COLUMNS = ['name', 'tree', 'role', 'status', 'exit', 'reason'];

interface DemoSummary {
  session: string;
  boot: CommandCompleted;
  terminate: CommandCompleted;
  processes: ProcessInstance[];
}

/** What each step of the demo works with. */
interface Demo {
  client: ProcessManagerClient;
  boot: Boot;
  colours: Colours;
  step: (text: string) => void;
  watch: SessionWatch;
}

export async function playDemoSession(
  client: ProcessManagerClient,
  boot: Boot,
  colours: Colours,
  step: (text: string) => void,
): Promise<DemoSummary> {
  const { session } = boot;
  const watch = new SessionWatch(
    client.events({ session, topics: ['process-events', 'terminations'] }),
  );
  await watch.ready(); // before booting: nothing the session does can be missed
  const demo: Demo = { client, boot, colours, step, watch };
  try {
    const booted = await bootSession(demo);
    await showFlakyProcessEnd(demo);
    const terminated = await terminateSession(demo, booted);
    const processes = await showExitCodes(demo, terminated);
    return { session, boot: booted, terminate: terminated, processes };
  } finally {
    await watch.close();
  }
}

async function bootSession({ client, boot, colours, step }: Demo): Promise<CommandCompleted> {
  const { session } = boot;
  step(`Boot session "${session}": ${boot.processes.length} processes`);
  const bootId = randomUUID();
  const booted = await withProgress(
    client,
    { commandId: bootId, kind: 'boot', session, total: boot.processes.length },
    () => client.boot(boot, { wait: true, commandId: bootId }),
  );
  console.log(formatCompletion(booted.completion!, colours, BOOT_COLUMNS));
  return booted.completion!;
}

/** The process annotated to fail (if any) ends on its own; the table shows its exit code. */
async function showFlakyProcessEnd({ client, boot, colours, step, watch }: Demo): Promise<void> {
  const flaky = boot.processes.find((p) => p.annotations?.[EXIT_CODE] !== undefined);
  if (!flaky) return;
  const runMs = Number(flaky.annotations?.[RUN_MS] ?? 0);
  step(
    `${flaky.name} exits on its own with code ${flaky.annotations?.[EXIT_CODE]} after ${runMs} ms`,
  );
  const ended = await watch.waitFor(
    (e) => e.type === TerminationType.processTerminated && e.data.name === flaky.name,
    runMs + 60_000,
    `the end of ${flaky.name}`,
  );
  console.log(`  ${describeEvent(ended, colours)}`);
  console.log(
    formatProcessTable(await client.ps({ session: boot.session }), colours, EXIT_COLUMNS),
  );
}

async function terminateSession(demo: Demo, booted: CommandCompleted): Promise<CommandCompleted> {
  const { client, boot, colours, step, watch } = demo;
  step("Terminate the session in drunc's shutdown order");
  const names = new Map(booted.processes.map((p) => [p.uuid, p]));
  const terminateId = randomUUID();
  const started = Date.now();
  watch.onEvent = (event) => narrate(event, terminateId, names, started, colours);
  const terminated = await client
    .terminate({ session: boot.session, user: boot.user }, { wait: true, commandId: terminateId })
    .catch((error: unknown) => {
      if (error instanceof CommandError && error.completion) {
        console.log(formatCompletion(error.completion, colours, EXIT_COLUMNS));
      }
      throw error;
    });
  watch.onEvent = undefined;
  return terminated.completion!;
}

async function showExitCodes(
  { client, boot, colours, step }: Demo,
  terminated: CommandCompleted,
): Promise<ProcessInstance[]> {
  step('Every exit code of the session');
  console.log(formatCompletion(terminated, colours, EXIT_COLUMNS));
  const processes = await client.ps({ session: boot.session });
  const covered = new Set(terminated.processes.map((p) => p.uuid));
  if (processes.some((p) => !covered.has(p.uuid))) {
    console.log(formatProcessTable(processes, colours, EXIT_COLUMNS)); // those it did not target
  }
  return processes;
}

/** The kill plan stage by stage, then each termination as it arrives. */
function narrate(
  event: KpmEvent,
  commandId: string,
  processes: Map<string, ProcessInstance>,
  started: number,
  colours: Colours,
): void {
  if (event.type === ProcessEventType.killAccepted && event.data.commandId === commandId) {
    event.data.stages.forEach((stage, i) => {
      const members = stage.map((uuid) => processes.get(uuid));
      const role = members[0]?.role ?? 'unknown';
      const who = members.map((p, j) => p?.description.metadata.name ?? stage[j]).join(', ');
      console.log(`  stage ${i + 1}  ${colours.bold(role.padEnd(28))} ${who}`);
    });
  } else if (event.type === TerminationType.processTerminated) {
    const elapsed = `+${((Date.now() - started) / 1000).toFixed(1)} s`;
    console.log(`  ${colours.dim(elapsed.padStart(8))}  ${describeEvent(event, colours)}`);
  }
}
