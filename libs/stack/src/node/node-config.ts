/**
 * The real node's configuration files, as pure functions of its layout: containerd's, the CNI
 * network's and the kubelet's. Each setting that keeps the host unchanged says why.
 */
import { stringify } from 'yaml';
import { certificateKubeconfig } from '../kube/kubeconfig';
import type { NodeLayout } from './node-layout';
import { REAL_NODE_LABEL } from './node-layout';

/** Where Debian's containernetworking-plugins package puts the plugins. */
export const CNI_BIN_DIR = '/usr/lib/cni';

/**
 * containerd with the CRI plugin, its root, state and socket under the node's directory.
 * `restrict_oom_score_adj`: CAP_SYS_RESOURCE is missing here, so runc could not lower a
 * container's oom_score_adj (every sandbox would fail with "can't get final child's PID from
 * pipe"); containerd then clamps it to its own. The runc state goes under the node's directory
 * (containerd's shim sockets and FIFOs still use /run/containerd, which `down` cleans).
 */
export function containerdConfig(layout: NodeLayout, sandboxImage: string): string {
  const disabled = ['aufs', 'btrfs', 'zfs', 'devmapper'].map(
    (name) => `"io.containerd.snapshotter.v1.${name}"`,
  );
  return `version = 2
root = ${toml(layout.containerdRoot)}
state = ${toml(layout.containerdState)}
oom_score = 0
disabled_plugins = [${disabled.join(', ')}]

[grpc]
  address = ${toml(layout.containerdSocket)}

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = ${toml(sandboxImage)}
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  disable_tcp_service = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = ${toml(CNI_BIN_DIR)}
    conf_dir = ${toml(layout.cniConfDir)}
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = ${toml(layout.runcRoot)}
        SystemdCgroup = false
`;
}

/**
 * The pods' network: a bridge and host-local addresses. `isGateway: false` because the bridge
 * plugin would otherwise turn on the host's `net.ipv4.ip_forward`; the bridge gets the node IP
 * from `up` instead, and a route through it is given to every pod, so host ↔ pod and pod ↔ pod
 * work and nothing is forwarded beyond. `ipMasq: false`: no iptables rule. The IPAM's store
 * stays under the node's directory.
 */
export function cniConfig(layout: NodeLayout): string {
  const config = {
    cniVersion: '1.0.0',
    name: 'kpm',
    plugins: [
      {
        type: 'bridge',
        bridge: layout.bridge,
        isGateway: false,
        ipMasq: false,
        hairpinMode: false,
        ipam: {
          type: 'host-local',
          dataDir: layout.cniIpamDir,
          ranges: [[{ subnet: layout.subnet, gateway: layout.nodeIp }]],
          routes: [{ dst: '0.0.0.0/0', gw: layout.nodeIp }],
        },
      },
      { type: 'loopback' },
    ],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * The kubelet's configuration. What this machine needs (and most machines do not): cgroup v1
 * still accepted (`failCgroupV1: false`, deprecated in 1.36), cgroupfs as the driver, swap
 * tolerated, no iptables chains, its own oom_score_adj left alone (lowering it needs
 * CAP_SYS_RESOURCE). Everything it writes stays under the node's directory: pods' cgroups under
 * `cgroupRoot`, pod logs in `podLogs`. Image garbage collection is off: the node's images are
 * built locally and cannot be pulled again. Authentication by client certificates of the stack's
 * CA, authorization asked of the API server (the kubelet's usual webhook mode).
 */
export function kubeletConfig(layout: NodeLayout, caCert: string): string {
  const config = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: layout.nodeIp,
    port: layout.kubeletPort,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: layout.healthzPort,
    tlsCertFile: layout.pki.servingCert,
    tlsPrivateKeyFile: layout.pki.servingKey,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: caCert },
    },
    authorization: { mode: 'Webhook' },
    containerRuntimeEndpoint: `unix://${layout.containerdSocket}`,
    cgroupDriver: 'cgroupfs',
    cgroupRoot: layout.cgroupRoot,
    failCgroupV1: false,
    failSwapOn: false,
    makeIPTablesUtilChains: false,
    oomScoreAdj: 0,
    hairpinMode: 'none',
    podLogsDir: layout.podLogs,
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    evictionHard: {
      'memory.available': '100Mi',
      'nodefs.available': '1%',
      'imagefs.available': '1%',
    },
    registerWithTaints: [{ key: REAL_NODE_LABEL, value: 'true', effect: 'NoSchedule' }],
    resolvConf: '/etc/resolv.conf',
  };
  return stringify(config);
}

/** The kubelet's identity: its own client certificate (group system:nodes) against the API server. */
export function kubeletKubeconfig(layout: NodeLayout, server: string, caCert: string): string {
  return certificateKubeconfig({
    server,
    caFile: caCert,
    user: `system:node:${layout.name}`,
    cert: layout.pki.clientCert,
    key: layout.pki.clientKey,
    context: 'node',
  });
}

/**
 * The kernel tunables the kubelet sets at start when they differ (its container manager's
 * `setupKernelTunables`): it sees files holding these values, bind-mounted over /proc/sys in a
 * mount namespace of its own, and so never writes the host's.
 */
export const KUBELET_SYSCTLS: Readonly<Record<string, string>> = {
  'vm/overcommit_memory': '1',
  'vm/panic_on_oom': '0',
  'kernel/panic': '10',
  'kernel/panic_on_oops': '1',
  'kernel/keys/root_maxkeys': '1000000',
  'kernel/keys/root_maxbytes': '25000000',
};

function toml(value: string): string {
  return JSON.stringify(value);
}
