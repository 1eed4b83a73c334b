/**
 * drunc's node ports: the connection server and the root controller are reachable from outside
 * the cluster through a NodePort Service named after the pod (pod-builder.ts), on the port of
 * their command line. Before a boot, kpm refuses one whose node port is outside the cluster's
 * range or held by another Service (drunc fails it when it creates the Service).
 */
import type { FieldError } from '@kpm/contracts';
import {
  nodePortErrors,
  processNetwork,
  type NetworkProcess,
  type NetworkSettings,
} from './process-network';

/**
 * The process's node port is held by another Service than its own (this session's Service of
 * the same name is a redelivery's), naming the port and the holder.
 */
export function nodePortCollision(
  at: string,
  session: string,
  name: string,
  nodePort: number,
  holder: string | undefined,
): FieldError[] {
  if (!holder || holder === `${session}/${name}`) return [];
  return [
    {
      path: at,
      message: `node port ${nodePort} is held by Service ${holder}; free it or choose another port`,
    },
  ];
}

/** Why the processes' node ports cannot be had: outside the range, or held (`holderOf`). */
export async function nodePortRefusals(
  session: string,
  processes: readonly (NetworkProcess & { index: number })[],
  settings: NetworkSettings,
  holderOf: (nodePort: number) => Promise<string | undefined>,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const process of processes) {
    const { service } = processNetwork(process, settings);
    if (service.type !== 'NodePort') continue;
    const at = `processes[${process.index}]`;
    const range = nodePortErrors(at, process, settings);
    if (range.length > 0) {
      errors.push(...range);
      continue;
    }
    const holder = await holderOf(service.nodePort);
    errors.push(...nodePortCollision(at, session, process.spec.name, service.nodePort, holder));
  }
  return errors;
}
