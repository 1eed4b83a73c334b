/**
 * What a process may ask of its node (docs/design.md §6.3 "Pod security"): safe by default,
 * loosened only by configuration. Pure: the boot validator refuses what breaks it (naming the
 * field and what is allowed), the pod builder applies the defaults, and restart runs the stored
 * spec through the same rules.
 */
import { posix } from 'node:path';
import type { V1PodSecurityContext, V1SecurityContext } from '@kubernetes/client-node';
import type { FieldError, ProcessSpec } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import { milliOf } from '@kpm/kube';
import { dataMountPath, specMounts } from './host-mounts';
import { runAsRefusal, type IdentitySettings } from './process-identity';
import { readoutErrors, readoutProfileOf, type ReadoutSettings } from './readout-profile';

export interface PodPolicy {
  /** kpm's label domain: its own keys are reserved. */
  domain: string;
  /** Host directories a process may mount (`logsPath`, `logFile`'s, `dataMount`), and below. */
  hostPathPrefixes: readonly string[];
  allowPrivileged: boolean;
  /** Linux capabilities kept after dropping ALL (e.g. `NET_ADMIN`); none by default. */
  allowedCapabilities: readonly string[];
  /** Largest cpu / memory a process may request or limit (Kubernetes quantities). */
  maxCpu?: string;
  maxMemory?: string;
  /** Most processes one boot may carry (the contract allows 5000). */
  maxProcessesPerBoot?: number;
  /** Which processes are readout applications and the profile they get (readout-profile.ts). */
  readout: ReadoutSettings;
  /** The uids and gids a process may run as; unset: none may be asked. */
  runAsUidRange?: IdRange;
  runAsGidRange?: IdRange;
  /** Whom a user's processes run as when they ask no ids (process-identity.ts). */
  runAsUsers: IdentitySettings['runAsUsers'];
  defaultRunAs?: IdentitySettings['defaultRunAs'];
}

interface IdRange {
  min: number;
  max: number;
}

/** The policy the settings describe, for kpm's label domain. */
export function podPolicyOf(
  settings: Pick<KpmSettings, 'podManagement'>,
  domain: string,
): PodPolicy {
  const pm = settings.podManagement;
  return {
    domain,
    hostPathPrefixes: pm.hostPathPrefixes,
    allowPrivileged: pm.allowPrivileged,
    allowedCapabilities: pm.allowedCapabilities,
    ...(pm.maxCpu !== undefined ? { maxCpu: pm.maxCpu } : {}),
    ...(pm.maxMemory !== undefined ? { maxMemory: pm.maxMemory } : {}),
    ...(pm.maxProcessesPerBoot !== undefined
      ? { maxProcessesPerBoot: pm.maxProcessesPerBoot }
      : {}),
    readout: {
      readoutAppSelector: pm.readoutAppSelector,
      readoutProfile: pm.readoutProfile,
      hostConfigs: pm.hostConfigs,
      readoutPrivileged: pm.readoutPrivileged,
    },
    ...(pm.runAsUidRange !== undefined ? { runAsUidRange: pm.runAsUidRange } : {}),
    ...(pm.runAsGidRange !== undefined ? { runAsGidRange: pm.runAsGidRange } : {}),
    runAsUsers: pm.runAsUsers,
    ...(pm.defaultRunAs !== undefined ? { defaultRunAs: pm.defaultRunAs } : {}),
  };
}

/** Host paths never mounted, whatever the prefixes say: they hand over the node. */
const FORBIDDEN_HOST_PATHS = [
  '/etc',
  '/root',
  '/proc',
  '/sys',
  '/dev',
  '/boot',
  '/run',
  '/var/run',
  '/var/lib/kubelet',
  '/var/lib/containerd',
  '/var/lib/docker',
  '/var/lib/etcd',
] as const;

/** Whom a label or annotation key is reserved for: Kubernetes, kpm, or nobody (undefined). */
function reservedFor(key: string, domain: string): 'Kubernetes' | 'kpm' | undefined {
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? '' : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  const owned = (p: string, d: string) => p === d || p.endsWith(`.${d}`);
  if (owned(prefix, 'kubernetes.io') || owned(prefix, 'k8s.io')) return 'Kubernetes';
  if (owned(prefix, domain)) return 'kpm';
  return prefix === '' && owned(name, domain) ? 'kpm' : undefined; // uuid.<d>, session.<d>, …
}

export function isReservedKey(key: string, domain: string): boolean {
  return reservedFor(key, domain) !== undefined;
}

/** `path` normalised; refused unless under an allowed prefix and outside the forbidden ones. */
export function hostPathReason(path: string, prefixes: readonly string[]): string | undefined {
  const normal = posix.normalize(path).replace(/(.)\/+$/, '$1');
  const allowed = `allowed: ${prefixes.length > 0 ? prefixes.join(', ') : 'none'} (podManagement.hostPathPrefixes)`;
  if (!normal.startsWith('/')) return `must be an absolute host path; ${allowed}`;
  const forbidden = normal === '/' || FORBIDDEN_HOST_PATHS.some((f) => within(normal, f));
  if (forbidden) return `${JSON.stringify(normal)} would expose the node; ${allowed}`;
  if (!prefixes.some((p) => within(normal, p))) {
    return `${JSON.stringify(normal)} is not under an allowed host path prefix; ${allowed}`;
  }
  return undefined;
}

function within(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix === '/' ? '/' : `${prefix}/`);
}

/** Every rule of `policy` that `spec` (at `at`, e.g. `processes[3]`) of `user` breaks. */
export function specPolicyErrors(
  at: string,
  spec: ProcessSpec,
  policy: PodPolicy,
  user: string,
): FieldError[] {
  return [
    ...hostPathErrors(at, spec, policy),
    ...reservedKeyErrors(at, spec, policy.domain),
    ...resourceErrors(at, spec, policy),
    ...readoutErrors(at, spec, policy.readout),
    ...runAsErrors(at, spec, policy),
    ...rootErrors(at, spec, policy, user),
  ];
}

/**
 * Whether the process is on the privileged path, the only one that may run as its image's user
 * (root): its privileged ask with `allowPrivileged` on, or drunc's privileged readout pod.
 */
export function onPrivilegedPath(spec: ProcessSpec, policy: PodPolicy): boolean {
  const asked = spec.annotations?.[`${policy.domain}/privileged`] === 'true';
  if (asked && policy.allowPrivileged) return true;
  const host = spec.restriction?.allowedHosts?.[0];
  return readoutProfileOf(spec, policy.readout, host)?.privileged === true;
}

/** A process off the privileged path without a uid and gid would run as its image's user. */
function rootErrors(at: string, spec: ProcessSpec, policy: PodPolicy, user: string): FieldError[] {
  const refusal = runAsRefusal(spec, user, policy, onPrivilegedPath(spec, policy));
  if (refusal === undefined) return [];
  return [{ path: `${at}.${spec.uid === undefined ? 'uid' : 'gid'}`, message: refusal }];
}

/** A uid or gid outside the operator's range, or any when no range is configured. */
function runAsErrors(at: string, spec: ProcessSpec, policy: PodPolicy): FieldError[] {
  const asks: Array<['uid' | 'gid', number | undefined, IdRange | undefined, string]> = [
    ['uid', spec.uid, policy.runAsUidRange, 'podManagement.runAsUidRange'],
    ['gid', spec.gid, policy.runAsGidRange, 'podManagement.runAsGidRange'],
  ];
  return asks.flatMap(([field, id, range, setting]) => {
    if (id === undefined) return [];
    if (!range) {
      const message = `${id} may not be asked: no ${field} range is configured (${setting})`;
      return [{ path: `${at}.${field}`, message }];
    }
    if (id >= range.min && id <= range.max) return [];
    const message = `${id} is outside the allowed range ${range.min}-${range.max} (${setting})`;
    return [{ path: `${at}.${field}`, message }];
  });
}

/**
 * The spec's host directories (its log directory, its log file's directory, its data directory)
 * each under an allowed prefix; drunc's `"."` data mount needs an execution directory.
 */
function hostPathErrors(at: string, spec: ProcessSpec, policy: PodPolicy): FieldError[] {
  const errors: FieldError[] = specMounts(spec).flatMap(({ field, path }) => {
    const reason = hostPathReason(path, policy.hostPathPrefixes);
    const what = field === 'logFile' ? `its directory ${JSON.stringify(path)}: ` : '';
    return reason ? [{ path: `${at}.${field}`, message: `${what}${reason}` }] : [];
  });
  if (spec.restriction?.dataMount !== undefined && dataMountPath(spec) === undefined) {
    const message = `${JSON.stringify(spec.restriction.dataMount)} is the execution directory, and the process has no executionDirectory`;
    errors.push({ path: `${at}.restriction.dataMount`, message });
  }
  return errors;
}

/** Labels and annotations under Kubernetes' or kpm's prefixes (kpm's privileged ask aside). */
function reservedKeyErrors(at: string, spec: ProcessSpec, domain: string): FieldError[] {
  const privileged = `${domain}/privileged`;
  const refuse = (field: 'labels' | 'annotations', key: string): FieldError[] => {
    const owner = key === privileged ? undefined : reservedFor(key, domain);
    if (owner === undefined) return [];
    const why =
      owner === 'kpm'
        ? 'is reserved for kpm'
        : 'is reserved for Kubernetes (kubernetes.io/, k8s.io/)';
    return [{ path: `${at}.${field}`, message: `key ${JSON.stringify(key)} ${why}` }];
  };
  return [
    ...Object.keys(spec.labels ?? {}).flatMap((key) => refuse('labels', key)),
    ...Object.keys(spec.annotations ?? {}).flatMap((key) => refuse('annotations', key)),
  ];
}

function resourceErrors(at: string, spec: ProcessSpec, policy: PodPolicy): FieldError[] {
  const caps: Array<[string, string | undefined]> = [
    ['cpu', policy.maxCpu],
    ['memory', policy.maxMemory],
  ];
  const errors: FieldError[] = [];
  for (const kind of ['requests', 'limits'] as const) {
    for (const [resource, max] of caps) {
      const asked = spec.resources?.[kind]?.[resource];
      if (max === undefined || asked === undefined) continue;
      if ((milliOf(asked) ?? NaN) > (milliOf(max) ?? NaN)) {
        const message = `${resource} ${JSON.stringify(asked)} is above the most a process may have, ${max} (podManagement.max${resource === 'cpu' ? 'Cpu' : 'Memory'})`;
        errors.push({ path: `${at}.resources.${kind}`, message });
      }
    }
  }
  return errors;
}

/** A boot with more processes than the operator allows. */
export function bootSizeErrors(count: number, policy: PodPolicy): FieldError[] {
  const max = policy.maxProcessesPerBoot;
  if (max === undefined || count <= max) return [];
  const message = `must list at most ${max} processes (podManagement.maxProcessesPerBoot), not ${count}`;
  return [{ path: 'processes', message }];
}

/**
 * Pod Security Admission level of a session namespace. `baseline` is enforced unless a pod of
 * the session needs what baseline forbids and kpm's own policy allowed: a host path under the
 * prefixes, or a privileged container the operator allows. `restricted` is always warned and
 * audited, so what a session gives up is visible.
 */
export type PodSecurityLevel = 'baseline' | 'privileged';
export const POD_SECURITY_ENFORCE = 'pod-security.kubernetes.io/enforce';

export function podSecurityLabels(level: PodSecurityLevel): Record<string, string> {
  return {
    [POD_SECURITY_ENFORCE]: level,
    'pod-security.kubernetes.io/warn': 'restricted',
    'pod-security.kubernetes.io/audit': 'restricted',
  };
}

/**
 * The pod's security context: off the privileged path `runAsNonRoot` (the kubelet refuses to
 * start a container as uid 0, whatever the image says) and RuntimeDefault seccomp; the user and
 * group it runs as (process-identity.ts; the validator checked the ranges), the group also
 * owning its volumes (fsGroup, as drunc sets it for hugepages).
 */
export function podSecurityContext(
  privileged: boolean,
  runAs: Pick<ProcessSpec, 'uid' | 'gid'> = {},
): V1PodSecurityContext | undefined {
  const context: V1PodSecurityContext = {
    ...(privileged ? {} : { runAsNonRoot: true }),
    ...(runAs.uid !== undefined ? { runAsUser: runAs.uid } : {}),
    ...(runAs.gid !== undefined ? { runAsGroup: runAs.gid, fsGroup: runAs.gid } : {}),
    ...(privileged ? {} : { seccompProfile: { type: 'RuntimeDefault' } }),
  };
  return Object.keys(context).length > 0 ? context : undefined;
}

/**
 * The container's security context: privileged only when the process asked and the operator
 * allows it (the validator refused the ask otherwise), or for drunc's readout applications (with
 * IPC_LOCK, `privilegedCapabilities`); else no escalation, every capability dropped but the
 * configured ones, RuntimeDefault seccomp.
 */
export function containerSecurityContext(
  privileged: boolean,
  policy: Pick<PodPolicy, 'allowedCapabilities'>,
  privilegedCapabilities: readonly string[] = [],
): V1SecurityContext {
  if (privileged) {
    return privilegedCapabilities.length > 0
      ? { privileged: true, capabilities: { add: [...privilegedCapabilities] } }
      : { privileged: true };
  }
  return {
    privileged: false,
    allowPrivilegeEscalation: false,
    capabilities: {
      drop: ['ALL'],
      ...(policy.allowedCapabilities.length > 0 ? { add: [...policy.allowedCapabilities] } : {}),
    },
    seccompProfile: { type: 'RuntimeDefault' },
  };
}
