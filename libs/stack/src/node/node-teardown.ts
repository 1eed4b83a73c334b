/**
 * Stopping the real node so that the host is as `up` found it: its pods drained through the API
 * (their processes get SIGTERM, kpm's finalizer keeps their records for the watcher), the
 * kubelet stopped, every sandbox removed through the CRI (CNI releases the addresses and veths),
 * containerd and its shims stopped, then the node's mounts, cgroups, bridge and runtime
 * directories removed. Each step says what it could not remove; nothing is left silently.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { kubeCall, type KubeEndpoint } from '@kpm/kube';
import type { Daemon } from '../daemon';
import { isAlive, waitUntilDead } from '../daemon';
import type { Progress } from '../kube/go-build';
import { runCommand } from '../run-command';
import { removeBridge, removeCgroupRoot, removeRuntimeDirs, unmountUnder } from './host-state';
import type { NodeLayout } from './node-layout';

/** How long a drained pod's process gets to end on SIGTERM before the kubelet kills it. */
export const DRAIN_GRACE_SECONDS = 5;

/**
 * Marks the node unschedulable (cordoned) or schedulable again: a node going down takes no new
 * pod (a Deployment's replacement would land on it between the drain and the kubelet's stop).
 */
export async function setSchedulable(
  endpoint: KubeEndpoint,
  layout: NodeLayout,
  schedulable: boolean,
): Promise<void> {
  const patch = { spec: { unschedulable: schedulable ? null : true } };
  const path = `/api/v1/nodes/${layout.name}`;
  const result = await kubeCall(endpoint, 'PATCH', path, patch, 'application/merge-patch+json');
  if (result.status !== 200 && !(schedulable && result.status === 404)) {
    throw new Error(`${schedulable ? 'uncordoning' : 'cordoning'} the node: HTTP ${result.status}`);
  }
}

/** Cordons the node, then deletes its pods through the API; resolves to how many it deleted. */
export async function drainNode(endpoint: KubeEndpoint, layout: NodeLayout): Promise<number> {
  await setSchedulable(endpoint, layout, false);
  const selector = encodeURIComponent(`spec.nodeName=${layout.name}`);
  const list = await kubeCall(endpoint, 'GET', `/api/v1/pods?fieldSelector=${selector}`);
  if (list.status !== 200) throw new Error(`listing the node's pods: HTTP ${list.status}`);
  const pods = (
    JSON.parse(list.body) as { items: { metadata: { name: string; namespace: string } }[] }
  ).items;
  const options = {
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    gracePeriodSeconds: DRAIN_GRACE_SECONDS,
  };
  await Promise.all(
    pods.map(({ metadata }) =>
      kubeCall(
        endpoint,
        'DELETE',
        `/api/v1/namespaces/${metadata.namespace}/pods/${metadata.name}`,
        options,
      ),
    ),
  );
  return pods.length;
}

/** crictl against the node's containerd. */
export function crictl(binary: string, layout: NodeLayout, args: string[]): Promise<string> {
  return runCommand(binary, ['--runtime-endpoint', `unix://${layout.containerdSocket}`, ...args], {
    timeoutMs: 120000,
  });
}

/** Whether any container still runs on the node (the kubelet is still stopping them). */
export async function containersRunning(binary: string, layout: NodeLayout): Promise<boolean> {
  const output = await crictl(binary, layout, ['ps', '--quiet', '--state', 'Running']);
  return output.trim().length > 0;
}

/** Stops and removes every pod sandbox (and its containers), which tears down their networks. */
export async function removeSandboxes(binary: string, layout: NodeLayout): Promise<void> {
  await crictl(binary, layout, ['rmp', '--force', '--all']);
}

/**
 * containerd's shims outlive containerd itself; one still running (its task could not be
 * removed) is killed, so no process of the node is left behind.
 */
export async function killShims(layout: NodeLayout): Promise<number[]> {
  const shims = processesWhoseArgsInclude('containerd-shim', layout.containerdSocket);
  for (const pid of shims) process.kill(pid, 'SIGKILL');
  const dead = await Promise.all(shims.map((pid) => waitUntilDead(pid, 5000)));
  const left = shims.filter((_, i) => !dead[i]);
  if (left.length > 0)
    throw new Error(`kpm: shims of the real node still alive: ${left.join(', ')}`);
  return shims;
}

function processesWhoseArgsInclude(program: string, argument: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args[0]?.includes(program) && args.includes(argument)) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids.filter(isAlive);
}

/** Removes what the node made on the host; resolves to what could not be removed. */
export async function removeHostState(
  layout: NodeLayout,
  runtimeDirsBefore: readonly string[],
  progress: Progress,
): Promise<string[]> {
  const unmounted = await unmountUnder(layout.dir);
  const cgroupsLeft = removeCgroupRoot(layout.cgroupRoot);
  await removeBridge(layout.bridge);
  const dirsLeft = removeRuntimeDirs('kpm', runtimeDirsBefore);
  progress(
    `real node: ${unmounted} mounts removed, cgroup ${layout.cgroupRoot} and bridge ${layout.bridge} removed`,
  );
  return [...cgroupsLeft.map((c) => `cgroup ${c}`), ...dirsLeft];
}

/** Stops a daemon of the node and says so. */
export async function stopDaemon(daemon: Daemon, progress: Progress): Promise<void> {
  const pid = daemon.pid();
  if (pid === undefined) return;
  await daemon.stop();
  progress(`real node: ${daemon.name} (pid ${pid}) stopped`);
}
