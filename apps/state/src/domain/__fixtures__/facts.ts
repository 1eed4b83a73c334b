/** Builders of the facts the state service reads, for its unit tests. */
import {
  buildEvent,
  CommandType,
  eventId,
  ProcessEventType,
  TerminationType,
  type KillKind,
  type KpmEvent,
  type ProcessInstance,
  type ProcessQuery,
} from '@kpm/contracts';

export const SESSION = 'run-42';
const SOURCE = '/kpm/test';
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

/** A stable uuid for a short name, so failures read well. */
export const uuidOf = (name: string): string => eventId('test-uuid', name);
export const podOf = (name: string, life = 1): string => eventId('test-pod', name, String(life));

export function instance(name: string, life = 1, session = SESSION): ProcessInstance {
  return {
    uuid: uuidOf(name),
    description: {
      metadata: { user: 'daq', session, name, treeId: '1.1.1' },
      env: { RUN: '42' },
      executableAndArguments: [{ exec: 'daq_application', args: ['-n', name] }],
    },
    restriction: { allowedHosts: ['kpm-node-1'] },
    statusCode: 'RUNNING',
    namespace: session,
    podName: name,
    podUid: podOf(name, life),
    nodeName: 'kpm-node-1',
    role: 'application',
    bootedAt: new Date(T0 + life * 1000).toISOString(),
  };
}

export function bootAccepted(commandId: string, names: string[], session = SESSION): KpmEvent {
  return buildEvent({
    id: eventId('accepted', commandId),
    type: ProcessEventType.bootAccepted,
    source: SOURCE,
    subject: session,
    time: new Date(T0),
    data: {
      commandId,
      session,
      user: 'daq',
      processes: names.map((name) => ({
        uuid: uuidOf(name),
        name,
        treeId: '1.1.1',
        role: 'application' as const,
      })),
    },
  });
}

export function booted(commandId: string, name: string, life = 1, session = SESSION): KpmEvent {
  return buildEvent({
    id: eventId('booted', commandId, name, String(life)),
    type: ProcessEventType.processBooted,
    source: SOURCE,
    subject: session,
    time: new Date(T0 + life * 1000),
    data: { commandId, process: instance(name, life, session) },
  });
}

export function bootFailed(commandId: string, name: string): KpmEvent {
  return buildEvent({
    id: eventId('boot-failed', commandId, name),
    type: ProcessEventType.processBootFailed,
    source: SOURCE,
    subject: SESSION,
    data: {
      commandId,
      uuid: uuidOf(name),
      name,
      session: SESSION,
      error: { code: 'PodReadyTimeout', message: 'not Ready within 60 s' },
    },
  });
}

export function killAccepted(
  commandId: string,
  stages: string[][],
  options: {
    kind?: KillKind;
    timeoutSeconds?: number;
    progressTimeoutSeconds?: number;
    at?: number;
    /** The pod the boot-worker found for each name, by its life (`podUids`). */
    pods?: Record<string, number>;
  } = {},
): KpmEvent {
  const pods = Object.entries(options.pods ?? {});
  return buildEvent({
    id: eventId('kill-accepted', commandId),
    type: ProcessEventType.killAccepted,
    source: SOURCE,
    subject: SESSION,
    time: new Date(options.at ?? T0 + 10_000),
    data: {
      commandId,
      kind: options.kind ?? 'kill',
      session: SESSION,
      stages: stages.map((stage) => stage.map(uuidOf)),
      ...(pods.length === 0
        ? {}
        : {
            podUids: Object.fromEntries(pods.map(([n, life]) => [uuidOf(n), podOf(n, life)])),
          }),
      gracePeriodSeconds: 30,
      timeoutSeconds: options.timeoutSeconds ?? 60,
      ...(options.progressTimeoutSeconds === undefined
        ? {}
        : { progressTimeoutSeconds: options.progressTimeoutSeconds }),
    },
  });
}

export function terminated(
  name: string,
  exitCode: number,
  life = 1,
  session = SESSION,
  reason?: string,
): KpmEvent {
  const podUid = podOf(name, life);
  return buildEvent({
    id: eventId('termination', podUid),
    type: TerminationType.processTerminated,
    source: SOURCE,
    subject: session,
    time: new Date(T0 + 20_000),
    data: {
      uuid: uuidOf(name),
      session,
      name,
      user: 'daq',
      namespace: session,
      podName: name,
      podUid,
      exitCode,
      reason: reason ?? (exitCode === 0 ? 'Completed' : 'Error'),
      ...(exitCode > 128 ? { signal: exitCode - 128 } : {}),
      phase: 'Failed',
      observedAt: new Date(T0 + 20_000).toISOString(),
      detectedBy: 'watch',
    },
  });
}

export function command(
  type: typeof CommandType.ps | typeof CommandType.flush,
  id: string,
  query: ProcessQuery,
  page: { limit?: number; cursor?: string } = {},
  /** The acting user of a flush; the fixtures' sessions belong to `daq`. */
  user = 'daq',
): KpmEvent {
  return buildEvent({
    id,
    type,
    source: SOURCE,
    subject: SESSION,
    time: new Date(T0),
    data: type === CommandType.flush ? { query, user } : { query, ...page },
  });
}

export function rejected(commandId: string): KpmEvent {
  return buildEvent({
    id: eventId('rejected', commandId),
    type: ProcessEventType.commandRejected,
    source: SOURCE,
    subject: SESSION,
    data: {
      commandId,
      commandType: CommandType.boot,
      errors: [{ path: 'processes[0].name', message: 'must be a DNS-1123 label' }],
    },
  });
}

export function logsFetched(commandId: string, name: string): KpmEvent {
  return buildEvent({
    id: eventId('logs', commandId),
    type: ProcessEventType.logsFetched,
    source: SOURCE,
    subject: SESSION,
    data: { commandId, uuid: uuidOf(name), lines: ['line 1', 'line 2'] },
  });
}

export const timeOf = (event: KpmEvent): number => Date.parse(event.time ?? '');

/** All orders of `items` (n! of them; keep n small). */
export function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}
