/**
 * One valid example event of every type, built with the public API: tests of every service
 * start from these, the README's `examples/records/` are taken from them, and the staleness of
 * neither can go unnoticed because the contract tests parse them all.
 */
import { buildEvent, eventSource } from './build';
import {
  BroadcastEventType,
  CommandType,
  CompletionType,
  DeadLetterType,
  ProcessEventType,
  ProcessTableType,
  TerminationType,
  type EventType,
} from './event-types';
import type { ProcessInstance } from './facts/process-instance';
import { deadLetterEventId, eventId, processUuid, terminationEventId } from './ids';
import { broadcastText } from './outcomes/broadcast';
import type { KpmEvent } from './registry';
import type { PublicTopicId } from './topics';

const SESSION = 'session-a';
const USER = 'alice';
const TIME = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T10:05:00.000Z';
const CLI = '/kpm/cli/host1';
/** The id of the example boot command, which the example facts and outcomes answer. */
const EXAMPLE_COMMAND_ID = eventId('example', 'boot');
const UUID = processUuid(EXAMPLE_COMMAND_ID, 0);
const POD_UID = '5d0c3a4e-1f2b-4c3d-8e9f-0a1b2c3d4e5f';

const instance: ProcessInstance = {
  uuid: UUID,
  description: {
    metadata: { user: USER, session: SESSION, name: 'ru-01', treeId: '1.1.1', hostname: 'node-1' },
    env: { DUNEDAQ_PARTITION: SESSION },
    executableAndArguments: [
      { exec: 'source', args: ['/opt/daq/env.sh'] },
      { exec: 'daq_application', args: ['--name', 'ru-01'] },
    ],
    executionDirectory: '/opt/daq',
    logsPath: '/var/log/daq',
  },
  restriction: { allowedHosts: ['node-1'] },
  statusCode: 'RUNNING',
  namespace: SESSION,
  podName: 'ru-01',
  podUid: POD_UID,
  nodeName: 'node-1',
  role: 'application',
  bootedAt: TIME,
};
const dead: ProcessInstance = {
  ...instance,
  statusCode: 'DEAD',
  returnCode: 143,
  reason: 'Error',
  terminatedAt: LATER,
};

const query = { session: SESSION, names: ['^ru-'] };
const source = (service: string) => eventSource(service, 'host1');
const termination = {
  uuid: UUID,
  session: SESSION,
  name: 'ru-01',
  user: USER,
  exitCode: 143,
  reason: 'Error',
};

export const EXAMPLE_EVENTS: { readonly [K in EventType]: KpmEvent<K> } = {
  [CommandType.boot]: buildEvent({
    type: CommandType.boot,
    id: EXAMPLE_COMMAND_ID,
    source: CLI,
    subject: SESSION,
    time: TIME,
    data: {
      session: SESSION,
      user: USER,
      processes: [
        {
          name: 'ru-01',
          treeId: '1.1.1',
          image: 'ghcr.io/dune-daq/daq-application:v5',
          executableAndArguments: instance.description.executableAndArguments,
          env: instance.description.env,
          executionDirectory: '/opt/daq',
          logsPath: '/var/log/daq',
          restriction: { allowedHosts: ['node-1'], dataMount: '/data' },
          labels: { detector: 'np04' },
          resources: { requests: { cpu: '500m', memory: '1Gi' } },
          uid: 1000,
          gid: 1000,
        },
      ],
    },
  }),
  [CommandType.kill]: buildEvent({
    type: CommandType.kill,
    id: eventId('example', 'kill'),
    source: CLI,
    subject: SESSION,
    time: TIME,
    data: { query, user: USER, gracePeriodSeconds: 30, timeoutSeconds: 60 },
  }),
  [CommandType.terminate]: buildEvent({
    type: CommandType.terminate,
    id: eventId('example', 'terminate'),
    source: CLI,
    subject: SESSION,
    time: TIME,
    data: { session: SESSION, user: USER, gracePeriodSeconds: 30 },
  }),
  [CommandType.restart]: buildEvent({
    type: CommandType.restart,
    id: eventId('example', 'restart'),
    source: CLI,
    subject: SESSION,
    time: TIME,
    data: { query: { session: SESSION, uuids: [UUID] }, user: USER },
  }),
  [CommandType.flush]: buildEvent({
    type: CommandType.flush,
    id: eventId('example', 'flush'),
    source: CLI,
    subject: SESSION,
    time: TIME,
    data: { query: { session: SESSION }, user: USER },
  }),
  [CommandType.ps]: buildEvent({
    type: CommandType.ps,
    id: eventId('example', 'ps'),
    source: CLI,
    subject: SESSION,
    time: TIME,
    data: { query: { session: SESSION, user: USER } },
  }),
  [CommandType.logs]: buildEvent({
    type: CommandType.logs,
    id: eventId('example', 'logs'),
    source: CLI,
    subject: SESSION,
    time: TIME,
    data: { query: { session: SESSION, names: ['^ru-01$'] }, user: USER, tailLines: 50 },
  }),
  [ProcessEventType.bootAccepted]: buildEvent({
    type: ProcessEventType.bootAccepted,
    id: eventId('boot.accepted', EXAMPLE_COMMAND_ID),
    source: source('boot-worker'),
    subject: SESSION,
    time: TIME,
    data: {
      commandId: EXAMPLE_COMMAND_ID,
      session: SESSION,
      user: USER,
      processes: [{ uuid: UUID, name: 'ru-01', treeId: '1.1.1', role: 'application' }],
    },
  }),
  [ProcessEventType.processBooted]: buildEvent({
    type: ProcessEventType.processBooted,
    id: eventId('process.booted', EXAMPLE_COMMAND_ID, UUID),
    source: source('boot-worker'),
    subject: SESSION,
    time: TIME,
    data: { commandId: EXAMPLE_COMMAND_ID, process: instance },
  }),
  [ProcessEventType.processBootFailed]: buildEvent({
    type: ProcessEventType.processBootFailed,
    id: eventId('process.boot-failed', EXAMPLE_COMMAND_ID, UUID),
    source: source('boot-worker'),
    subject: SESSION,
    time: TIME,
    data: {
      commandId: EXAMPLE_COMMAND_ID,
      uuid: UUID,
      name: 'ru-01',
      session: SESSION,
      error: { code: 'NodeNotReady', message: 'node "node-1" is not Ready' },
    },
  }),
  [ProcessEventType.killAccepted]: buildEvent({
    type: ProcessEventType.killAccepted,
    id: eventId('kill.accepted', 'example-kill'),
    source: source('boot-worker'),
    subject: SESSION,
    time: TIME,
    data: {
      commandId: eventId('example', 'kill'),
      kind: 'kill',
      session: SESSION,
      stages: [[UUID]],
      podUids: { [UUID]: POD_UID },
      gracePeriodSeconds: 30,
      timeoutSeconds: 60,
      progressTimeoutSeconds: 60,
    },
  }),
  [ProcessEventType.logsFetched]: buildEvent({
    type: ProcessEventType.logsFetched,
    id: eventId('logs.fetched', 'example-logs'),
    source: source('boot-worker'),
    subject: SESSION,
    time: TIME,
    data: { commandId: eventId('example', 'logs'), uuid: UUID, lines: ['starting ru-01', 'ready'] },
  }),
  [ProcessEventType.commandRejected]: buildEvent({
    type: ProcessEventType.commandRejected,
    id: eventId('command.rejected', 'example-bad'),
    source: source('boot-worker'),
    subject: SESSION,
    time: TIME,
    data: {
      commandId: 'example-bad',
      commandType: CommandType.boot,
      errors: [
        { path: 'processes[1].name', message: 'duplicate name "ru-01" (also processes[0])' },
      ],
    },
  }),
  [TerminationType.processTerminated]: buildEvent({
    type: TerminationType.processTerminated,
    id: terminationEventId(POD_UID),
    source: source('watcher'),
    subject: SESSION,
    time: LATER,
    data: {
      ...termination,
      namespace: SESSION,
      podName: 'ru-01',
      podUid: POD_UID,
      signal: 15,
      phase: 'Failed',
      failure: { containerName: 'ru-01', containerType: 'main', containerReason: 'Error' },
      startedAt: TIME,
      finishedAt: LATER,
      observedAt: LATER,
      detectedBy: 'watch',
    },
  }),
  [CompletionType.commandCompleted]: buildEvent({
    type: CompletionType.commandCompleted,
    id: eventId('completion', EXAMPLE_COMMAND_ID),
    source: source('state'),
    subject: SESSION,
    time: TIME,
    data: {
      commandId: EXAMPLE_COMMAND_ID,
      commandType: CommandType.boot,
      session: SESSION,
      status: 'succeeded',
      processes: [instance],
      acceptedAt: TIME,
      completedAt: TIME,
      durationMs: 850,
    },
  }),
  [BroadcastEventType.broadcast]: buildEvent({
    type: BroadcastEventType.broadcast,
    id: eventId('broadcast', 'termination', POD_UID),
    source: source('state'),
    subject: SESSION,
    time: LATER,
    data: {
      emitter: { service: 'state', instance: 'host1:4242', session: SESSION },
      broadcastType: 'SUBPROCESS_STATUS_UPDATE',
      text: broadcastText.termination(termination),
      data: { uuid: UUID, exitCode: 143 },
    },
  }),
  [ProcessTableType.processInstance]: buildEvent({
    type: ProcessTableType.processInstance,
    id: eventId('process.instance', UUID, POD_UID, 'DEAD'),
    source: source('state'),
    subject: SESSION,
    time: LATER,
    data: dead,
  }),
  [DeadLetterType.deadLetter]: buildEvent({
    type: DeadLetterType.deadLetter,
    id: deadLetterEventId('kpm.commands', 3, '1042'),
    source: source('boot-worker'),
    subject: SESSION,
    time: LATER,
    data: {
      reason: 'not UTF-8 JSON: Unexpected token \'h\', "hello" is not valid JSON',
      source: { topic: 'kpm.commands', partition: 3, offset: '1042' },
      consumerGroup: 'kpm-boot-worker',
      key: SESSION,
      valueBase64: Buffer.from('hello').toString('base64'),
      valueBytes: 5,
      valueSha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
      headers: {},
    },
  }),
};

/** The example of each topic written to `examples/records/<topic>.json` for the README. */
export const EXAMPLE_RECORD_TYPES: Readonly<Record<PublicTopicId, EventType>> = {
  commands: CommandType.boot,
  'process-events': ProcessEventType.processBooted,
  terminations: TerminationType.processTerminated,
  completions: CompletionType.commandCompleted,
  broadcast: BroadcastEventType.broadcast,
  processes: ProcessTableType.processInstance,
  'dead-letters': DeadLetterType.deadLetter,
};
