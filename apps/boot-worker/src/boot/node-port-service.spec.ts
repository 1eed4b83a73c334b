import type { V1Pod } from '@kubernetes/client-node';
import { KpmLabels } from '@kpm/kube';
import { nodePortCollision, nodePortService } from './node-port-service';

const labels = new KpmLabels('drunc.daq');
const pod: V1Pod = {
  metadata: {
    name: 'local-connection-server',
    namespace: 'run-7',
    uid: 'pod-uid',
    labels: { [labels.uuid]: 'u-1', [labels.session]: 'run-7' },
  },
};

describe('the connection server NodePort', () => {
  it('is a NodePort Service to connectionServerPort on connectionServerNodePort, owned by the pod', () => {
    const service = nodePortService(pod, labels, {
      connectionServerPort: 5000,
      connectionServerNodePort: 30500,
    });
    expect(service).toMatchObject({
      metadata: {
        name: 'local-connection-server-nodeport',
        namespace: 'run-7',
        labels: { [labels.creator]: 'kpm', [labels.session]: 'run-7' },
        ownerReferences: [{ kind: 'Pod', uid: 'pod-uid', controller: true }],
      },
      spec: {
        type: 'NodePort',
        selector: { [labels.app]: 'local-connection-server', [labels.creator]: 'kpm' },
        ports: [{ port: 5000, targetPort: 5000, nodePort: 30500 }],
      },
    });
  });

  it('is not made without a node port', () => {
    expect(nodePortService(pod, labels, { connectionServerPort: 5000 })).toBeUndefined();
  });

  it.each<[string, string | undefined, boolean]>([
    ['nobody holds the port', undefined, false],
    ["this session's own (a redelivered boot)", 'run-7/local-connection-server-nodeport', false],
    ['another session', 'run-8/local-connection-server-nodeport', true],
    ['someone else in this session', 'run-7/grafana', true],
  ])('collision when %s: %s', (_, holder, refused) => {
    const errors = nodePortCollision(
      'processes[0]',
      'run-7',
      'local-connection-server',
      30500,
      holder,
    );
    expect(errors.length > 0).toBe(refused);
    if (refused)
      expect(errors).toEqual([
        {
          path: 'processes[0]',
          message: `connection_server_node_port 30500 is held by Service ${holder}; free it or choose another port`,
        },
      ]);
  });
});
