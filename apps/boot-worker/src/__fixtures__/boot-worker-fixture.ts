/**
 * The boot-worker's handlers as production wires them (createHandlers), over a FakeCluster, a
 * list of facts and a VirtualClock: what the handlers' table tests drive.
 */
import type { CloudEvent, EncodedRecord, ProcessSpec } from '@kpm/contracts';
import { loadSettings, type KpmSettings } from '@kpm/config';
import { createHandlers, type BootWorkerHandlers } from '../boot-worker.factory';
import type { CommandContext } from '../commands/command-context';
import { FakeCluster, type FakeClusterOptions } from './fake-cluster';

export const SESSION = 'run-7';
export const USER = 'alice';

export interface Fixture {
  cluster: FakeCluster;
  handlers: BootWorkerHandlers;
  settings: KpmSettings;
  /** Every fact sent, decoded, in order. */
  facts: CloudEvent[];
  /**
   * Holds every send, as a broker slow to acknowledge, until the returned release is called;
   * a send's facts are in `facts` once acknowledged.
   */
  holdFacts(): () => void;
  /** Facts of one type (the short name: `process.booted`, `kill.accepted`, …). */
  factsOf(type: string): CloudEvent<Record<string, unknown>>[];
  /** The context of a command with this id, on SESSION unless told. */
  context(commandId: string, subject?: string, signal?: AbortSignal): CommandContext;
}

/**
 * Settings of the boot-worker under `KPM_*`-style overrides, e.g. `{ KPM_BOOT_CONCURRENCY: '2' }`;
 * USER's processes run as uid and gid 1000 (kpm runs no process of an unmapped user).
 */
export function fixture(
  options: FakeClusterOptions & { env?: Record<string, string> } = {},
): Fixture {
  const cluster = new FakeCluster(options);
  const settings = loadSettings('boot-worker', {
    KPM_INSTANCE: 'test',
    KPM_RUN_AS_USERS: `${USER}:1000:1000`,
    ...options.env,
  });
  const facts: CloudEvent[] = [];
  let held: Promise<void> | undefined;
  const sink = {
    send: async (records: readonly EncodedRecord[]) => {
      if (held) await held;
      facts.push(...records.map((r) => JSON.parse(r.value.toString()) as CloudEvent));
    },
  };
  const handlers = createHandlers(settings, { cluster, sink, clock: cluster.clock });
  return {
    cluster,
    handlers,
    settings,
    facts,
    holdFacts: () => {
      let release = () => {};
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    factsOf: (type) =>
      facts.filter((f) => f.type === `daq.kpm.${type}.v1`) as CloudEvent<Record<string, unknown>>[],
    context: (commandId, subject = SESSION, signal = new AbortController().signal) => ({
      commandId,
      subject,
      heartbeat: () => Promise.resolve(),
      signal,
    }),
  };
}

/** A process spec with drunc's tree id and a DAQ application's command line. */
export function spec(name: string, treeId?: string, extra: Partial<ProcessSpec> = {}): ProcessSpec {
  return { name, treeId, executableAndArguments: [{ exec: 'daq_application' }], ...extra };
}

/** A drunc controller (the root at tree id 0, a segment's at 0.N): drunc-controller runs it. */
export function controller(
  name: string,
  treeId: string,
  extra: Partial<ProcessSpec> = {},
): ProcessSpec {
  return { name, treeId, executableAndArguments: [{ exec: 'drunc-controller' }], ...extra };
}

/** drunc's usual tree: the connection server, the root controller, a segment and two apps. */
export const TREE: ProcessSpec[] = [
  spec('ru-01', '0.1.1'),
  spec('local-connection-server', '2', {
    executableAndArguments: [{ exec: 'gunicorn', args: ['-b', '0.0.0.0:30500'] }],
  }),
  controller('root', '0'),
  controller('seg', '0.1'),
  spec('ru-02', '0.1.2'),
];
