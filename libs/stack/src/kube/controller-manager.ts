import { KubeClientDaemon, type KubeClientDaemonOptions } from './kube-client-daemon';
import type { KubePki } from './pki';

/** Kubernetes' default since 1.32: how long a silent node stays Ready. */
export const NODE_MONITOR_GRACE_SECONDS = 50;

/**
 * kube-controller-manager: namespace deletion, garbage collection of owner-referenced objects
 * (a pod's headless Service), service accounts, Jobs, node lifecycle with taint eviction and the
 * rest of the stock controllers.
 */
export class ControllerManagerComponent extends KubeClientDaemon {
  constructor(options: KubeClientDaemonOptions) {
    super('kube-controller-manager', options);
  }

  protected args(pki: KubePki): string[] {
    return [
      // Every stock controller, node-lifecycle and taint-eviction included: a node whose Lease
      // goes stale for the grace period (kwok renews its nodes' Leases, the real node's kubelet
      // its own) is marked Unknown and tainted unreachable; its pods are evicted once their
      // toleration (kpm's podManagement.nodeLostSeconds) runs out.
      '--controllers=*',
      `--node-monitor-grace-period=${NODE_MONITOR_GRACE_SECONDS}s`,
      `--root-ca-file=${pki.caCert}`,
      `--service-account-private-key-file=${pki.serviceAccountKey}`,
      `--cluster-signing-cert-file=${pki.caCert}`,
      `--cluster-signing-key-file=${pki.caKey}`,
    ];
  }
}
