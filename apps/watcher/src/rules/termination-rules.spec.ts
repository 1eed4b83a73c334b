import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { DEFAULT_FATAL_WAITING_REASONS } from '@kpm/config';
import { isoTime, terminalVerdict, type PodEventType } from './termination-rules';

const FATAL = new Set(DEFAULT_FATAL_WAITING_REASONS);
const CONFIG_ERROR = 'CreateContainerConfigError';
const T0 = '2026-11-22T10:00:00Z';
const T1 = '2026-11-22T10:00:05Z';

/** A pod as the watch stream delivers it: plain JSON with string timestamps. */
function pod(
  status: V1Pod['status'],
  options: { deleting?: boolean; containers?: string[] } = {},
): V1Pod {
  return {
    metadata: {
      name: 'readout-1',
      namespace: 'run-7',
      uid: 'uid-1',
      ...(options.deleting ? { deletionTimestamp: T1 as unknown as Date } : {}),
    },
    spec: { containers: (options.containers ?? ['readout-1']).map((name) => ({ name })) },
    status,
  };
}

const running = (name = 'readout-1'): V1ContainerStatus => ({
  name,
  image: 'daq:1',
  imageID: '',
  ready: true,
  restartCount: 0,
  state: { running: { startedAt: T0 as unknown as Date } },
});

const terminated = (
  exitCode: number,
  extra: { name?: string; reason?: string; message?: string; signal?: number } = {},
): V1ContainerStatus => ({
  name: extra.name ?? 'readout-1',
  image: 'daq:1',
  imageID: '',
  ready: false,
  restartCount: 0,
  state: {
    terminated: {
      exitCode,
      reason: extra.reason,
      message: extra.message,
      signal: extra.signal,
      startedAt: T0 as unknown as Date,
      finishedAt: T1 as unknown as Date,
    },
  },
});

const waiting = (reason: string, name = 'readout-1', message?: string): V1ContainerStatus => ({
  name,
  image: 'daq:1',
  imageID: '',
  ready: false,
  restartCount: 0,
  state: { waiting: { reason, message } },
});

const verdict = (p: V1Pod, type: PodEventType = 'MODIFIED') => terminalVerdict(p, type, FATAL);

describe('terminalVerdict: whether a pod ended is podEnding (libs/kube)', () => {
  it.each<[string, V1Pod, PodEventType, boolean]>([
    ['a running pod', pod({ phase: 'Running', containerStatuses: [running()] }), 'MODIFIED', false],
    [
      'a running pod seen deleted',
      pod({ phase: 'Running', containerStatuses: [running()] }),
      'DELETED',
      true,
    ],
    [
      'a pod being deleted with a running init container',
      pod({ phase: 'Pending', initContainerStatuses: [running('setup')] }, { deleting: true }),
      'MODIFIED',
      false,
    ],
    ['a Failed pod', pod({ phase: 'Failed' }), 'MODIFIED', true],
  ])('%s: terminal %s', (_, p, type, terminal) => {
    expect(verdict(p, type).terminal).toBe(terminal);
  });
});

describe('terminalVerdict: exit codes', () => {
  it("takes exit 0 from the main container, named drunc's GracefulShutdown", () => {
    expect(
      verdict(
        pod({ phase: 'Succeeded', containerStatuses: [terminated(0, { reason: 'Completed' })] }),
      ),
    ).toEqual({
      terminal: true,
      exitCode: 0,
      reason: 'GracefulShutdown',
      phase: 'Succeeded',
      startedAt: '2026-11-22T10:00:00.000Z',
      finishedAt: '2026-11-22T10:00:05.000Z',
    });
  });

  it('takes a failing exit code with its failure details', () => {
    const p = pod({
      phase: 'Failed',
      reason: 'SomePodReason',
      containerStatuses: [terminated(3, { reason: 'Error', message: 'config missing' })],
    });
    expect(verdict(p)).toEqual({
      terminal: true,
      exitCode: 3,
      reason: 'Error',
      phase: 'Failed',
      startedAt: '2026-11-22T10:00:00.000Z',
      finishedAt: '2026-11-22T10:00:05.000Z',
      failure: {
        containerName: 'readout-1',
        containerType: 'main',
        containerReason: 'Error',
        containerMessage: 'config missing',
        podReason: 'SomePodReason',
      },
    });
  });

  it.each([
    [137, 9],
    [143, 15],
    [130, 2],
  ])('derives the signal of exit %i as %i', (exitCode, signal) => {
    const v = verdict(
      pod({ phase: 'Failed', containerStatuses: [terminated(exitCode, { reason: 'Error' })] }),
    );
    expect(v).toMatchObject({ terminal: true, exitCode, signal });
  });

  it('gives no signal for ordinary codes and keeps an explicit one', () => {
    expect(
      verdict(pod({ phase: 'Failed', containerStatuses: [terminated(3)] })),
    ).not.toHaveProperty('signal');
    expect(
      verdict(pod({ phase: 'Failed', containerStatuses: [terminated(255)] })),
    ).not.toHaveProperty('signal');
    expect(
      verdict(pod({ phase: 'Failed', containerStatuses: [terminated(1, { signal: 6 })] })),
    ).toMatchObject({
      signal: 6,
    });
  });

  it('names a missing reason after the code, and any Succeeded pod GracefulShutdown', () => {
    expect(verdict(pod({ phase: 'Succeeded', containerStatuses: [terminated(0)] }))).toMatchObject({
      reason: 'GracefulShutdown',
    });
    expect(verdict(pod({ phase: 'Failed', containerStatuses: [terminated(2)] }))).toMatchObject({
      reason: 'Error',
    });
  });

  it('prefers the first init container that failed over the main container', () => {
    const p = pod({
      phase: 'Failed',
      initContainerStatuses: [
        terminated(0, { name: 'fetch-config' }),
        terminated(7, { name: 'mount-check', reason: 'Error' }),
        terminated(9, { name: 'later' }),
      ],
      containerStatuses: [waiting('PodInitializing')],
    });
    expect(verdict(p)).toMatchObject({
      exitCode: 7,
      failure: { containerName: 'mount-check', containerType: 'init' },
    });
  });

  it('skips init containers that succeeded and reads the main container', () => {
    const p = pod({
      phase: 'Failed',
      initContainerStatuses: [terminated(0, { name: 'fetch-config' })],
      containerStatuses: [terminated(4)],
    });
    expect(verdict(p)).toMatchObject({ exitCode: 4, failure: { containerType: 'main' } });
  });

  it('reads lastState.terminated when the current state no longer has it', () => {
    const status: V1ContainerStatus = {
      ...waiting('ContainerCreating'),
      lastState: { terminated: { exitCode: 5, reason: 'Error' } },
    };
    expect(verdict(pod({ phase: 'Failed', containerStatuses: [status] }))).toMatchObject({
      exitCode: 5,
      reason: 'Error',
    });
  });

  it('reads the spec-first container as the process, whatever the status order', () => {
    const p = pod(
      { phase: 'Failed', containerStatuses: [terminated(0, { name: 'sidecar' }), terminated(6)] },
      { containers: ['readout-1', 'sidecar'] },
    );
    expect(verdict(p)).toMatchObject({ exitCode: 6 });
  });

  it('gives Succeeded without statuses 0 GracefulShutdown', () => {
    expect(verdict(pod({ phase: 'Succeeded' }))).toEqual({
      terminal: true,
      exitCode: 0,
      reason: 'GracefulShutdown',
      phase: 'Succeeded',
    });
  });

  it.each(DEFAULT_FATAL_WAITING_REASONS)(
    'ends a pod waiting with fatal %s as -1 with that reason',
    (reason) => {
      const p = pod({
        phase: 'Pending',
        containerStatuses: [waiting(reason, 'readout-1', 'pull failed')],
      });
      expect(verdict(p)).toEqual({
        terminal: true,
        exitCode: -1,
        reason,
        phase: 'Pending',
        failure: {
          containerName: 'readout-1',
          containerType: 'main',
          containerReason: reason,
          containerMessage: 'pull failed',
        },
      });
    },
  );

  it('names the host path of a volume mount the kubelet could not prepare (a symlink out of its prefix)', () => {
    const kubelet = 'failed to prepare subPath for volumeMount "kpm-data" of container "readout-1"';
    const p = pod({
      phase: 'Pending',
      containerStatuses: [waiting(CONFIG_ERROR, 'readout-1', kubelet)],
    });
    p.spec!.containers[0].volumeMounts = [
      { name: 'kpm-logs', mountPath: '/log/run-7', subPath: 'run-7' },
      { name: 'kpm-data', mountPath: '/data/x/link', subPath: 'x/link' },
    ];
    p.spec!.volumes = [
      { name: 'kpm-logs', hostPath: { path: '/log', type: 'DirectoryOrCreate' } },
      { name: 'kpm-data', hostPath: { path: '/data', type: 'Directory' } },
    ];
    expect(verdict(p)).toMatchObject({
      exitCode: -1,
      reason: CONFIG_ERROR,
      failure: {
        containerMessage: `${kubelet}: host path /data/x/link (subPath x/link of the hostPath volume /data), mounted at /data/x/link`,
      },
    });
  });

  it.each<[string, string]>([
    ['no volume mount named', 'secret "daq-db" not found'],
    [
      'a mount the container does not have',
      'failed to prepare subPath for volumeMount "other" of container "readout-1"',
    ],
  ])('keeps the kubelet’s message as it is with %s', (_, message) => {
    const p = pod({
      phase: 'Pending',
      containerStatuses: [waiting(CONFIG_ERROR, 'readout-1', message)],
    });
    expect(verdict(p)).toMatchObject({ failure: { containerMessage: message } });
  });

  it('takes a fatal wait of an init container, and honours a configured list', () => {
    const p = pod({ phase: 'Pending', initContainerStatuses: [waiting('ErrImagePull', 'setup')] });
    expect(verdict(p)).toMatchObject({
      exitCode: -1,
      failure: { containerType: 'init', containerName: 'setup' },
    });
    const custom = pod({ phase: 'Pending', containerStatuses: [waiting('RunContainerError')] });
    expect(terminalVerdict(custom, 'MODIFIED', new Set(['RunContainerError']))).toMatchObject({
      exitCode: -1,
      reason: 'RunContainerError',
    });
    expect(terminalVerdict(custom, 'MODIFIED', FATAL)).toEqual({ terminal: false });
  });

  it('ends a pod deleted before it ever ran as -1 DeletedBeforeStart', () => {
    const pending = pod(
      { phase: 'Pending', containerStatuses: [waiting('ContainerCreating')] },
      { deleting: true },
    );
    expect(verdict(pending)).toMatchObject({
      exitCode: -1,
      reason: 'DeletedBeforeStart',
      phase: 'Pending',
    });
    expect(verdict(pod({ phase: 'Pending' }), 'DELETED')).toMatchObject({
      exitCode: -1,
      reason: 'DeletedBeforeStart',
    });
    expect(verdict(pod(undefined), 'DELETED')).toMatchObject({
      reason: 'DeletedBeforeStart',
      phase: 'Unknown',
    });
  });

  it("reads the kubelet's ContainerStatusUnknown as no exit: deleted before it started", () => {
    // As a real kubelet wrote it for a pod deleted while its volume could not yet be mounted.
    const unknown: V1ContainerStatus = {
      name: 'readout-1',
      image: 'daq:1',
      imageID: '',
      ready: false,
      restartCount: 0,
      started: false,
      state: {
        terminated: {
          exitCode: 137,
          reason: 'ContainerStatusUnknown',
          message: 'The container could not be located when the pod was terminated',
        },
      },
    };
    const failed = pod({ phase: 'Failed', containerStatuses: [unknown] }, { deleting: true });
    expect(verdict(failed)).toEqual({
      terminal: true,
      exitCode: -1,
      reason: 'DeletedBeforeStart',
      phase: 'Failed',
    });
    // The kubelet lost a container that had started: it keeps the container id and `started`.
    const lost = { ...unknown, containerID: 'containerd://0f3a', started: true };
    const afterRunning = pod({ phase: 'Failed', containerStatuses: [lost] }, { deleting: true });
    expect(verdict(afterRunning, 'DELETED')).toMatchObject({ exitCode: -1, reason: 'PodDeleted' });
  });

  it('ends a pod deleted while running with no terminated state as -1 PodDeleted', () => {
    expect(verdict(pod({ phase: 'Running', containerStatuses: [running()] }), 'DELETED')).toEqual({
      terminal: true,
      exitCode: -1,
      reason: 'PodDeleted',
      phase: 'Running',
    });
  });

  it('keeps the exit code of a deleted pod that had ended', () => {
    const p = pod(
      { phase: 'Failed', containerStatuses: [terminated(143, { reason: 'Error' })] },
      { deleting: true },
    );
    expect(verdict(p, 'DELETED')).toMatchObject({ exitCode: 143, signal: 15, reason: 'Error' });
    expect(verdict(p, 'MODIFIED')).toMatchObject({ exitCode: 143 });
  });

  it('prefers a fatal wait over DeletedBeforeStart when a bad-image pod is deleted', () => {
    const p = pod(
      { phase: 'Pending', containerStatuses: [waiting('ErrImagePull')] },
      { deleting: true },
    );
    expect(verdict(p, 'DELETED')).toMatchObject({ exitCode: -1, reason: 'ErrImagePull' });
  });

  it('ends Failed without container verdicts with the pod reason (evicted, node lost)', () => {
    expect(verdict(pod({ phase: 'Failed', reason: 'Evicted', message: 'low on memory' }))).toEqual({
      terminal: true,
      exitCode: -1,
      reason: 'Evicted',
      phase: 'Failed',
      failure: { podReason: 'Evicted', podMessage: 'low on memory' },
    });
    expect(verdict(pod({ phase: 'Failed' }))).toMatchObject({ exitCode: -1, reason: 'PodFailed' });
  });

  it('ends a pod being deleted on a lost node as -1 NodeLost, in the words of its Ready condition', () => {
    const loss = {
      node: 'kpm-real-1',
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
      since: T0,
    };
    const stranded = pod({ phase: 'Running', containerStatuses: [running()] }, { deleting: true });
    expect(terminalVerdict(stranded, 'MODIFIED', FATAL, undefined, loss)).toEqual({
      terminal: true,
      exitCode: -1,
      reason: 'NodeLost',
      phase: 'Running',
      failure: {
        podReason: 'NodeLost',
        podMessage: `node kpm-real-1 lost (Ready Unknown since ${T0}: NodeStatusUnknown: Kubelet stopped posting node status.)`,
      },
    });
    // Not being deleted: still running as far as anyone knows (the taint's toleration runs).
    const running_ = pod({ phase: 'Running', containerStatuses: [running()] });
    expect(terminalVerdict(running_, 'MODIFIED', FATAL, undefined, loss)).toEqual({
      terminal: false,
    });
    // An exit the kubelet reported before the loss keeps its code.
    const ended = pod(
      { phase: 'Failed', containerStatuses: [terminated(3, { reason: 'Error' })] },
      { deleting: true },
    );
    expect(terminalVerdict(ended, 'MODIFIED', FATAL, undefined, loss)).toMatchObject({
      exitCode: 3,
      reason: 'Error',
    });
  });

  it('reads typed pods (Date timestamps) like watch JSON', () => {
    const status = terminated(0);
    status.state!.terminated!.finishedAt = new Date('2026-11-22T10:00:05Z');
    expect(verdict(pod({ phase: 'Succeeded', containerStatuses: [status] }))).toMatchObject({
      finishedAt: '2026-11-22T10:00:05.000Z',
    });
  });
});

describe('isoTime', () => {
  it('accepts Dates and RFC 3339 strings, nothing else', () => {
    expect(isoTime(new Date(T0))).toBe('2026-11-22T10:00:00.000Z');
    expect(isoTime(T0)).toBe('2026-11-22T10:00:00.000Z');
    expect(isoTime('not a time')).toBeUndefined();
    expect(isoTime('')).toBeUndefined();
    expect(isoTime(42)).toBeUndefined();
    expect(isoTime(new Date(Number.NaN))).toBeUndefined();
  });
});
