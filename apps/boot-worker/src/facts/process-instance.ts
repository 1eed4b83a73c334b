import type { V1Pod } from '@kubernetes/client-node';
import type { ProcessInstance } from '@kpm/contracts';
import type { PlannedProcess } from '../boot/planned-process';

/** drunc's ProcessInstance of a freshly booted process, with the pod's Kubernetes facts. */
export function runningInstance(
  process: PlannedProcess,
  pod: V1Pod,
  context: { session: string; user: string; env: Record<string, string> },
): ProcessInstance {
  const { spec } = process;
  const nodeName = pod.spec?.nodeName ?? undefined;
  return {
    uuid: process.uuid,
    description: {
      metadata: {
        user: context.user,
        session: context.session,
        name: spec.name,
        treeId: spec.treeId,
        hostname: nodeName,
      },
      env: context.env,
      executableAndArguments: spec.executableAndArguments.map((e) => ({
        exec: e.exec,
        args: e.args ?? [],
      })),
      executionDirectory: spec.executionDirectory,
      logsPath: spec.logsPath,
      logFile: spec.logFile,
    },
    restriction: {
      allowedHosts: spec.restriction?.allowedHosts ?? [],
      dataMount: spec.restriction?.dataMount,
    },
    statusCode: 'RUNNING',
    namespace: context.session,
    podName: pod.metadata?.name ?? spec.name,
    podUid: pod.metadata?.uid ?? '',
    nodeName,
    role: process.role,
    // The pod's creation time: the same on every re-emission of this fact.
    bootedAt: new Date(pod.metadata?.creationTimestamp ?? Date.now()).toISOString(),
    ...(spec.exitPolicy ? { exitPolicy: spec.exitPolicy } : {}),
  };
}
