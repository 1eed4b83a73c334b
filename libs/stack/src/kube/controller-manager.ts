import { KubeClientDaemon, type KubeClientDaemonOptions } from './kube-client-daemon';
import type { KubePki } from './pki';

/**
 * kube-controller-manager: namespace deletion, garbage collection of owner-referenced objects
 * (a pod's headless Service), service accounts, Jobs and the rest of the stock controllers.
 */
export class ControllerManagerComponent extends KubeClientDaemon {
  constructor(options: KubeClientDaemonOptions) {
    super('kube-controller-manager', options);
  }

  protected args(pki: KubePki): string[] {
    return [
      // kwok nodes send no heartbeats or leases: node-lifecycle would mark them unreachable and
      // evict every pod after its grace period.
      '--controllers=*,-node-lifecycle-controller',
      `--root-ca-file=${pki.caCert}`,
      `--service-account-private-key-file=${pki.serviceAccountKey}`,
      `--cluster-signing-cert-file=${pki.caCert}`,
      `--cluster-signing-key-file=${pki.caKey}`,
    ];
  }
}
