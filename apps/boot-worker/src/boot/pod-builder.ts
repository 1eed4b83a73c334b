/**
 * The pod and headless Service of one process (docs/design.md §6.3), as pure functions of the spec,
 * the command and the settings: labels, drunc's role, the bash command line, USER/HOME, mounts,
 * placement, the readout profile, the spec annotation for restart and the termination-record finalizer.
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
import type { KpmLabels } from '@kpm/kube';
import type { PlannedProcess } from './planned-process';
import { containerSecurityContext, podSecurityContext } from './pod-policy';
import { readinessProbe } from './readiness-probe';
import { bootScript } from './shell-command';
import { ownedByPod } from './pod-owner';
import { readoutProfileOf, type ReadoutPodProfile } from './readout-profile';

export interface BootContext {
  session: string;
  user: string;
  commandId: string;
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

/** drunc's SIGQUIT preStop for applications; controllers and the connection server stop on SIGTERM. */
const PRE_STOP_ROLES = new Set(['application', 'unknown']);

export class PodBuilder {
  constructor(
    private readonly labels: KpmLabels,
    private readonly settings: PodSettings,
  ) {}

  /** drunc's home_path_base/<user>, else /home/<user>. */
  home(user: string): string {
    return `${this.settings.homePathBase ?? '/home'}/${user}`;
  }

  /** The process's environment: its own, then USER and HOME (a spec may set its own HOME). */
  env(process: PlannedProcess, user: string): Record<string, string> {
    return { HOME: this.home(user), ...process.spec.env, USER: user };
  }

  /**
   * The container's environment: the values above, then the variables taken from Secrets by
   * reference (the kubelet reads them; kpm writes only the names), and whole Secrets as envFrom
   * (below `env`, as Kubernetes orders them).
   */
  containerEnv(process: PlannedProcess, user: string): Pick<V1Container, 'env' | 'envFrom'> {
    const { secretEnv, envFrom } = process.spec;
    const env: V1EnvVar[] = [
      ...Object.entries(this.env(process, user)).map(([name, value]) => ({ name, value })),
      ...(secretEnv ?? []).map(({ name, secretKeyRef }) => ({
        name,
        valueFrom: { secretKeyRef: { name: secretKeyRef.name, key: secretKeyRef.key } },
      })),
    ];
    return envFrom?.length
      ? { env, envFrom: envFrom.map(({ secretRef }) => ({ secretRef: { name: secretRef.name } })) }
      : { env };
  }

  image(process: PlannedProcess): string {
    return process.spec.image ?? this.settings.podManagement.image;
  }

  pod(process: PlannedProcess, context: BootContext, placement: PodPlacement): V1Pod {
    const { spec } = process;
    // The validator refused the ask without permission; the builder checks again all the same.
    const privileged =
      asksPrivileged(process, this.labels) && this.settings.podManagement.allowPrivileged;
    const readout = readoutProfileOf(spec, this.settings.podManagement);
    const { volumes, mounts } = this.mounts(process, context.user, readout);
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: spec.name,
        namespace: context.session,
        labels: this.podLabels(process, context),
        annotations: {
          ...spec.annotations,
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
        securityContext: podSecurityContext(privileged, spec),
        terminationGracePeriodSeconds: this.settings.podManagement.killTimeoutSeconds,
        containers: [this.container(process, context, { privileged, readout, mounts })],
        volumes: volumes.length > 0 ? volumes : undefined,
        nodeName: placement.nodeName,
        nodeSelector: placement.nodeSelectorHost
          ? { 'kubernetes.io/hostname': placement.nodeSelectorHost }
          : undefined,
        tolerations: placement.tolerations,
        ...hostNetworkOf(readout),
      },
    };
  }

  private container(
    process: PlannedProcess,
    context: BootContext,
    made: { privileged: boolean; readout?: ReadoutPodProfile; mounts: V1VolumeMount[] },
  ): V1Container {
    const { spec } = process;
    return {
      name: spec.name,
      image: this.image(process),
      command: ['/bin/bash', '-c', bootScript(spec.executableAndArguments)],
      ...this.containerEnv(process, context.user),
      workingDir: spec.executionDirectory,
      resources: made.readout?.resources ?? spec.resources,
      volumeMounts: made.mounts.length > 0 ? made.mounts : undefined,
      lifecycle: PRE_STOP_ROLES.has(process.role)
        ? { preStop: { exec: { command: ['/bin/sh', '-c', 'kill -QUIT 1'] } } }
        : undefined,
      securityContext: containerSecurityContext(made.privileged, this.settings.podManagement),
      readinessProbe: readinessProbe(process, this.settings.podManagement),
    };
  }

  /**
   * The pod mounts a host path, runs privileged or in the node's network: what Pod Security
   * `baseline` forbids.
   */
  needsHostAccess(process: PlannedProcess, user: string): boolean {
    const privileged =
      asksPrivileged(process, this.labels) && this.settings.podManagement.allowPrivileged;
    const readout = readoutProfileOf(process.spec, this.settings.podManagement);
    const hostPaths = this.mounts(process, user).volumes.some((v) => v.hostPath !== undefined);
    return privileged || hostPaths || readout?.hostNetwork === true;
  }

  /** The headless Service for drunc's discovery, owned by `pod` so it goes with it. */
  service(pod: V1Pod): V1Service {
    const name = pod.metadata!.name!;
    const labels = pod.metadata!.labels!;
    const port = this.settings.podManagement.headlessDiscoveryPort;
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
      spec: {
        clusterIP: 'None',
        selector: { [this.labels.app]: name, [this.labels.creator]: 'kpm' },
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
      [this.labels.app]: spec.name,
    };
  }

  /**
   * Configured volumes, the home directory, the log and data directories, one mount per path;
   * then a readout pod's hugepages.
   */
  private mounts(
    process: PlannedProcess,
    user: string,
    readout?: ReadoutPodProfile,
  ): { volumes: V1Volume[]; mounts: V1VolumeMount[] } {
    const host = this.hostMounts(process, user);
    if (!readout?.volume || !readout.mount) return host;
    return {
      volumes: [...host.volumes, readout.volume],
      mounts: [...host.mounts, readout.mount],
    };
  }

  private hostMounts(
    process: PlannedProcess,
    user: string,
  ): { volumes: V1Volume[]; mounts: V1VolumeMount[] } {
    const wanted: {
      name: string;
      path: string;
      hostPath: string;
      readOnly?: boolean;
      type?: string;
    }[] = [
      ...this.settings.volumes.map((v) => ({
        name: v.name,
        path: v.mountPath,
        hostPath: v.hostPath,
        readOnly: v.readOnly,
      })),
    ];
    if (this.settings.homePathBase) {
      const home = this.home(user);
      wanted.push({ name: 'kpm-home', path: home, hostPath: home, type: 'Directory' });
    }
    const { logsPath, restriction } = process.spec;
    if (logsPath) {
      wanted.push({
        name: 'kpm-logs',
        path: logsPath,
        hostPath: logsPath,
        type: 'DirectoryOrCreate',
      });
    }
    if (restriction?.dataMount) {
      const data = restriction.dataMount;
      wanted.push({ name: 'kpm-data', path: data, hostPath: data, type: 'Directory' });
    }
    const seen = new Set<string>();
    const unique = wanted.filter((w) => !seen.has(w.path) && seen.add(w.path));
    return {
      volumes: unique.map((w) => ({ name: w.name, hostPath: { path: w.hostPath, type: w.type } })),
      mounts: unique.map((w) => ({
        name: w.name,
        mountPath: w.path,
        readOnly: w.readOnly || undefined,
      })),
    };
  }
}

/** A readout pod in the node's network still resolves the cluster's names (headless Services). */
function hostNetworkOf(readout: ReadoutPodProfile | undefined): Partial<V1PodSpec> {
  return readout?.hostNetwork ? { hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' } : {};
}

/** The command's trace on the pod, so the watcher's termination record carries it too. */
function traceAnnotation(labels: KpmLabels): Record<string, string> {
  const traceparent = currentTraceparent();
  return traceparent ? { [labels.traceAnnotation]: traceparent } : {};
}
