/** Local ports of the control plane: away from the defaults so a real cluster's tools don't clash. */
export interface KubePorts {
  etcdClient: number;
  etcdPeer: number;
  apiserver: number;
  /** Secure ports of kube-controller-manager and kube-scheduler (/healthz only). */
  controllerManager: number;
  scheduler: number;
}

export function kubePorts(env: NodeJS.ProcessEnv = process.env): KubePorts {
  return {
    etcdClient: portFromEnv(env, 'KPM_ETCD_PORT', 12379),
    etcdPeer: portFromEnv(env, 'KPM_ETCD_PEER_PORT', 12380),
    apiserver: portFromEnv(env, 'KPM_APISERVER_PORT', 16443),
    controllerManager: portFromEnv(env, 'KPM_CONTROLLER_MANAGER_PORT', 16457),
    scheduler: portFromEnv(env, 'KPM_SCHEDULER_PORT', 16459),
  };
}

/** A TCP port from a variable, else `fallback`; anything but a port is an error naming it. */
export function portFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    throw new Error(`kpm: ${name}=${raw} is not a TCP port`);
  }
  return value;
}
