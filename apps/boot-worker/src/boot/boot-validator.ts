/**
 * The checks of a boot that need configuration or the cluster's state (docs/design.md §6.7),
 * beyond what the contract validates: session ownership, names taken by running processes,
 * the image allow-list, privileged asks, keys reserved for kpm. Pure: the caller reads the state.
 */
import type { FieldError, ProcessSpec } from '@kpm/contracts';
import { podNameOf, type KpmLabels } from '@kpm/kube';
import { imageAllowed } from './image-policy';
import type { KpmSettings } from '@kpm/config';
import { bootSizeErrors, podPolicyOf, specPolicyErrors, type PodPolicy } from './pod-policy';
import type { PlannedProcess } from './planned-process';
import { privilegedAnnotation } from './pod-builder';
import { sessionOwnershipErrors, type NamespaceView } from './session-ownership';

/** A pod already in the session (or, for `elsewhere`, in another one). */
export interface ExistingProcess {
  name: string;
  /** Its pod's name (derived from the name: `podNameOf`). */
  podName?: string;
  uuid?: string;
  /** Running and not being deleted. */
  alive: boolean;
  session?: string;
}

export interface BootPolicy {
  labels: KpmLabels;
  allowedImages: readonly string[];
  defaultImage: string;
  allowPrivileged: boolean;
  /** Host paths, reserved keys, resource caps, boot size (pod-policy.ts). */
  pod: PodPolicy;
}

/** The policy the settings describe: one for boot and for restart. */
export function bootPolicyOf(
  settings: Pick<KpmSettings, 'podManagement'>,
  labels: KpmLabels,
): BootPolicy {
  const pm = settings.podManagement;
  return {
    labels,
    allowedImages: pm.allowedImages,
    defaultImage: pm.image,
    allowPrivileged: pm.allowPrivileged,
    pod: podPolicyOf(settings, labels.domain),
  };
}

export interface BootInput {
  session: string;
  user: string;
  processes: readonly PlannedProcess[];
  namespace?: NamespaceView;
  existing: readonly ExistingProcess[];
  /** kpm's pods in other sessions that carry one of the boot's client-supplied uuids. */
  elsewhere?: readonly ExistingProcess[];
}

/** Kubernetes label values start and end with a letter or digit; kpm labels pods with the user. */
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;

export function validateBoot(input: BootInput, policy: BootPolicy): FieldError[] {
  return [
    ...sessionErrors(input),
    ...bootSizeErrors(input.processes.length, policy.pod),
    ...input.processes.flatMap((p) => processErrors(p, input, policy)),
  ];
}

function sessionErrors({ session, user, namespace }: BootInput): FieldError[] {
  const errors: FieldError[] = [];
  if (!LABEL_VALUE.test(user)) {
    errors.push({
      path: 'user',
      message: `${JSON.stringify(user)} cannot label the session's pods: a Kubernetes label value starts and ends with a letter or digit`,
    });
  }
  // Operators act on others' sessions but boot only into their own: every pod of a session
  // carries its owner's label, so its owner can still kill what was booted there.
  return [...errors, ...sessionOwnershipErrors(session, { user, operators: [] }, namespace)];
}

function processErrors(
  process: PlannedProcess,
  input: BootInput,
  policy: BootPolicy,
): FieldError[] {
  const at = `processes[${process.index}]`;
  const { spec } = process;
  const errors: FieldError[] = [];
  errors.push(...podNameErrors(at, process, input));
  const taken = input.existing.find(
    (e) => e.alive && e.name === spec.name && e.uuid !== process.uuid,
  );
  if (taken) {
    errors.push({
      path: `${at}.name`,
      message: `${JSON.stringify(spec.name)} is already running in session ${JSON.stringify(input.session)} (uuid ${taken.uuid ?? 'unknown'}); kill it first or choose another name`,
    });
  }
  errors.push(...uuidErrors(at, process, input));
  errors.push(...imageErrors(at, spec, policy));
  if (spec.env?.USER !== undefined && spec.env.USER !== input.user) {
    errors.push({
      path: `${at}.env`,
      message: `USER is set by kpm to the command's user ${JSON.stringify(input.user)}, not ${JSON.stringify(spec.env.USER)}`,
    });
  }
  errors.push(...reservedKeyErrors(at, spec, policy));
  errors.push(...specPolicyErrors(at, spec, policy.pod, input.user));
  return errors;
}

/**
 * Two names whose pods would share a name (libs/kube pod-name.ts): a name that is a label
 * spelling another name's derived form, or a hash collision. Refused, never renamed: the pod's
 * name must stay the same on every boot and restart of the process.
 */
function podNameErrors(at: string, process: PlannedProcess, input: BootInput): FieldError[] {
  const { name } = process.spec;
  const podName = podNameOf(name);
  const twin = input.processes.find(
    (p) => p.index < process.index && p.spec.name !== name && podNameOf(p.spec.name) === podName,
  );
  const running = input.existing.find(
    (e) => e.alive && e.name !== name && (e.podName ?? podNameOf(e.name)) === podName,
  );
  const clash = twin
    ? `processes[${twin.index}] ${JSON.stringify(twin.spec.name)}`
    : running && `the running process ${JSON.stringify(running.name)}`;
  if (!clash) return [];
  return [
    {
      path: `${at}.name`,
      message: `${JSON.stringify(name)} would name its pod ${JSON.stringify(podName)}, as ${clash} does: rename one of them`,
    },
  ];
}

/** A uuid given twice, owned by another process of the session, or used in another session. */
function uuidErrors(at: string, process: PlannedProcess, input: BootInput): FieldError[] {
  const errors: FieldError[] = [];
  const twin = input.processes.find((p) => p.uuid === process.uuid && p.index < process.index);
  if (twin) {
    errors.push({ path: `${at}.uuid`, message: `duplicate uuid (also processes[${twin.index}])` });
  }
  const owner = input.existing.find((e) => e.uuid === process.uuid && e.name !== process.spec.name);
  if (owner) {
    errors.push({
      path: `${at}.uuid`,
      message: `uuid ${process.uuid} already belongs to process ${JSON.stringify(owner.name)} in session ${JSON.stringify(input.session)}`,
    });
  }
  const other = input.elsewhere?.find(
    (e) => e.uuid === process.uuid && e.session !== input.session,
  );
  if (other) {
    errors.push({
      path: `${at}.uuid`,
      message: `uuid ${process.uuid} is already used by process ${JSON.stringify(other.name)} in session ${JSON.stringify(other.session)}`,
    });
  }
  return errors;
}

function imageErrors(at: string, spec: ProcessSpec, policy: BootPolicy): FieldError[] {
  const image = spec.image ?? policy.defaultImage;
  if (imageAllowed(image, policy.allowedImages)) return [];
  const what =
    spec.image === undefined
      ? `the default image ${JSON.stringify(image)}`
      : `image ${JSON.stringify(image)}`;
  return [
    {
      path: `${at}.image`,
      message: `${what} is not in the allow-list (${policy.allowedImages.join(', ')})`,
    },
  ];
}

/**
 * kpm's `app` label cannot be set by a spec, and its privileged ask must be "true" or "false"
 * and allowed; the other reserved prefixes are the pod policy's (pod-policy.ts).
 */
function reservedKeyErrors(at: string, spec: ProcessSpec, policy: BootPolicy): FieldError[] {
  const { labels } = policy;
  const errors: FieldError[] = [];
  for (const key of Object.keys(spec.labels ?? {})) {
    if (key === labels.app) {
      errors.push({
        path: `${at}.labels`,
        message: `key ${JSON.stringify(key)} is reserved for kpm`,
      });
    }
  }
  const privileged = privilegedAnnotation(labels);
  for (const [key, value] of Object.entries(spec.annotations ?? {})) {
    if (key === privileged) {
      if (value !== 'true' && value !== 'false') {
        errors.push({
          path: `${at}.annotations`,
          message: `${JSON.stringify(key)} must be "true" or "false"`,
        });
      } else if (value === 'true' && !policy.allowPrivileged) {
        errors.push({
          path: `${at}.annotations`,
          message: `${JSON.stringify(key)} asks for a privileged container, which this boot-worker does not allow (podManagement.allowPrivileged)`,
        });
      }
    }
  }
  return errors;
}
