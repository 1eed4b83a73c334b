/**
 * drunc's readout applications (docs/design.md §6.3 "Readout applications"): a process whose name
 * contains `readoutAppSelector` (drunc's readout_app_selector, "runp", in any case) is a readout
 * application. With `hostConfigs` (drunc's host_configs) its pod takes the resources of the host
 * it runs on, runs privileged with IPC_LOCK (`readoutPrivileged`) and mounts hugepages — drunc's
 * behaviour; a readout process on a host not listed is refused, as drunc fails it. Without
 * `hostConfigs`, kpm's one `readoutProfile` (when configured) serves every host: cpu and memory
 * with requests = limits (Guaranteed QoS), hugepages mounted at /dev/hugepages, the node's
 * network. What a profile decides a readout process may not ask itself: it is refused rather than
 * silently overridden. Pure: the validator and the pod builder both ask here.
 */
import type { V1ResourceRequirements, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { FieldError, ProcessSpec } from '@kpm/contracts';
import type { HostResources, ReadoutProfileConfig } from '@kpm/config';

export interface ReadoutSettings {
  readoutAppSelector: string;
  readoutProfile?: ReadoutProfileConfig;
  /** drunc's host_configs: resources by host; when any is listed, drunc's readout rules apply. */
  hostConfigs?: Readonly<Record<string, HostResources>>;
  /** drunc's privileged, IPC_LOCK readout containers (on `hostConfigs` hosts). */
  readoutPrivileged?: boolean;
}

/** What the profile puts on a readout pod. */
export interface ReadoutPodProfile {
  resources: V1ResourceRequirements;
  hostNetwork: boolean;
  volume?: V1Volume;
  mount?: V1VolumeMount;
  /** drunc's `privileged: true` with `capabilities.add: [IPC_LOCK]`. */
  privileged?: boolean;
}

const HUGEPAGES_VOLUME: V1Volume = { name: 'kpm-hugepages', emptyDir: { medium: 'HugePages' } };
const HUGEPAGES_MOUNT: V1VolumeMount = { name: 'kpm-hugepages', mountPath: '/dev/hugepages' };

/** Whether drunc's per-host readout rules apply (the operator listed readout hosts). */
export function usesHostConfigs(settings: ReadoutSettings): boolean {
  return Object.keys(settings.hostConfigs ?? {}).length > 0;
}

/** drunc's test: the selector, lower-cased, is part of the lower-cased process name. */
export function isReadoutProcess(name: string, selector: string): boolean {
  return name.toLowerCase().includes(selector.toLowerCase());
}

/**
 * The profile of `spec`'s pod on `host` (the node it is placed on), or undefined when it is no
 * readout process, or none applies (no profile, or a host `hostConfigs` does not list).
 */
export function readoutProfileOf(
  spec: ProcessSpec,
  settings: ReadoutSettings,
  host?: string,
): ReadoutPodProfile | undefined {
  if (!isReadoutProcess(spec.name, settings.readoutAppSelector)) return undefined;
  if (usesHostConfigs(settings)) return hostProfileOf(spec, settings, host);
  const profile = settings.readoutProfile;
  if (!profile) return undefined;
  const guaranteed = profileQuantities(profile);
  const own = spec.resources ?? {};
  const hugepages = profile.hugepages !== undefined;
  return {
    resources: {
      requests: { ...own.requests, ...guaranteed },
      limits: { ...own.limits, ...guaranteed },
    },
    hostNetwork: profile.hostNetwork,
    ...(hugepages ? { volume: HUGEPAGES_VOLUME, mount: HUGEPAGES_MOUNT } : {}),
  };
}

/**
 * drunc's readout pod on `host`: the host's limits and requests over the process's own, the
 * privileged IPC_LOCK container, hugepages mounted when the host gives the pod some.
 */
function hostProfileOf(
  spec: ProcessSpec,
  settings: ReadoutSettings,
  host: string | undefined,
): ReadoutPodProfile | undefined {
  const config = host === undefined ? undefined : settings.hostConfigs?.[host];
  if (!config) return undefined;
  const own = spec.resources ?? {};
  const resources = {
    requests: { ...own.requests, ...config.requests },
    limits: { ...own.limits, ...config.limits },
  };
  const hugepages = [...Object.keys(resources.requests), ...Object.keys(resources.limits)].some(
    (resource) => resource.startsWith('hugepages-'),
  );
  return {
    resources,
    hostNetwork: false,
    privileged: settings.readoutPrivileged ?? true,
    ...(hugepages ? { volume: HUGEPAGES_VOLUME, mount: HUGEPAGES_MOUNT } : {}),
  };
}

/** The resources the profile decides, each as both request and limit. */
function profileQuantities(profile: ReadoutProfileConfig): Record<string, string> {
  return {
    cpu: profile.cpu,
    memory: profile.memory,
    ...(profile.hugepages !== undefined
      ? { [`hugepages-${profile.hugepagesPageSize}`]: profile.hugepages }
      : {}),
  };
}

/**
 * A readout process (at `at`) on a host `hostConfigs` does not list, or asking for a resource
 * its profile decides.
 */
export function readoutErrors(
  at: string,
  spec: ProcessSpec,
  settings: ReadoutSettings,
): FieldError[] {
  if (!isReadoutProcess(spec.name, settings.readoutAppSelector)) return [];
  if (usesHostConfigs(settings)) return hostConfigErrors(at, spec, settings);
  const profile = settings.readoutProfile;
  if (!profile) return [];
  const decided = Object.keys(profileQuantities(profile));
  return (['requests', 'limits'] as const).flatMap((kind) => {
    const asked = Object.keys(spec.resources?.[kind] ?? {}).filter(
      (resource) => decided.includes(resource) || resource.startsWith('hugepages-'),
    );
    if (asked.length === 0) return [];
    const message = `${asked.join(', ')} of a readout process (its name contains ${JSON.stringify(settings.readoutAppSelector)}, podManagement.readoutAppSelector) is set by podManagement.readoutProfile (requests = limits), not by the process`;
    return [{ path: `${at}.resources.${kind}`, message }];
  });
}

/**
 * drunc fails a readout application whose host is missing from host_configs; kpm refuses it
 * before anything runs, and every allowed host must be listed (kpm may place it on any of them).
 * The host's resources are its own: a process asking one of them is refused.
 */
function hostConfigErrors(at: string, spec: ProcessSpec, settings: ReadoutSettings): FieldError[] {
  const configs = settings.hostConfigs ?? {};
  const listed = Object.keys(configs).join(', ');
  const selected = `a readout process (its name contains ${JSON.stringify(settings.readoutAppSelector)}, podManagement.readoutAppSelector)`;
  const hosts = spec.restriction?.allowedHosts ?? [];
  if (hosts.length === 0) {
    const message = `${selected} must name its host, one of podManagement.hostConfigs: ${listed}`;
    return [{ path: `${at}.restriction.allowedHosts`, message }];
  }
  const missing = hosts.filter((host) => !(host in configs));
  const errors: FieldError[] = [];
  if (missing.length > 0) {
    const message = `${selected} runs only on a host of podManagement.hostConfigs (${listed}), not ${missing.join(', ')}`;
    errors.push({ path: `${at}.restriction.allowedHosts`, message });
  }
  const decided = new Set(
    hosts.flatMap((host) => [
      ...Object.keys(configs[host]?.requests ?? {}),
      ...Object.keys(configs[host]?.limits ?? {}),
    ]),
  );
  for (const kind of ['requests', 'limits'] as const) {
    const asked = Object.keys(spec.resources?.[kind] ?? {}).filter((r) => decided.has(r));
    if (asked.length === 0) continue;
    const message = `${asked.join(', ')} of ${selected} is set by its host's podManagement.hostConfigs, not by the process`;
    errors.push({ path: `${at}.resources.${kind}`, message });
  }
  return errors;
}
