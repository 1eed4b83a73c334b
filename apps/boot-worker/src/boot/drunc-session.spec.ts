/**
 * drunc's real boot requests → the pods and Services kpm's pod builder makes, beside what
 * drunc's K8sProcessManager makes of the same requests (the expected side, `__fixtures__/drunc-session.ts`, is written from drunc's
 * code). One row per shape: the local connection server, another infrastructure application,
 * the root controller, segment controllers at two depths, a readout application, applications of
 * a segment and of the root segment (tree ids shared with controllers), a data writer.
 */
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { loadSettings } from '@kpm/config';
import { KpmLabels } from '@kpm/kube';
import { shutdownGroups, type ProcessSpec } from '@kpm/contracts';
import {
  DRUNC_BOOT_REQUESTS,
  DRUNC_KILL_STAGES,
  DRUNC_PODS,
  DRUNC_SETTINGS,
  HOME_BASE,
  UID,
  USER,
  type DruncBootRequest,
  type DruncPod,
  type HostMount,
} from './__fixtures__/drunc-session';
import { planProcesses } from './planned-process';
import { PodBuilder } from './pod-builder';
import { waitsForReady } from './boot-order';
import { reachTarget } from './reachability';

/** A drunc boot request as the ProcessSpec it maps to (what a drunc front door sends kpm). */
function specOf(request: DruncBootRequest): ProcessSpec {
  const { metadata, process_restriction: restriction } = request;
  return {
    name: metadata.name,
    treeId: metadata.tree_id,
    executableAndArguments: request.executable_and_arguments,
    env: request.env,
    executionDirectory: request.process_execution_directory,
    logFile: request.process_logs_path,
    restriction: {
      allowedHosts: restriction.allowed_hosts,
      ...(restriction.data_mount ? { dataMount: restriction.data_mount } : {}),
    },
  };
}

/** kpm's settings for drunc's: its configuration file's, the booting user's uid and gid. */
const settings = loadSettings('boot-worker', {
  KPM_HOME_PATH_BASE: HOME_BASE,
  KPM_RUN_AS_USERS: `${USER}:${UID}:${UID}`,
  KPM_HOST_PATH_PREFIXES: '/nfs,/data',
  // drunc connects to the connection server and the root controller through their node ports.
  KPM_REACHABILITY_CHECK: 'node-port',
});
settings.volumes = DRUNC_SETTINGS.volumes.map((v) => ({
  name: v.name,
  mountPath: v.mount_path,
  hostPath: v.host_path,
  readOnly: v.read_only,
}));
settings.podManagement.hostConfigs = DRUNC_SETTINGS.host_configs;
const builder = new PodBuilder(new KpmLabels('drunc.daq'), settings);
const LCS_IP = '10.96.0.12';
const processes = planProcesses('boot-1', DRUNC_BOOT_REQUESTS.map(specOf));

/** The pod and Service kpm makes of request `i`, placed on its host, the connection server up. */
function made(i: number): { pod: V1Pod; service: V1Service } {
  const process = processes[i];
  const host = process.spec.restriction!.allowedHosts![0];
  const context = { session: 'run-7', user: USER, commandId: 'boot-1', connectionServer: LCS_IP };
  const pod = builder.pod(process, context, { nodeName: host });
  return {
    pod: { ...pod, metadata: { ...pod.metadata, uid: `uid-${i}` } },
    service: builder.service(pod, process),
  };
}

/** The pod and Service in the expected side's terms. */
function shapeOf(i: number): DruncPod {
  const { pod, service } = made(i);
  const container = pod.spec!.containers[0];
  const script = container.command![2];
  const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
  const hostMounts: Record<string, HostMount> = {};
  for (const m of container.volumeMounts ?? []) {
    const hostPath = pod.spec!.volumes!.find((v) => v.name === m.name)?.hostPath;
    // The host directory mounted: kpm's mounts it through its prefix (the volume) and subPath.
    if (hostPath)
      hostMounts[m.mountPath] = {
        path: m.subPath ? `${hostPath.path}/${m.subPath}` : hostPath.path,
        type: hostPath.type as HostMount['type'],
        readOnly: m.readOnly === true,
      };
  }
  const port = service.spec!.ports![0];
  const tee = /^exec > >\(tee -a "([^"]+)"\) 2>&1; /.exec(script);
  const last = script.split(' && ').pop()!;
  const words = [...last.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, '$1'));
  const security = container.securityContext!;
  const podSecurity = pod.spec!.securityContext!;
  const waits = waitsForReady(processes[i], settings.podManagement.connectionServerName);
  const reached = { ...pod, status: { hostIP: '10.0.0.1', podIP: '10.244.0.7' } };
  const target = reachTarget(
    reached,
    builder.network(processes[i]),
    settings.podManagement.reachabilityCheck,
  );
  return {
    name: pod.metadata!.name!,
    role: pod.metadata!.labels!['role.drunc.daq'],
    hostNetwork: pod.spec!.hostNetwork === true,
    service:
      service.spec!.type === 'NodePort'
        ? { type: 'NodePort', port: port.port, nodePort: port.nodePort! }
        : { type: 'headless', port: port.port as 80 },
    ...(container.ports ? { containerPort: container.ports[0].containerPort } : {}),
    podIp: (container.env ?? []).some(
      (e) => e.name === 'POD_IP' && e.valueFrom?.fieldRef?.fieldPath === 'status.podIP',
    ),
    args: words.slice(1),
    execLast: last.startsWith('exec '),
    logFile: tee?.[1] ?? '',
    preStop: container.lifecycle?.preStop?.exec?.command?.join(' ') === '/bin/sh -c kill -QUIT 1',
    runAs: {
      uid: podSecurity.runAsUser!,
      gid: podSecurity.runAsGroup!,
      fsGroup: podSecurity.fsGroup!,
    },
    privileged:
      security.privileged === true && (security.capabilities?.add ?? []).includes('IPC_LOCK'),
    ...(processes[i].spec.name.includes('runp')
      ? { resources: container.resources as DruncPod['resources'] }
      : {}),
    hostMounts,
    hugepages: (pod.spec!.volumes ?? []).some((v) => v.emptyDir?.medium === 'HugePages'),
    env: { USER: env.USER!, HOME: env.HOME!, DOTDRUNC: env.DOTDRUNC! },
    host: pod.spec!.nodeName!,
    localhostAlias: (pod.spec!.hostAliases ?? []).some(
      (a) => a.ip === LCS_IP && a.hostnames?.includes('localhost'),
    ),
    bootWait: waits && target ? target.protocol : 'none',
  };
}

describe('drunc’s boot requests: kpm decides each as drunc’s K8sProcessManager does', () => {
  it.each(DRUNC_BOOT_REQUESTS.map((r, i) => [r.metadata.name, r.metadata.tree_id, i] as const))(
    '%s (tree id %s)',
    (_, __, i) => {
      expect(shapeOf(i)).toEqual(DRUNC_PODS[i]);
    },
  );

  it('kills the session in drunc’s stages, segment controllers deepest first', () => {
    const stages = shutdownGroups(
      processes.map((p) => ({ name: p.spec.name, role: p.role, treeId: p.spec.treeId })),
    ).map((stage) => stage.map((p) => p.name));
    expect(stages.map((s) => [...s].sort())).toEqual(DRUNC_KILL_STAGES.map((s) => [...s].sort()));
  });
});
