import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { PodLab } from '../../test/support/kpm-pods';
import { stackEnv, uniqueTopicPrefix } from '../../test/support/stack-env';
import { ensureTopics } from '../../test/support/watcher-env';
import { FactClock } from './fact-clock';
import { buildCompiledCli } from './kpm-cli';

/** What a bench run measures in: its id, its pod lab, its topic prefix and its facts' clock. */
export interface BenchRun {
  runId: string;
  lab: PodLab;
  prefix: string;
  clock: FactClock;
}

/** The compiled CLI, then a run of its own: a lab, a topic prefix with its topics, a clock. */
export async function openBenchRun(
  label: string,
  log: (message: string) => void,
): Promise<BenchRun> {
  log('compiling the CLI');
  await buildCompiledCli();
  const runId = `bench-${randomBytes(3).toString('hex')}`;
  const lab = await PodLab.open(runId);
  const prefix = uniqueTopicPrefix(label);
  await ensureTopics(prefix);
  const clock = await new FactClock(stackEnv().brokers, prefix).start();
  return { runId, lab, prefix, clock };
}

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
