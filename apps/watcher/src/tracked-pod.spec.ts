import type { V1Pod } from '@kubernetes/client-node';
import { KpmLabels } from '@kpm/kube';
import { trackedPod } from './tracked-pod';

const labels = new KpmLabels('drunc.daq');
const FINALIZER = labels.terminationFinalizer;

const apiPod: V1Pod = {
  metadata: {
    uid: 'uid-1',
    name: 'readout-1',
    namespace: 'run-7',
    resourceVersion: '42',
    labels: { [labels.creator]: 'kpm', [labels.session]: 'run-7', app: 'readout' },
    annotations: { [labels.specAnnotation]: JSON.stringify({ env: { RUN: '7' } }) },
    finalizers: ['other/keep', FINALIZER],
    managedFields: [{ manager: 'kpm', operation: 'Update' }],
  },
  spec: { containers: [{ name: 'readout', image: 'daq/readout:1' }] },
  status: { phase: 'Running', podIP: '10.0.0.7', conditions: [{ type: 'Ready', status: 'True' }] },
};

describe('trackedPod', () => {
  it('keeps exactly what the finalizer patch and a re-list need', () => {
    expect(trackedPod(apiPod, labels)).toEqual({
      metadata: {
        uid: 'uid-1',
        name: 'readout-1',
        namespace: 'run-7',
        labels: { [labels.creator]: 'kpm' },
        finalizers: ['other/keep', FINALIZER],
      },
      status: { phase: 'Running' },
    });
  });

  it.each([
    { case: 'a pod of kpm', pod: apiPod, ours: true },
    {
      case: 'a pod of someone else',
      pod: { ...apiPod, metadata: { ...apiPod.metadata, labels: { app: 'x' } } },
      ours: false,
    },
    { case: 'a pod without metadata', pod: {}, ours: false },
  ])('$case stays recognisable as ours or not', ({ pod, ours }) => {
    expect(labels.isOurs(trackedPod(pod, labels).metadata?.labels)).toBe(ours);
  });

  it('does not share the finalizer list with the pod it came from', () => {
    const kept = trackedPod(apiPod, labels);
    apiPod.metadata!.finalizers!.pop();
    expect(kept.metadata?.finalizers).toEqual(['other/keep', FINALIZER]);
  });
});
