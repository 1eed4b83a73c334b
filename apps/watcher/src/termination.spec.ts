import type { V1Pod } from '@kubernetes/client-node';
import { KpmLabels } from '@kpm/kube';
import { podIdentity, terminationRecord, type Termination } from './termination';

const labels = new KpmLabels('drunc.daq');
const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

function pod(annotations: Record<string, string>): V1Pod {
  return {
    metadata: {
      uid: 'pod-uid-1',
      name: 'ru-01',
      namespace: 'run-7',
      labels: { 'uuid.drunc.daq': 'u-1', 'session.drunc.daq': 'run-7', 'user.drunc.daq': 'alice' },
      annotations,
    },
  };
}

function termination(identity: Termination['identity']): Termination {
  return {
    identity,
    verdict: { exitCode: 143, reason: 'Error', phase: 'Failed' } as Termination['verdict'],
    detectedBy: 'watch',
    observedAt: '2026-11-22T10:00:00.000Z',
  };
}

describe('a termination carries the trace of the command that created its pod', () => {
  it.each<[string, Record<string, string>, string | undefined]>([
    ['annotated', { 'drunc.daq/traceparent': traceparent }, traceparent],
    ['not annotated', {}, undefined],
    ['annotated with no trace', { 'drunc.daq/traceparent': 'nonsense' }, undefined],
  ])('%s', (_, annotations, expected) => {
    const identity = podIdentity(pod(annotations), labels);
    expect(identity.traceparent).toBe(expected);
    const record = terminationRecord(termination(identity), '/kpm/watcher/test');
    const event = JSON.parse(String(record.value)) as { traceparent?: string; data: object };
    expect(event.traceparent).toBe(expected);
    expect(event.data).not.toHaveProperty('traceparent');
  });
});

describe("a termination names the process by drunc's name", () => {
  it.each<[string, Record<string, string>, string]>([
    ['from its name annotation', { 'drunc.daq/process-name': 'dummy_boot_0' }, 'dummy_boot_0'],
    ['else from the pod name', {}, 'ru-01'],
  ])('%s', (_, annotations, expected) => {
    const identity = podIdentity(pod(annotations), labels);
    expect([identity.name, identity.podName]).toEqual([expected, 'ru-01']);
  });
});
