import {
  buildEvent,
  encodeEvent,
  eventId,
  ProcessTableType,
  processTombstone,
  type ProcessInstance,
} from '@kpm/contracts';
import type { InboundRecord } from '@kpm/kafka';
import { runningPods } from './process-table-sweep';

const uuidOf = (name: string) => eventId('sweep-test', name);

function row(
  name: string,
  statusCode: 'RUNNING' | 'DEAD',
  podUid = `pod-${name}`,
): ProcessInstance {
  return {
    uuid: uuidOf(name),
    description: {
      metadata: { user: 'daq', session: 'run-7', name },
      env: {},
      executableAndArguments: [{ exec: 'daq_application', args: [] }],
    },
    restriction: { allowedHosts: [] },
    statusCode,
    ...(statusCode === 'DEAD' ? { returnCode: 0, reason: 'GracefulShutdown' } : {}),
    namespace: 'run-7',
    podName: name,
    podUid,
    role: 'application',
    bootedAt: '2026-11-22T10:00:00.000Z',
  };
}

let offset = 0;
function record(encoded: { key: string | null; value: Buffer | null }): InboundRecord {
  return {
    topic: 'kpm.processes',
    partition: 0,
    offset: String(offset++),
    key: encoded.key,
    value: encoded.value,
    headers: {},
    timestamp: '0',
  };
}
const rowRecord = (instance: ProcessInstance) =>
  record(
    encodeEvent(
      buildEvent({
        id: eventId('sweep-test-row', instance.uuid, instance.statusCode, instance.podUid),
        type: ProcessTableType.processInstance,
        source: '/kpm/state/test',
        subject: instance.description.metadata.session,
        data: instance,
      }),
    ),
  );
const tombstone = (name: string) => record(processTombstone(uuidOf(name)));

describe('runningPods', () => {
  it.each<[string, InboundRecord[], string[]]>([
    ['an empty table', [], []],
    ['a RUNNING row', [rowRecord(row('ru-1', 'RUNNING'))], ['pod-ru-1']],
    ['a DEAD row', [rowRecord(row('ru-1', 'DEAD'))], []],
    [
      'the latest row wins (RUNNING then DEAD)',
      [rowRecord(row('ru-1', 'RUNNING')), rowRecord(row('ru-1', 'DEAD'))],
      [],
    ],
    [
      'a restart: the latest row names the new pod',
      [rowRecord(row('ru-1', 'DEAD', 'pod-a')), rowRecord(row('ru-1', 'RUNNING', 'pod-b'))],
      ['pod-b'],
    ],
    [
      'a tombstone forgets a flushed process',
      [rowRecord(row('ru-1', 'RUNNING')), tombstone('ru-1')],
      [],
    ],
    [
      'a record that is not a row is skipped, the next row still counts',
      [
        record({ key: uuidOf('x'), value: Buffer.from('not json') }),
        rowRecord(row('ru-2', 'RUNNING')),
      ],
      ['pod-ru-2'],
    ],
  ])('%s', (_, records, podUids) => {
    expect(runningPods(records).map((pod) => pod.podUid)).toEqual(podUids);
  });

  it("names the pod's process from the row", () => {
    expect(runningPods([rowRecord(row('ru-1', 'RUNNING'))])).toEqual([
      {
        podUid: 'pod-ru-1',
        namespace: 'run-7',
        podName: 'ru-1',
        uuid: uuidOf('ru-1'),
        session: 'run-7',
        name: 'ru-1',
        user: 'daq',
      },
    ]);
  });
});
