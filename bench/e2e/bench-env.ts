import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { PodLab } from '../../test/support/kpm-pods';

/** "2 cores (AMD EPYC), 23 GiB": what the numbers were measured on. */
export function machine(): string {
  const model =
    /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model;
  return `${cpus().length} cores (${model}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Linux`;
}

/** Deletes what a failed run left: pods released from their finalizer, then the namespace. */
export async function releaseSessions(lab: PodLab, sessions: string[]): Promise<void> {
  for (const namespace of sessions) {
    const pods = await lab.core.listNamespacedPod({ namespace }).catch(() => undefined);
    for (const pod of pods?.items ?? []) {
      if (!pod.metadata?.finalizers?.length) continue;
      await lab.core
        .patchNamespacedPod(
          { namespace, name: pod.metadata.name!, body: { metadata: { finalizers: null } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        )
        .catch(() => undefined);
    }
    await lab.core.deleteNamespace({ name: namespace }).catch(() => undefined);
  }
}
