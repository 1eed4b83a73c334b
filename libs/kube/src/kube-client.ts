import { KubeHttp } from './http/kube-http';
import { KubeCoordinationApi, KubeCoreApi } from './http/kube-core-api';
import { KubeKueueApi } from './http/kube-kueue-api';
import { KubeWatch } from './http/kube-watch';

/** No API call of kpm's takes this long unless its connection died. */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** The API groups kpm uses, over one connection built from one kubeconfig. */
export interface KubeApis {
  core: KubeCoreApi;
  coordination: KubeCoordinationApi;
  /** Kueue's LocalQueues and Workloads (kpm's pod groups); a cluster without Kueue answers 404. */
  kueue: KubeKueueApi;
  watch: KubeWatch;
}

/**
 * From an explicit kubeconfig path (KUBECONFIG of `.kpm/stack.env`), else the usual defaults
 * (in-cluster too); every call is bounded by `requestTimeoutMs` (watches have their own
 * inactivity watchdogs).
 */
export function createKubeApis(
  kubeconfigPath?: string,
  requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
): KubeApis {
  const http = KubeHttp.load(kubeconfigPath, requestTimeoutMs);
  return {
    core: new KubeCoreApi(http),
    coordination: new KubeCoordinationApi(http),
    kueue: new KubeKueueApi(http),
    watch: new KubeWatch(http),
  };
}
