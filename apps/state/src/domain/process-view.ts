/**
 * How facts turn into ProcessInstances: a booted pod is RUNNING, a termination makes it DEAD
 * with its exit code. A termination whose `process.booted` was never seen (it happened before
 * the retained history, or arrives first) still yields an instance, with what the watcher knows.
 */
import type { ProcessInstance, ProcessTerminated } from '@kpm/contracts';

/** `instance` ended as `termination` says (pod facts from the termination win: it names the pod). */
export function deadInstance(
  instance: ProcessInstance,
  termination: ProcessTerminated,
): ProcessInstance {
  return {
    ...instance,
    namespace: termination.namespace,
    podName: termination.podName,
    podUid: termination.podUid,
    statusCode: 'DEAD',
    returnCode: termination.exitCode,
    reason: termination.reason,
    terminatedAt: termination.finishedAt ?? termination.observedAt,
  };
}

/** The instance a termination alone describes: no command line or environment is known. */
export function instanceFromTermination(termination: ProcessTerminated): ProcessInstance {
  const base: ProcessInstance = {
    uuid: termination.uuid,
    description: {
      metadata: {
        user: termination.user,
        session: termination.session,
        name: termination.name,
      },
      env: {},
      executableAndArguments: [],
    },
    restriction: { allowedHosts: [] },
    statusCode: 'RUNNING',
    namespace: termination.namespace,
    podName: termination.podName,
    podUid: termination.podUid,
    role: 'unknown',
    bootedAt: termination.startedAt ?? termination.observedAt,
  };
  return deadInstance(base, termination);
}

/** Keeps the death of `current` when a duplicate or late `process.booted` of the same pod arrives. */
export function mergeBooted(booted: ProcessInstance, current: ProcessInstance): ProcessInstance {
  if (current.statusCode !== 'DEAD') return booted;
  return {
    ...booted,
    statusCode: 'DEAD',
    returnCode: current.returnCode,
    reason: current.reason,
    terminatedAt: current.terminatedAt,
  };
}
