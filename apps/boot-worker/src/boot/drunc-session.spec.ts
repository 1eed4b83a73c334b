/**
 * drunc's real boot requests → kpm's decisions, beside what drunc's K8sProcessManager makes of
 * the same requests (the expected side, `__fixtures__/drunc-session.ts`, is written from drunc's
 * code). One row per shape: the local connection server, another infrastructure application,
 * the root controller, segment controllers at two depths, a readout application, applications of
 * a segment and of the root segment (tree ids shared with controllers), a data writer.
 */
import { roleOf, shutdownGroups, type ProcessSpec } from '@kpm/contracts';
import type { VolumeConfig } from '@kpm/config';
import { configuredVolumes, coveredBy } from './configured-volumes';
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
import { logFileRedirection, specMounts } from './host-mounts';
import { processEnv, runAsOf } from './process-identity';
import {
  processNetwork,
  rewriteGrpcHosts,
  type NetworkSettings,
  type ProcessService,
} from './process-network';
import { readoutProfileOf } from './readout-profile';

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

const NETWORK: NetworkSettings = {
  connectionServerName: 'local-connection-server',
  connectionServerPort: 5000,
  network: 'host',
  nodePorts: true,
  nodePortRange: { min: 30000, max: 32767 },
};
const VOLUMES: VolumeConfig[] = DRUNC_SETTINGS.volumes.map((v) => ({
  name: v.name,
  mountPath: v.mount_path,
  hostPath: v.host_path,
  readOnly: v.read_only,
}));
const READOUT = {
  readoutAppSelector: DRUNC_SETTINGS.readout_app_selector,
  hostConfigs: DRUNC_SETTINGS.host_configs,
  readoutPrivileged: true,
};
const IDENTITY = { homePathBase: HOME_BASE, runAsUsers: [{ user: USER, uid: UID, gid: UID }] };

/** kpm's decisions for one request, in the expected side's terms. */
function kpmOf(request: DruncBootRequest): DruncPod {
  const spec = specOf(request);
  const role = roleOf(spec);
  const network = processNetwork({ spec, role }, NETWORK);
  const host = spec.restriction!.allowedHosts![0];
  const readout = readoutProfileOf(spec, READOUT, host);
  const taken = readout?.mount
    ? { names: [readout.volume!.name], paths: [readout.mount.mountPath] }
    : undefined;
  const configured = configuredVolumes(VOLUMES, readout !== undefined, taken);
  const hostMounts: Record<string, HostMount> = {};
  configured.volumes.forEach((v, i) => {
    hostMounts[configured.mounts[i].mountPath] = {
      path: v.hostPath!.path,
      type: v.hostPath!.type as HostMount['type'],
      readOnly: configured.mounts[i].readOnly === true,
    };
  });
  const home = `${HOME_BASE}/${USER}`;
  if (!coveredBy(home, configured.mounts)) {
    hostMounts[home] = { path: home, type: 'Directory', readOnly: false };
  }
  for (const m of specMounts(spec))
    hostMounts[m.path] = { path: m.path, type: m.type, readOnly: false };
  const runAs = runAsOf(spec, USER, IDENTITY);
  const env = processEnv(spec, USER, IDENTITY);
  const commands = network.podIp
    ? rewriteGrpcHosts(spec.executableAndArguments)
    : spec.executableAndArguments;
  const server = network.containerPort !== undefined;
  return {
    name: spec.name,
    role,
    hostNetwork: network.hostNetwork,
    service: serviceOf(network.service),
    ...(network.containerPort ? { containerPort: network.containerPort.port } : {}),
    podIp: network.podIp,
    args: commands[commands.length - 1].args ?? [],
    execLast: !server,
    logFile: logFileRedirection(spec.logFile) ? spec.logFile! : '',
    preStop: role === 'application' || (role === 'infrastructure-applications' && !server),
    runAs: { uid: runAs.uid!, gid: runAs.gid!, fsGroup: runAs.gid! },
    privileged: readout?.privileged === true,
    ...(readout ? { resources: readout.resources as DruncPod['resources'] } : {}),
    hostMounts,
    hugepages: readout?.mount !== undefined,
    env: { USER: env.USER, HOME: env.HOME, DOTDRUNC: env.DOTDRUNC },
    host,
    localhostAlias: network.localhostAlias,
    bootWait: server ? 'http' : role === 'root-controller' ? 'tcp' : 'none',
  };
}

function serviceOf(service: ProcessService): DruncPod['service'] {
  return service.type === 'headless' ? { type: 'headless', port: 80 } : service;
}

describe('drunc’s boot requests: kpm decides each as drunc’s K8sProcessManager does', () => {
  it.each(DRUNC_BOOT_REQUESTS.map((r, i) => [r.metadata.name, r.metadata.tree_id, i] as const))(
    '%s (tree id %s)',
    (_, __, i) => {
      expect(kpmOf(DRUNC_BOOT_REQUESTS[i])).toEqual(DRUNC_PODS[i]);
    },
  );

  it('kills the session in drunc’s stages, segment controllers deepest first', () => {
    const processes = DRUNC_BOOT_REQUESTS.map((r) => {
      const spec = specOf(r);
      return { name: spec.name, role: roleOf(spec), treeId: spec.treeId };
    });
    const stages = shutdownGroups(processes).map((stage) => stage.map((p) => p.name));
    expect(stages.map((s) => [...s].sort())).toEqual(DRUNC_KILL_STAGES.map((s) => [...s].sort()));
  });
});
