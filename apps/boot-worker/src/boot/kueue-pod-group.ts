/**
 * Kueue pod groups (docs/design.md §4 "Kueue pod groups"): how a pod joins one, how kpm holds the
 * later stages of drunc's order behind a scheduling gate of its own, and what Kueue's Workload
 * says when it does not admit the group. Pure: the boot (pod-group-boot.ts) acts on it.
 */
import { createHash } from 'node:crypto';
import type { V1Pod } from '@kubernetes/client-node';
import {
  KUEUE_ADMISSION_GATE,
  KUEUE_GROUP_TOTAL_ANNOTATION,
  KUEUE_POD_GROUP_LABEL,
  KUEUE_QUEUE_NAME_LABEL,
  type KpmLabels,
  type KueueCondition,
} from '@kpm/kube';

/** The group a pod belongs to: Kueue's Workload of that name admits all its pods or none. */
export interface PodGroupMembership {
  /** The group's name, also its Workload's: a DNS subdomain, a label value. */
  name: string;
  /** The LocalQueue (in the pod's namespace) that submits the group. */
  queue: string;
  /** How many pods make the group whole: Kueue composes its Workload once all exist. */
  total: number;
}

/** kpm's scheduling gate: a pod behind it waits for the stages before it in drunc's order. */
export function bootOrderGate(labels: KpmLabels): string {
  return `${labels.domain}/boot-order`;
}

/**
 * A boot's group, named after its command so that a redelivered boot makes the same one (and
 * adopts the pods it made): `kpm-` and 20 hex digits of the command id's SHA-256.
 */
export function podGroupOf(commandId: string, queue: string, total: number): PodGroupMembership {
  const digest = createHash('sha256').update(commandId).digest('hex').slice(0, 20);
  return { name: `kpm-${digest}`, queue, total };
}

/** The pod as a member of the group, held behind `gate` when one is given. */
export function inPodGroup(pod: V1Pod, group: PodGroupMembership, gate?: string): V1Pod {
  const metadata = pod.metadata ?? {};
  const spec = pod.spec!;
  return {
    ...pod,
    metadata: {
      ...metadata,
      labels: {
        ...metadata.labels,
        [KUEUE_QUEUE_NAME_LABEL]: group.queue,
        [KUEUE_POD_GROUP_LABEL]: group.name,
      },
      annotations: { ...metadata.annotations, [KUEUE_GROUP_TOTAL_ANNOTATION]: String(group.total) },
    },
    spec: gate
      ? { ...spec, schedulingGates: [...(spec.schedulingGates ?? []), { name: gate }] }
      : spec,
  };
}

/** The group a pod of kpm's belongs to, read from its labels (a restart joins the same one). */
export function podGroupOfPod(pod: V1Pod | undefined): PodGroupMembership | undefined {
  const name = pod?.metadata?.labels?.[KUEUE_POD_GROUP_LABEL];
  const queue = pod?.metadata?.labels?.[KUEUE_QUEUE_NAME_LABEL];
  const total = Number(pod?.metadata?.annotations?.[KUEUE_GROUP_TOTAL_ANNOTATION]);
  if (!name || !queue || !Number.isInteger(total) || total < 1) return undefined;
  return { name, queue, total };
}

/** Whether Kueue still holds the pod (its admission gate is on it). */
export function awaitsAdmission(pod: V1Pod | undefined): boolean {
  return Boolean(pod?.spec?.schedulingGates?.some((g) => g.name === KUEUE_ADMISSION_GATE));
}

/**
 * Why Kueue has not admitted the group, in Kueue's words: the message of its Workload's first
 * condition that is not true (QuotaReserved "insufficient quota for cpu …", an inactive or
 * missing queue); without a Workload, Kueue has not composed the group at all.
 */
export function notAdmittedReason(conditions: readonly KueueCondition[] | undefined): string {
  if (conditions === undefined)
    return 'Kueue made no Workload for the group (is Kueue running, with its pod integration on?)';
  const holding = conditions.find(
    (c) => c.status !== 'True' && ['QuotaReserved', 'Admitted'].includes(c.type),
  );
  if (holding) return `${holding.type} ${holding.reason ?? ''}: ${holding.message ?? ''}`.trim();
  return 'Kueue has not admitted its Workload yet';
}
