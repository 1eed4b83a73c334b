import { join } from 'node:path';
import { pkiDir } from '../kube/pki';
import { portFromEnv } from '../kube/ports';
import { stackPaths } from '../paths';

/**
 * Where the real node keeps everything, and the names it takes on the host: one place, so that
 * `down` removes exactly what `up` made. Files live under KPM_HOME; on the host the node adds one
 * bridge, cgroups under one parent, mounts under its own directories and runtime directories of
 * containerd and CNI it records as its own.
 */
export interface NodeLayout {
  /** The Node's name; also `KPM_REAL_NODE`. */
  name: string;
  /** The bridge the pods' veths join; the host's address on it is the node's InternalIP. */
  bridge: string;
  subnet: string;
  nodeIp: string;
  /** The kubelet's HTTPS port (logs, exec) on the node IP, and its healthz port on 127.0.0.1. */
  kubeletPort: number;
  healthzPort: number;
  /** The parent cgroup of every pod, in each v1 hierarchy (and the unified one, if mounted). */
  cgroupRoot: string;
  dir: string;
  containerdRoot: string;
  containerdState: string;
  containerdSocket: string;
  containerdConfig: string;
  runcRoot: string;
  cniConfDir: string;
  cniIpamDir: string;
  kubeletRoot: string;
  kubeletConfig: string;
  kubeletKubeconfig: string;
  podLogs: string;
  /** Files holding the kernel tunables the kubelet wants, bind-mounted over /proc/sys for it. */
  sysctlDir: string;
  /** What `up` found on the host before it made anything, so `down` removes only its own. */
  hostRecord: string;
  pki: { clientCert: string; clientKey: string; servingCert: string; servingKey: string };
}

/** Label and taint key of the real node: only processes naming it in allowedHosts land there. */
export const REAL_NODE_LABEL = 'real.kpm.daq/node';

export function nodeLayout(env: NodeJS.ProcessEnv = process.env): NodeLayout {
  const dir = stackPaths.data('node');
  const name = env.KPM_REAL_NODE_NAME || 'kpm-real-1';
  const pki = (file: string): string => join(pkiDir(), `node-${name}-${file}`);
  return {
    name,
    bridge: 'kpm0',
    subnet: '10.88.0.0/16',
    nodeIp: '10.88.0.1',
    kubeletPort: portFromEnv(env, 'KPM_KUBELET_PORT', 16450),
    healthzPort: portFromEnv(env, 'KPM_KUBELET_HEALTHZ_PORT', 16448),
    cgroupRoot: '/kpm-node',
    dir,
    containerdRoot: join(dir, 'containerd', 'root'),
    containerdState: join(dir, 'containerd', 'state'),
    // Unix socket paths are limited to 107 bytes: kept short, under run/.
    containerdSocket: join(stackPaths.run(), 'containerd.sock'),
    containerdConfig: join(dir, 'containerd.toml'),
    runcRoot: join(dir, 'runc'),
    cniConfDir: join(dir, 'cni', 'net.d'),
    cniIpamDir: join(dir, 'cni', 'ipam'),
    kubeletRoot: join(dir, 'kubelet'),
    kubeletConfig: join(dir, 'kubelet.yaml'),
    kubeletKubeconfig: join(dir, 'kubelet.kubeconfig'),
    podLogs: join(dir, 'pod-logs'),
    sysctlDir: join(dir, 'sysctl'),
    hostRecord: join(dir, 'host-record.json'),
    pki: {
      clientCert: pki('client.crt'),
      clientKey: pki('client.key'),
      servingCert: pki('serving.crt'),
      servingKey: pki('serving.key'),
    },
  };
}
