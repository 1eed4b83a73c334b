import { randomUUID } from 'node:crypto';
import {
  buildEvent,
  CommandType,
  encodeEvent,
  eventId,
  ProcessEventType,
  terminationEventId,
  TerminationType,
  type EventType,
  type KpmEvent,
  type ProcessInstance,
} from '@kpm/contracts';

/**
 * Facts as the boot-worker and the watcher write them, for tests of the state service that do
 * not need those services running.
 */
export interface TestProcess {
  uuid: string;
  name: string;
  podUid: string;
  session: string;
}

export function testProcesses(session: string, count: number, stem = 'ru'): TestProcess[] {
  return Array.from({ length: count }, (_, i) => ({
    uuid: randomUUID(),
    name: `${stem}-${String(i + 1).padStart(2, '0')}`,
    podUid: randomUUID(),
    session,
  }));
}

export function record(event: KpmEvent): {
  key: string | null;
  value: Buffer;
  headers: Record<string, string>;
} {
  return encodeEvent(event);
}

const source = '/kpm/test/state';

export function instanceOf(p: TestProcess): ProcessInstance {
  return {
    uuid: p.uuid,
    description: {
      metadata: { user: 'daq', session: p.session, name: p.name, treeId: '1.1.1' },
      env: { RUN: '1' },
      executableAndArguments: [{ exec: 'daq_application', args: ['--name', p.name] }],
    },
    restriction: { allowedHosts: ['kpm-node-1'] },
    statusCode: 'RUNNING',
    namespace: p.session,
    podName: p.name,
    podUid: p.podUid,
    nodeName: 'kpm-node-1',
    role: 'application',
    bootedAt: new Date().toISOString(),
  };
}

export function bootAccepted(
  commandId: string,
  session: string,
  processes: TestProcess[],
): KpmEvent {
  return buildEvent({
    id: eventId('test', 'boot.accepted', commandId),
    type: ProcessEventType.bootAccepted,
    source,
    subject: session,
    data: {
      commandId,
      session,
      user: 'daq',
      processes: processes.map((p) => ({
        uuid: p.uuid,
        name: p.name,
        treeId: '1.1.1',
        role: 'application' as const,
      })),
    },
  });
}

export function processBooted(commandId: string, p: TestProcess): KpmEvent {
  return buildEvent({
    id: eventId('test', 'process.booted', commandId, p.podUid),
    type: ProcessEventType.processBooted,
    source,
    subject: p.session,
    data: { commandId, process: instanceOf(p) },
  });
}

export function killAccepted(
  commandId: string,
  session: string,
  processes: TestProcess[],
  timeoutSeconds = 60,
): KpmEvent {
  return buildEvent({
    id: eventId('test', 'kill.accepted', commandId),
    type: ProcessEventType.killAccepted,
    source,
    subject: session,
    data: {
      commandId,
      kind: 'kill',
      session,
      stages: [processes.map((p) => p.uuid)],
      gracePeriodSeconds: 30,
      timeoutSeconds,
    },
  });
}

export function terminated(p: TestProcess, exitCode: number): KpmEvent {
  return buildEvent({
    id: terminationEventId(p.podUid),
    type: TerminationType.processTerminated,
    source,
    subject: p.session,
    data: {
      uuid: p.uuid,
      session: p.session,
      name: p.name,
      user: 'daq',
      namespace: p.session,
      podName: p.name,
      podUid: p.podUid,
      exitCode,
      reason: exitCode === 0 ? 'Completed' : 'Error',
      ...(exitCode > 128 ? { signal: exitCode - 128 } : {}),
      phase: exitCode === 0 ? 'Succeeded' : 'Failed',
      observedAt: new Date().toISOString(),
      detectedBy: 'watch',
    },
  });
}

export function commandRejected(commandId: string, session: string): KpmEvent {
  return buildEvent({
    id: eventId('test', 'command.rejected', commandId),
    type: ProcessEventType.commandRejected,
    source,
    subject: session,
    data: {
      commandId,
      commandType: CommandType.boot,
      errors: [{ path: 'processes[0].name', message: 'must be a DNS-1123 label' }],
    },
  });
}

export function queryCommand(
  type: EventType & (typeof CommandType.ps | typeof CommandType.flush),
  id: string,
  session: string,
  /** The acting user of a flush; these suites' facts name `daq` as every session's owner. */
  user = 'daq',
): KpmEvent {
  const data = type === CommandType.flush ? { query: { session }, user } : { query: { session } };
  return buildEvent({ id, type, source, subject: session, data });
}
