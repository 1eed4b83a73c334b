import type { V1Pod } from '@kubernetes/client-node';
import { KpmLabels } from '@kpm/kube';
import {
  awaitsAdmission,
  bootOrderGate,
  inPodGroup,
  notAdmittedReason,
  podGroupOf,
  podGroupOfPod,
} from './kueue-pod-group';

const pod: V1Pod = {
  metadata: { name: 'ru-01', labels: { app: 'ru-01' }, annotations: { note: 'x' } },
  spec: { containers: [{ name: 'main', image: 'daq:1' }] },
};

describe('Kueue pod groups: membership, gates and reasons', () => {
  it('names a boot’s group after its command, the same on a redelivery, a valid Workload name', () => {
    const group = podGroupOf('7f1c0a3e-9d2b-4c55-8e6f-0a1b2c3d4e5f', 'kpm', 200);
    expect(group).toEqual({
      name: expect.stringMatching(/^kpm-[0-9a-f]{20}$/),
      queue: 'kpm',
      total: 200,
    });
    expect(podGroupOf('7f1c0a3e-9d2b-4c55-8e6f-0a1b2c3d4e5f', 'kpm', 200)).toEqual(group);
    expect(podGroupOf('another', 'kpm', 200).name).not.toBe(group.name);
  });

  it('adds the group’s labels and count, keeps the pod’s own, and gates only when told', () => {
    const group = { name: 'kpm-abc', queue: 'kpm', total: 3 };
    const member = inPodGroup(pod, group);
    expect(member.metadata?.labels).toEqual({
      app: 'ru-01',
      'kueue.x-k8s.io/queue-name': 'kpm',
      'kueue.x-k8s.io/pod-group-name': 'kpm-abc',
    });
    expect(member.metadata?.annotations).toEqual({
      note: 'x',
      'kueue.x-k8s.io/pod-group-total-count': '3',
    });
    expect(member.spec?.schedulingGates).toBeUndefined();
    const gate = bootOrderGate(new KpmLabels('drunc.daq'));
    expect(gate).toBe('drunc.daq/boot-order');
    expect(inPodGroup(pod, group, gate).spec?.schedulingGates).toEqual([{ name: gate }]);
    expect(pod.metadata?.labels).toEqual({ app: 'ru-01' });
    expect(podGroupOfPod(member)).toEqual(group);
  });

  it.each<[string, V1Pod | undefined]>([
    ['no pod', undefined],
    ['a pod of no group', pod],
    [
      'a count that is not a number',
      {
        metadata: {
          labels: { 'kueue.x-k8s.io/pod-group-name': 'g', 'kueue.x-k8s.io/queue-name': 'q' },
          annotations: { 'kueue.x-k8s.io/pod-group-total-count': 'many' },
        },
      },
    ],
  ])('reads no group from %s', (_what, given) => {
    expect(podGroupOfPod(given)).toBeUndefined();
  });

  it('tells a pod Kueue still holds by its admission gate', () => {
    expect(
      awaitsAdmission({
        spec: { containers: [], schedulingGates: [{ name: 'kueue.x-k8s.io/admission' }] },
      }),
    ).toBe(true);
    expect(
      awaitsAdmission({
        spec: { containers: [], schedulingGates: [{ name: 'drunc.daq/boot-order' }] },
      }),
    ).toBe(false);
    expect(awaitsAdmission(undefined)).toBe(false);
  });

  it.each<[string, Parameters<typeof notAdmittedReason>[0], string]>([
    [
      'no Workload',
      undefined,
      'Kueue made no Workload for the group (is Kueue running, with its pod integration on?)',
    ],
    [
      'quota short',
      [
        {
          type: 'QuotaReserved',
          status: 'False',
          reason: 'Pending',
          message: 'insufficient quota for cpu in flavor sim',
        },
      ],
      'QuotaReserved Pending: insufficient quota for cpu in flavor sim',
    ],
    [
      'reserved, not yet admitted',
      [
        { type: 'QuotaReserved', status: 'True', reason: 'QuotaReserved' },
        {
          type: 'Admitted',
          status: 'False',
          reason: 'NoChecks',
          message: 'waiting for admission checks',
        },
      ],
      'Admitted NoChecks: waiting for admission checks',
    ],
    ['nothing said yet', [], 'Kueue has not admitted its Workload yet'],
  ])('says why a group waits: %s', (_what, conditions, expected) => {
    expect(notAdmittedReason(conditions)).toBe(expected);
  });
});
