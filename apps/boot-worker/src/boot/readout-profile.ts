/**
 * drunc's readout profile (docs/design.md §6.3 "The readout profile"): a process whose name
 * contains `readoutAppSelector` (drunc's readout_app_selector, "runp", in any case) is a readout
 * application, and when the operator configured `readoutProfile` its pod gets it — cpu and memory
 * with requests = limits (Guaranteed QoS), hugepages mounted at /dev/hugepages, the node's
 * network. The profile decides those resources: a readout process asking its own is refused
 * rather than silently overridden. Pure: the validator and the pod builder both ask here.
 */
import type { V1ResourceRequirements, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { FieldError, ProcessSpec } from '@kpm/contracts';
import type { ReadoutProfileConfig } from '@kpm/config';

export interface ReadoutSettings {
  readoutAppSelector: string;
  readoutProfile?: ReadoutProfileConfig;
}

/** What the profile puts on a readout pod. */
export interface ReadoutPodProfile {
  resources: V1ResourceRequirements;
  hostNetwork: boolean;
  volume?: V1Volume;
  mount?: V1VolumeMount;
}

/** drunc's test: the selector, lower-cased, is part of the lower-cased process name. */
export function isReadoutProcess(name: string, selector: string): boolean {
  return name.toLowerCase().includes(selector.toLowerCase());
}

/** The profile of `spec`'s pod, or undefined when it is no readout process or none is set. */
export function readoutProfileOf(
  spec: ProcessSpec,
  settings: ReadoutSettings,
): ReadoutPodProfile | undefined {
  const profile = settings.readoutProfile;
  if (!profile || !isReadoutProcess(spec.name, settings.readoutAppSelector)) return undefined;
  const guaranteed = profileQuantities(profile);
  const own = spec.resources ?? {};
  const hugepages = profile.hugepages !== undefined;
  return {
    resources: {
      requests: { ...own.requests, ...guaranteed },
      limits: { ...own.limits, ...guaranteed },
    },
    hostNetwork: profile.hostNetwork,
    ...(hugepages
      ? {
          volume: { name: 'kpm-hugepages', emptyDir: { medium: 'HugePages' } },
          mount: { name: 'kpm-hugepages', mountPath: '/dev/hugepages' },
        }
      : {}),
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

/** A readout process (at `at`) asking for a resource the profile decides. */
export function readoutErrors(
  at: string,
  spec: ProcessSpec,
  settings: ReadoutSettings,
): FieldError[] {
  const profile = settings.readoutProfile;
  if (!profile || !isReadoutProcess(spec.name, settings.readoutAppSelector)) return [];
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
