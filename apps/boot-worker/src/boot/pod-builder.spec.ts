import { withTrace } from '@kpm/contracts';
import { loadSettings } from '@kpm/config';
import { KpmLabels, podNameOf } from '@kpm/kube';
import { planProcesses } from './planned-process';
import { PodBuilder } from './pod-builder';

const labels = new KpmLabels('drunc.daq');
const context = { session: 'run-7', user: 'alice', commandId: 'cmd-1' };

/** alice's processes run as uid 1000, gid 1001 (kpm runs none of an unmapped user's). */
function builder(env: Record<string, string> = {}) {
  return new PodBuilder(
    labels,
    loadSettings('boot-worker', { KPM_RUN_AS_USERS: 'alice:1000:1001', ...env }),
  );
}

const [readout, root] = planProcesses('cmd-1', [
  {
    name: 'ru-01',
    treeId: '0.1.1',
    image: 'ghcr.io/dune-daq/alma9:v5',
    executableAndArguments: [
      { exec: 'source', args: ['${DBT_AREA}/env.sh'] },
      { exec: 'daq_application', args: ['--name', 'ru 01'] },
    ],
    env: { DAQ_LEVEL: '3', HOME: '/scratch/alice' },
    executionDirectory: '/opt/run',
    logsPath: '/log/run-7',
    restriction: { allowedHosts: ['kpm-node-2'], dataMount: '/data/run-7' },
    labels: { detector: 'np04' },
    annotations: { 'sim.kpm.daq/exit-code': '3' },
    resources: { limits: { cpu: '2' } },
  },
  { name: 'root', treeId: '0', executableAndArguments: [{ exec: 'drunc-controller', args: [] }] },
]);

describe('PodBuilder', () => {
  const pod = builder().pod(readout, context, { nodeName: 'kpm-node-2' });
  const container = pod.spec!.containers[0];

  it("labels the pod as kpm's, with uuid, session, tree id, role, user and app", () => {
    expect(pod.metadata!.labels).toEqual({
      detector: 'np04',
      'creator.drunc.daq': 'kpm',
      'uuid.drunc.daq': readout.uuid,
      'session.drunc.daq': 'run-7',
      'tree-id.drunc.daq': '0.1.1',
      'role.drunc.daq': 'application',
      'user.drunc.daq': 'alice',
      app: 'ru-01',
    });
    expect(pod.metadata!.name).toBe('ru-01');
    expect(pod.metadata!.namespace).toBe('run-7');
  });

  it("names a pod after drunc's name when it is a label, else after its derived label", () => {
    expect(pod.metadata!.annotations!['drunc.daq/process-name']).toBe('ru-01');
    const [dummy] = planProcesses('cmd-2', [
      { name: 'dummy_boot_0', executableAndArguments: [{ exec: 'sleep', args: ['60'] }] },
    ]);
    const built = builder().pod(dummy, context, { nodeName: 'kpm-node-2' });
    const derived = podNameOf('dummy_boot_0');
    expect(derived).toMatch(/^dummy-boot-0-[0-9a-f]{8}$/);
    expect({
      pod: built.metadata!.name,
      container: built.spec!.containers[0].name,
      app: built.metadata!.labels!.app,
      name: built.metadata!.annotations!['drunc.daq/process-name'],
      service: builder().service(built, dummy).metadata!.name,
      selector: builder().service(built, dummy).spec!.selector!.app,
    }).toEqual({
      pod: derived,
      container: derived,
      app: derived,
      name: 'dummy_boot_0',
      service: derived,
      selector: derived,
    });
  });

  it('stores the spec (with its uuid) and the command id, and passes the spec annotations', () => {
    const annotations = pod.metadata!.annotations!;
    expect(JSON.parse(annotations['drunc.daq/process-spec'])).toEqual({ ...readout.spec });
    expect(JSON.parse(annotations['drunc.daq/process-spec']).uuid).toBe(readout.uuid);
    expect(annotations['drunc.daq/command-id']).toBe('cmd-1');
    expect(annotations['sim.kpm.daq/exit-code']).toBe('3');
  });

  it("annotates the pod with the command's trace, so its termination carries it; none without", () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const traced = withTrace(traceparent, () => builder().pod(readout, context, {}));
    expect(traced.metadata!.annotations!['drunc.daq/traceparent']).toBe(traceparent);
    expect(pod.metadata!.annotations!).not.toHaveProperty('drunc.daq/traceparent');
  });

  it('carries the termination-record finalizer, restartPolicy Never and the kill timeout', () => {
    expect(pod.metadata!.finalizers).toEqual(['drunc.daq/termination-record']);
    expect(pod.spec!.restartPolicy).toBe('Never');
    expect(pod.spec!.terminationGracePeriodSeconds).toBe(30);
    expect(
      builder({ KPM_KILL_TIMEOUT_SECONDS: '5' }).pod(readout, context, {}).spec!
        .terminationGracePeriodSeconds,
    ).toBe(5);
  });

  it('runs the commands through bash, joined with && and the last exec-ed', () => {
    expect(container.command).toEqual([
      '/bin/bash',
      '-c',
      '"source" "${DBT_AREA}/env.sh" && exec "daq_application" "--name" "ru 01"',
    ]);
    expect(container.image).toBe('ghcr.io/dune-daq/alma9:v5');
    expect(container.workingDir).toBe('/opt/run');
    expect(container.resources).toEqual({ limits: { cpu: '2' } });
  });

  it("sets drunc's USER, HOME (the home base's, over the spec's own) and DOTDRUNC", () => {
    expect(container.env).toEqual(
      expect.arrayContaining([
        { name: 'USER', value: 'alice' },
        { name: 'HOME', value: '/home/alice' },
        { name: 'DOTDRUNC', value: '/home/alice/.drunc.json' },
        { name: 'DAQ_LEVEL', value: '3' },
      ]),
    );
    const rootEnv = builder({ KPM_HOME_PATH_BASE: '/nfs/home' }).pod(root, context, {}).spec!
      .containers[0].env;
    expect(rootEnv).toEqual([
      { name: 'USER', value: 'alice' },
      { name: 'HOME', value: '/nfs/home/alice' },
      { name: 'DOTDRUNC', value: '/nfs/home/alice/.drunc.json' },
    ]);
  });

  it('takes variables from Secrets by reference only: the names in the pod, never a value', () => {
    const [withSecrets] = planProcesses('cmd-2', [
      {
        name: 'db-writer',
        executableAndArguments: [{ exec: 'daq_application', args: [] }],
        env: { DAQ_LEVEL: '3' },
        secretEnv: [{ name: 'DB_PASSWORD', secretKeyRef: { name: 'daq-db', key: 'password' } }],
        envFrom: [{ secretRef: { name: 'daq-credentials' } }],
      },
    ]);
    const built = builder().pod(withSecrets, context, {}).spec!.containers[0];
    expect(built.env).toEqual([
      { name: 'DAQ_LEVEL', value: '3' },
      { name: 'USER', value: 'alice' },
      { name: 'HOME', value: '/home/alice' },
      { name: 'DOTDRUNC', value: '/home/alice/.drunc.json' },
      { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'daq-db', key: 'password' } } },
    ]);
    expect(built.envFrom).toEqual([{ secretRef: { name: 'daq-credentials' } }]);
    expect(container.envFrom).toBeUndefined();
  });

  it('mounts the log and data directories, and the home directory under homePathBase, each through its prefix', () => {
    expect(container.volumeMounts).toEqual([
      { name: 'kpm-logs', mountPath: '/log/run-7', subPath: 'run-7' },
      { name: 'kpm-data', mountPath: '/data/run-7', subPath: 'run-7' },
    ]);
    const homed = builder({ KPM_HOME_PATH_BASE: '/nfs/home' }).pod(readout, context, {});
    expect(homed.spec!.volumes).toEqual([
      { name: 'kpm-home', hostPath: { path: '/nfs/home', type: 'Directory' } },
      { name: 'kpm-logs', hostPath: { path: '/log', type: 'DirectoryOrCreate' } },
      { name: 'kpm-data', hostPath: { path: '/data', type: 'Directory' } },
    ]);
    expect(homed.spec!.containers[0].volumeMounts![0]).toEqual({
      name: 'kpm-home',
      mountPath: '/nfs/home/alice',
      subPath: 'alice',
    });
  });

  it('prepares the host directories in an init container, as the process’s user, unprivileged', () => {
    const [init] = pod.spec!.initContainers!;
    expect(init).toMatchObject({
      name: 'kpm-host-paths',
      image: 'ghcr.io/dune-daq/alma9:v5',
      resources: { limits: { cpu: '2' } },
      volumeMounts: [
        { name: 'kpm-logs', mountPath: '/kpm/host/kpm-logs' },
        { name: 'kpm-data', mountPath: '/kpm/host/kpm-data', readOnly: true },
      ],
      terminationMessagePolicy: 'FallbackToLogsOnError',
      securityContext: {
        privileged: false,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
        readOnlyRootFilesystem: true,
      },
    });
    expect(init.command!.slice(3)).toEqual([
      'kpm-host-paths',
      ...['/kpm/host/kpm-logs', '/log/run-7', 'logsPath', 'create', 'run-7'],
      ...['/kpm/host/kpm-data', '/data/run-7', 'restriction.dataMount', 'check', 'run-7'],
    ]);
    // It runs as the pod's user: the pod's security context, with nothing of its own.
    expect(init.securityContext!.runAsUser).toBeUndefined();
    expect(builder().pod(root, context, {}).spec!.initContainers).toBeUndefined();
  });

  it('mounts no ServiceAccount token: a DAQ process does not call the API server', () => {
    expect(pod.spec!.automountServiceAccountToken).toBe(false);
  });

  it('binds the pod to the chosen node, or leaves the choice to a scheduler', () => {
    expect(pod.spec!.nodeName).toBe('kpm-node-2');
    expect(pod.spec!.nodeSelector).toBeUndefined();
    const selected = builder().pod(readout, context, { nodeSelectorHost: 'kpm-node-2' });
    expect(selected.spec!.nodeName).toBeUndefined();
    expect(selected.spec!.nodeSelector).toEqual({ 'kubernetes.io/hostname': 'kpm-node-2' });
    const nodeLost = {
      key: 'node.kubernetes.io/unreachable',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 30,
    };
    // Every pod: the lost node's toleration (nodeLostSeconds), and the placement's own.
    expect(selected.spec!.tolerations).toEqual([nodeLost]);
    const toleration = {
      key: 'real.kpm.daq/node',
      operator: 'Equal',
      value: 'true',
      effect: 'NoSchedule',
    };
    const named = builder().pod(readout, context, {
      nodeSelectorHost: 'kpm-real-1',
      tolerations: [toleration],
    });
    expect(named.spec!.tolerations).toEqual([toleration, nodeLost]);
  });

  it("gives applications drunc's SIGQUIT preStop, controllers none", () => {
    expect(container.lifecycle?.preStop?.exec?.command).toEqual(['/bin/sh', '-c', 'kill -QUIT 1']);
    const rootPod = builder().pod(root, context, {});
    expect(rootPod.spec!.containers[0].lifecycle).toBeUndefined();
    expect(rootPod.spec!.containers[0].image).toBe('ghcr.io/dune-daq/alma9:latest');
    expect(rootPod.metadata!.labels!['role.drunc.daq']).toBe('root-controller');
  });

  it('runs every container unprivileged by default: no escalation, no capabilities, RuntimeDefault seccomp', () => {
    expect(container.securityContext).toEqual({
      privileged: false,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.spec!.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 1000,
      runAsGroup: 1001,
      fsGroup: 1001,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const netAdmin = builder({ KPM_ALLOWED_CAPABILITIES: 'NET_ADMIN' }).pod(readout, context, {});
    expect(netAdmin.spec!.containers[0].securityContext!.capabilities).toEqual({
      drop: ['ALL'],
      add: ['NET_ADMIN'],
    });
  });

  it.each([
    ['asked and allowed', 'true', { KPM_ALLOW_PRIVILEGED: 'true' }, true],
    ['asked, not allowed', 'true', {}, false],
    ['allowed, not asked', 'false', { KPM_ALLOW_PRIVILEGED: 'true' }, false],
  ])('is privileged only when asked and allowed: %s', (_, ask, env, privileged) => {
    const [asking] = planProcesses('cmd-2', [
      { ...readout.spec, uuid: undefined, annotations: { 'drunc.daq/privileged': ask } },
    ]);
    const built = builder(env).pod(asking, context, {});
    expect(built.spec!.containers[0].securityContext!.privileged).toBe(privileged);
    // The privileged path alone may run as the image's user: no runAsNonRoot, no seccomp.
    expect(built.spec!.securityContext).toEqual(
      privileged
        ? { runAsUser: 1000, runAsGroup: 1001, fsGroup: 1001 }
        : {
            runAsNonRoot: true,
            runAsUser: 1000,
            runAsGroup: 1001,
            fsGroup: 1001,
            seccompProfile: { type: 'RuntimeDefault' },
          },
    );
  });

  it('runs the process as the uid and gid it asked, else its user’s, else the default, and never as root', () => {
    const [asking] = planProcesses('cmd-5', [
      { ...readout.spec, uuid: undefined, uid: 2000, gid: 100 },
    ]);
    expect(builder().pod(asking, context, {}).spec!.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 2000,
      runAsGroup: 100,
      fsGroup: 100,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const bob = { ...context, user: 'bob' };
    const defaulted = builder({ KPM_DEFAULT_RUN_AS: '65534:65533' }).pod(readout, bob, {});
    expect(defaulted.spec!.securityContext).toMatchObject({ runAsUser: 65534, runAsGroup: 65533 });
    // Unmapped without a default (the validator refuses such a boot), the kubelet still refuses
    // to start a root image: runAsNonRoot is on every unprivileged pod.
    const unmapped = builder().pod(readout, bob, {}).spec!.securityContext!;
    expect(unmapped.runAsUser).toBeUndefined();
    expect(unmapped.runAsNonRoot).toBe(true);
  });

  describe('the readout profile', () => {
    // kpm's one profile serves processes in the pod network (drunc's puts every pod but the
    // NodePort ones in the node's).
    const settings = loadSettings('boot-worker', { KPM_NETWORK: 'pod' });
    settings.podManagement.readoutProfile = {
      cpu: '8',
      memory: '16Gi',
      hugepages: '2Gi',
      hugepagesPageSize: '2Mi',
      hostNetwork: true,
    };
    const profiled = new PodBuilder(labels, settings);
    const [runp] = planProcesses('cmd-3', [
      { ...readout.spec, uuid: undefined, name: 'runp-01', resources: undefined },
    ]);
    const guaranteed = { cpu: '8', memory: '16Gi', 'hugepages-2Mi': '2Gi' };

    it('gives a runp pod Guaranteed resources, hugepages at /dev/hugepages and the node network', () => {
      const built = profiled.pod(runp, context, {});
      expect(built.spec!.containers[0].resources).toEqual({
        requests: guaranteed,
        limits: guaranteed,
      });
      expect(built.spec!.volumes).toContainEqual({
        name: 'kpm-hugepages',
        emptyDir: { medium: 'HugePages' },
      });
      expect(built.spec!.containers[0].volumeMounts).toContainEqual({
        name: 'kpm-hugepages',
        mountPath: '/dev/hugepages',
      });
      expect(built.spec).toMatchObject({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' });
      expect(profiled.needsHostAccess(runp, 'alice')).toBe(true);
    });

    it('leaves a process the selector does not select as it was', () => {
      const built = profiled.pod(readout, context, {});
      expect(built.spec!.containers[0].resources).toEqual({ limits: { cpu: '2' } });
      expect(built.spec!.hostNetwork).toBeUndefined();
      expect(built.spec!.dnsPolicy).toBeUndefined();
      expect(built.spec!.volumes!.map((v) => v.name)).not.toContain('kpm-hugepages');
    });

    it('asks no host access for hugepages alone (an emptyDir)', () => {
      const [bare] = planProcesses('cmd-4', [
        { name: 'runp-02', executableAndArguments: [{ exec: 'daq_application', args: [] }] },
      ]);
      const noHostNetwork = loadSettings('boot-worker', { KPM_NETWORK: 'pod' });
      noHostNetwork.podManagement.readoutProfile = {
        ...settings.podManagement.readoutProfile!,
        hostNetwork: false,
      };
      expect(new PodBuilder(labels, noHostNetwork).needsHostAccess(bare, 'alice')).toBe(false);
      expect(profiled.needsHostAccess(bare, 'alice')).toBe(true);
    });
  });

  it('builds a headless Service on the discovery port, owned by the pod', () => {
    const created = { ...pod, metadata: { ...pod.metadata, uid: 'pod-uid-1' } };
    const service = builder().service(created, readout);
    expect(service.spec).toEqual({
      clusterIP: 'None',
      selector: { app: 'ru-01', 'creator.drunc.daq': 'kpm' },
      ports: [{ name: 'discovery', port: 80, targetPort: 80 }],
    });
    expect(service.metadata!.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Pod', name: 'ru-01', uid: 'pod-uid-1', controller: true }),
    ]);
    expect(service.metadata!.labels!['creator.drunc.daq']).toBe('kpm');
  });
});

describe('planProcesses', () => {
  it('derives missing uuids from the command id and index, deterministically', () => {
    const again = planProcesses('cmd-1', [readout.spec, root.spec]);
    expect(again.map((p) => p.uuid)).toEqual([readout.uuid, root.uuid]);
    const [other] = planProcesses('cmd-9', [{ ...root.spec, uuid: undefined }]);
    expect(other.uuid).not.toBe(root.uuid);
    const given = '0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c';
    expect(planProcesses('cmd-1', [{ ...root.spec, uuid: given }])[0].uuid).toBe(given);
  });
});
