/**
 * drunc's connection server from outside the cluster: a NodePort Service on
 * `connectionServerNodePort` to the connection server's `connectionServerPort`, owned by its pod
 * (it goes with it), and drunc's pre-boot check that no other Service holds the port.
 */
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import type { FieldError } from '@kpm/contracts';
import type { KpmLabels } from '@kpm/kube';
import { ownedByPod } from './pod-owner';

interface NodePortSettings {
  connectionServerPort: number;
  connectionServerNodePort?: number;
}

/** The NodePort Service's name: the connection server's, suffixed. */
function nodePortServiceName(connectionServerName: string): string {
  return `${connectionServerName}-nodeport`;
}

/** The NodePort Service for the connection server's pod; undefined when no node port is set. */
export function nodePortService(
  pod: V1Pod,
  labels: KpmLabels,
  settings: NodePortSettings,
): V1Service | undefined {
  const nodePort = settings.connectionServerNodePort;
  if (nodePort === undefined) return undefined;
  const name = pod.metadata!.name!;
  const podLabels = pod.metadata!.labels ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: nodePortServiceName(name),
      namespace: pod.metadata!.namespace,
      labels: {
        [labels.creator]: 'kpm',
        [labels.uuid]: podLabels[labels.uuid] ?? '',
        [labels.session]: podLabels[labels.session] ?? '',
        [labels.app]: name,
      },
      ownerReferences: ownedByPod(pod),
    },
    spec: {
      type: 'NodePort',
      selector: { [labels.app]: name, [labels.creator]: 'kpm' },
      ports: [
        {
          name: 'connection-server',
          port: settings.connectionServerPort,
          targetPort: settings.connectionServerPort,
          nodePort,
        },
      ],
    },
  };
}

/**
 * drunc's collision check before a boot with the connection server: refused while a Service other
 * than this session's own (a redelivered boot) holds the node port, naming the port and holder.
 */
export function nodePortCollision(
  at: string,
  session: string,
  connectionServerName: string,
  nodePort: number,
  holder: string | undefined,
): FieldError[] {
  if (!holder || holder === `${session}/${nodePortServiceName(connectionServerName)}`) return [];
  return [
    {
      path: at,
      message: `connection_server_node_port ${nodePort} is held by Service ${holder}; free it or choose another port`,
    },
  ];
}
