/**
 * The pod and Service of one process (docs/design.md §6.3), composed of drunc's rules, each a
 * pure policy of its own: the network (process-network.ts: NodePort or the node's network,
 * POD_IP, the localhost alias), the readout pod (readout-profile.ts: host resources, privilege),
 * the user and environment (process-identity.ts), the mounts (configured-volumes.ts,
 * host-mounts.ts), the command line (shell-command.ts, with the log file's tee), the pod policy
 * (pod-policy.ts) and the probes (readiness-probe.ts); plus kpm's labels, the spec annotation for
 * restart and the termination-record finalizer.
 */
import type {
  V1Container,
  V1EnvVar,
  V1Pod,
  V1PodSpec,
  V1Service,
  V1Toleration,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import { currentTraceparent } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import { podNameOf, type KpmLabels } from '@kpm/kube';
import { configuredVolumes, coveredBy } from './configured-volumes';
import { logFileRedirection, specMounts } from './host-mounts';
import {
  allowedPrefixOf,
  hostPathVolumes,
  normalHostPath,
  prepareContainer,
  type HostDirectory,
  type HostPathVolumes,
} from './host-path-volumes';
import type { PlannedProcess } from './planned-process';
import { containerSecurityContext, podSecurityContext } from './pod-policy';
import { processEnv, runAsOf } from './process-identity';
import {
  isConnectionServer,
  localhostAliases,
  POD_IP_ENV,
  processNetwork,
  rewriteGrpcHosts,
  type NetworkSettings,
  type ProcessNetwork,
} from './process-network';
import { readinessProbe } from './readiness-probe';
import { backgroundScript, bootScript } from './shell-command';
import { withNodeLost } from './node-lost-toleration';
import { ownedByPod } from './pod-owner';
import { readoutProfileOf, type ReadoutPodProfile } from './readout-profile';

export interface BootContext {
  session: string;
  user: string;
  commandId: string;
  /** The connection server's address, once booted: `localhost` in the other pods (drunc). */
  connectionServer?: string;
}

/** Where the pod runs: bound to a node (no scheduler needed), or a node selector for a scheduler. */
export interface PodPlacement {
  nodeName?: string;
  nodeSelectorHost?: string;
  /** For a scheduler: the taints of the allowed host the process named. */
  tolerations?: V1Toleration[];
}

type PodSettings = Pick<KpmSettings, 'podManagement' | 'volumes' | 'homePathBase'>;

/** The annotation with which a process asks for a privileged container (allowed by config only). */
export function privilegedAnnotation(labels: KpmLabels): string {
  return `${labels.domain}/privileged`;
}

function asksPrivileged(process: PlannedProcess, labels: KpmLabels): boolean {
  return process.spec.annotations?.[privilegedAnnotation(labels)] === 'true';
}

/** What the rules decided for one pod, before it is written out. */
interface PodPlan {
  network: ProcessNetwork;
  readout?: ReadoutPodProfile;
  privileged: boolean;
  volumes: V1Volume[];
  mounts: V1VolumeMount[];
  /** The process's own host directories (host-path-volumes.ts), part of `volumes` and `mounts`. */
  hostPaths: HostPathVolumes;
}

export class PodBuilder {
  constructor(
    private readonly labels: KpmLabels,
    private readonly settings: PodSettings,
  ) {}

  /** The process's environment: its own, then drunc's USER, HOME and DOTDRUNC. */
  env(process: PlannedProcess, user: string): Record<string, string> {
    return processEnv(process.spec, user, this.settings);
  }

  image(process: PlannedProcess): string {
    return process.spec.image ?? this.settings.podManagement.image;
  }

  /** drunc's networking settings, in the network policy's terms. */
  networkSettings(): NetworkSettings {
    return this.settings.podManagement;
  }

  /** How the process is reached (network, Service, POD_IP, alias). */
  network(process: PlannedProcess): ProcessNetwork {
    return processNetwork(process, this.networkSettings());
  }

  pod(process: PlannedProcess, context: BootContext, placement: PodPlacement): V1Pod {
    const { spec } = process;
    const plan = this.plan(process, context.user, placement.nodeName ?? placement.nodeSelectorHost);
    const runAs = runAsOf(spec, context.user, this.settings.podManagement);
    const container = this.container(process, context, plan);
    const prepare = prepareContainer(
      plan.hostPaths,
      container,
      containerSecurityContext(false, { allowedCapabilities: [] }),
    );
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: podNameOf(spec.name),
        namespace: context.session,
        labels: this.podLabels(process, context),
        annotations: {
          ...spec.annotations,
          [this.labels.nameAnnotation]: spec.name,
          [this.labels.specAnnotation]: JSON.stringify(spec),
          [this.labels.commandAnnotation]: context.commandId,
          ...traceAnnotation(this.labels),
        },
        finalizers: [this.labels.terminationFinalizer],
      },
      spec: {
        restartPolicy: 'Never',
        // A DAQ process does not call the API server: no ServiceAccount token in its pod.
        automountServiceAccountToken: false,
        securityContext: podSecurityContext(plan.privileged, runAs),
        terminationGracePeriodSeconds: this.settings.podManagement.killTimeoutSeconds,
        ...(prepare ? { initContainers: [prepare] } : {}),
        containers: [container],
        volumes: plan.volumes.length > 0 ? plan.volumes : undefined,
        nodeName: placement.nodeName,
        nodeSelector: placement.nodeSelectorHost
          ? { 'kubernetes.io/hostname': placement.nodeSelectorHost }
          : undefined,
        tolerations: withNodeLost(placement.tolerations, this.settings.podManagement),
        ...hostNetworkOf(plan.network.hostNetwork || plan.readout?.hostNetwork === true),
        hostAliases: localhostAliases(plan.network, context.connectionServer),
      },
    };
  }

  private plan(process: PlannedProcess, user: string, host?: string): PodPlan {
    const pm = this.settings.podManagement;
    const readout = readoutProfileOf(
      process.spec,
      pm,
      host ?? process.spec.restriction?.allowedHosts?.[0],
    );
    const asked = asksPrivileged(process, this.labels) && pm.allowPrivileged;
    return {
      network: this.network(process),
      readout,
      // The validator refused an ask without permission; the builder checks again all the same.
      privileged: asked || readout?.privileged === true,
      ...this.mounts(process, user, readout),
    };
  }

  private container(process: PlannedProcess, context: BootContext, plan: PodPlan): V1Container {
    const { spec } = process;
    const { network, readout } = plan;
    const pm = this.settings.podManagement;
    return {
      name: podNameOf(spec.name),
      image: this.image(process),
      command: ['/bin/bash', '-c', this.script(process, network)],
      ...this.containerEnv(process, context.user, network),
      ...(network.containerPort
        ? {
            ports: [
              { name: network.containerPort.name, containerPort: network.containerPort.port },
            ],
          }
        : {}),
      workingDir: spec.executionDirectory,
      resources: readout?.resources ?? spec.resources,
      volumeMounts: plan.mounts.length > 0 ? plan.mounts : undefined,
      lifecycle: this.stopsOnQuit(process)
        ? { preStop: { exec: { command: ['/bin/sh', '-c', 'kill -QUIT 1'] } } }
        : undefined,
      securityContext: containerSecurityContext(
        plan.privileged,
        pm,
        readout?.privileged ? ['IPC_LOCK'] : [],
      ),
      readinessProbe: readinessProbe(process, pm),
    };
  }

  /**
   * drunc's command line: the log file's tee first; the root controller's `grpc://` addresses its
   * pod's; the connection server run in the background under a trap (drunc's, for gunicorn),
   * everything else with its last command `exec`'d.
   */
  private script(process: PlannedProcess, network: ProcessNetwork): string {
    const { spec } = process;
    const commands = network.podIp
      ? rewriteGrpcHosts(spec.executableAndArguments)
      : spec.executableAndArguments;
    const server = isConnectionServer(process, this.settings.podManagement.connectionServerName);
    const run = server ? backgroundScript(commands) : bootScript(commands);
    return `${logFileRedirection(spec.logFile)}${run}`;
  }

  /** drunc's preStop `kill -QUIT 1`: every process but the controllers and the connection server. */
  private stopsOnQuit(process: PlannedProcess): boolean {
    if (process.role === 'root-controller' || process.role === 'segment-controller') return false;
    return !isConnectionServer(process, this.settings.podManagement.connectionServerName);
  }

  /**
   * The container's environment: drunc's (above), the root controller's `POD_IP`, then the
   * variables taken from Secrets by reference (the kubelet reads them; kpm writes only the
   * names), and whole Secrets as envFrom (below `env`, as Kubernetes orders them).
   */
  containerEnv(
    process: PlannedProcess,
    user: string,
    network: Pick<ProcessNetwork, 'podIp'> = this.network(process),
  ): Pick<V1Container, 'env' | 'envFrom'> {
    const { secretEnv, envFrom } = process.spec;
    const env: V1EnvVar[] = [
      ...Object.entries(this.env(process, user)).map(([name, value]) => ({ name, value })),
      ...(network.podIp ? [POD_IP_ENV] : []),
      ...(secretEnv ?? []).map(({ name, secretKeyRef }) => ({
        name,
        valueFrom: { secretKeyRef: { name: secretKeyRef.name, key: secretKeyRef.key } },
      })),
    ];
    return envFrom?.length
      ? { env, envFrom: envFrom.map(({ secretRef }) => ({ secretRef: { name: secretRef.name } })) }
      : { env };
  }

  /**
   * The pod mounts a host path, runs privileged or in the node's network: what Pod Security
   * `baseline` forbids.
   */
  needsHostAccess(process: PlannedProcess, user: string): boolean {
    const plan = this.plan(process, user);
    const hostPaths = plan.volumes.some((v) => v.hostPath !== undefined);
    const hostNetwork = plan.network.hostNetwork || plan.readout?.hostNetwork === true;
    return plan.privileged || hostPaths || hostNetwork;
  }

  /**
   * The Service named after the pod, owned by it so it goes with it: drunc's NodePort for the
   * connection server and the root controller (`externalTrafficPolicy: Local`), else the headless
   * Service for discovery.
   */
  service(pod: V1Pod, process: PlannedProcess): V1Service {
    const name = pod.metadata!.name!;
    const labels = pod.metadata!.labels!;
    const { service } = this.network(process);
    const port = this.settings.podManagement.headlessDiscoveryPort;
    const selector = { [this.labels.app]: name, [this.labels.creator]: 'kpm' };
    return {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name,
        namespace: pod.metadata!.namespace,
        labels: {
          [this.labels.creator]: 'kpm',
          [this.labels.uuid]: labels[this.labels.uuid],
          [this.labels.session]: labels[this.labels.session],
          [this.labels.app]: name,
        },
        ownerReferences: ownedByPod(pod),
      },
      spec:
        service.type === 'NodePort'
          ? {
              type: 'NodePort',
              externalTrafficPolicy: 'Local',
              selector,
              ports: [
                {
                  name: 'drunc',
                  protocol: 'TCP',
                  port: service.port,
                  targetPort: service.port,
                  nodePort: service.nodePort,
                },
              ],
            }
          : {
              clusterIP: 'None',
              selector,
              ports: [{ name: 'discovery', port, targetPort: port }],
            },
    };
  }

  private podLabels(process: PlannedProcess, context: BootContext): Record<string, string> {
    const { spec } = process;
    return {
      ...spec.labels,
      [this.labels.creator]: 'kpm',
      [this.labels.uuid]: process.uuid,
      [this.labels.session]: context.session,
      ...(spec.treeId !== undefined ? { [this.labels.treeId]: spec.treeId } : {}),
      [this.labels.role]: process.role,
      [this.labels.user]: context.user,
      [this.labels.app]: podNameOf(spec.name),
    };
  }

  /**
   * drunc's mounts: a readout pod's hugepages, the configured volumes (configured-volumes.ts),
   * the home directory under `homePathBase` unless a configured mount covers it, then the
   * spec's log and data directories (host-mounts.ts); one mount per path. The home and the
   * spec's directories are mounted through their prefix (`homePathBase`, the allowed host path
   * prefix) so that no symlink below it can lead out (host-path-volumes.ts).
   */
  private mounts(
    process: PlannedProcess,
    user: string,
    readout?: ReadoutPodProfile,
  ): { volumes: V1Volume[]; mounts: V1VolumeMount[]; hostPaths: HostPathVolumes } {
    const own =
      readout?.volume && readout.mount
        ? { volume: readout.volume, mount: readout.mount }
        : undefined;
    const taken = own
      ? { names: [own.volume.name, 'hugepages'], paths: [own.mount.mountPath] }
      : undefined;
    const configured = configuredVolumes(this.settings.volumes, readout !== undefined, taken);
    const volumes = [...(own ? [own.volume] : []), ...configured.volumes];
    const mounts = [...(own ? [own.mount] : []), ...configured.mounts];
    const directories: HostDirectory[] = [];
    const add = (dir: HostDirectory) => {
      const path = normalHostPath(dir.path);
      const taken = [...mounts.map((m) => m.mountPath), ...directories.map((d) => d.path)];
      if (!taken.includes(path)) directories.push({ ...dir, path });
    };
    const base = this.settings.homePathBase;
    if (base) {
      const home = `${base}/${user}`;
      if (!coveredBy(home, configured.mounts)) {
        add({ field: 'home', name: 'kpm-home', path: home, prefix: base, type: 'Directory' });
      }
    }
    const prefixes = this.settings.podManagement.hostPathPrefixes;
    for (const m of specMounts(process.spec)) {
      const prefix = allowedPrefixOf(m.path, prefixes);
      // The validator refused such a path; a pod is never built around one.
      if (prefix === undefined) throw new Error(`${m.field}: ${m.path} is under no allowed prefix`);
      add({ field: m.field, name: m.name, path: m.path, prefix, type: m.type });
    }
    const hostPaths = hostPathVolumes(directories);
    volumes.push(...hostPaths.volumes);
    mounts.push(...hostPaths.mounts);
    return { volumes, mounts, hostPaths };
  }
}

/** A pod in the node's network still resolves the cluster's names (headless Services). */
function hostNetworkOf(hostNetwork: boolean): Partial<V1PodSpec> {
  return hostNetwork ? { hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' } : {};
}

/** The command's trace on the pod, so the watcher's termination record carries it too. */
function traceAnnotation(labels: KpmLabels): Record<string, string> {
  const traceparent = currentTraceparent();
  return traceparent ? { [labels.traceAnnotation]: traceparent } : {};
}
