import {
  CoordinationV1Api,
  CoreV1Api,
  createConfiguration,
  type KubeConfig,
  ServerConfiguration,
  Watch,
} from '@kubernetes/client-node';
import { KeepAliveKubeConfig } from './keep-alive-kube-config';
import { requestTimeout } from './request-timeout';

/** No API call of kpm's takes this long unless its connection died. */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** The API groups kpm uses, built from one kubeconfig. */
export interface KubeApis {
  config: KubeConfig;
  core: CoreV1Api;
  coordination: CoordinationV1Api;
  watch: Watch;
}

/** From an explicit kubeconfig path (KUBECONFIG of `.kpm/stack.env`), else the usual defaults (in-cluster too). */
export function createKubeApis(
  kubeconfigPath?: string,
  requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
): KubeApis {
  const config = new KeepAliveKubeConfig();
  if (kubeconfigPath) config.loadFromFile(kubeconfigPath);
  else config.loadFromDefault();
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig names no current cluster');
  // As KubeConfig.makeApiClient does, plus a timeout on every call.
  const api = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: config },
    promiseMiddleware: [requestTimeout(requestTimeoutMs)],
  });
  return {
    config,
    core: new CoreV1Api(api),
    coordination: new CoordinationV1Api(api),
    watch: new Watch(config),
  };
}
