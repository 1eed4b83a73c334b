import { CoordinationV1Api, CoreV1Api, type KubeConfig, Watch } from '@kubernetes/client-node';
import { KeepAliveKubeConfig } from './keep-alive-kube-config';

/** The API groups kpm uses, built from one kubeconfig. */
export interface KubeApis {
  config: KubeConfig;
  core: CoreV1Api;
  coordination: CoordinationV1Api;
  watch: Watch;
}

/** From an explicit kubeconfig path (KUBECONFIG of `.kpm/stack.env`), else the usual defaults (in-cluster too). */
export function createKubeApis(kubeconfigPath?: string): KubeApis {
  const config = new KeepAliveKubeConfig();
  if (kubeconfigPath) config.loadFromFile(kubeconfigPath);
  else config.loadFromDefault();
  return {
    config,
    core: config.makeApiClient(CoreV1Api),
    coordination: config.makeApiClient(CoordinationV1Api),
    watch: new Watch(config),
  };
}
