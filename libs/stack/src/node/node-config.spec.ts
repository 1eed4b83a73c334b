import { parse } from 'yaml';
import {
  cniConfig,
  containerdConfig,
  KUBELET_SYSCTLS,
  kubeletConfig,
  kubeletKubeconfig,
} from './node-config';
import { nodeLayout } from './node-layout';
import { parseMountLine, mountsUnder } from './host-state';

const layout = nodeLayout({ KPM_REAL_NODE_NAME: 'kpm-real-1' });

describe('the real node keeps the host unchanged', () => {
  it('containerd: oom_score_adj clamped, its state under the node, the CNI network of ours', () => {
    const toml = containerdConfig(layout, 'localhost/kpm/pause:abc');
    expect(toml).toContain('restrict_oom_score_adj = true');
    expect(toml).toContain(`root = "${layout.containerdRoot}"`);
    expect(toml).toContain(`state = "${layout.containerdState}"`);
    expect(toml).toContain(`address = "${layout.containerdSocket}"`);
    expect(toml).toContain(`Root = "${layout.runcRoot}"`);
    expect(toml).toContain(`conf_dir = "${layout.cniConfDir}"`);
    expect(toml).toContain('sandbox_image = "localhost/kpm/pause:abc"');
    expect(toml).toContain('SystemdCgroup = false');
  });

  it('CNI: a bridge that is no gateway (no ip_forward) and no masquerading (no iptables)', () => {
    const config = JSON.parse(cniConfig(layout)) as {
      plugins: {
        type: string;
        isGateway?: boolean;
        ipMasq?: boolean;
        ipam?: Record<string, unknown>;
      }[];
    };
    const bridge = config.plugins.find((p) => p.type === 'bridge')!;
    expect(bridge).toMatchObject({ bridge: 'kpm0', isGateway: false, ipMasq: false });
    expect(bridge.ipam).toMatchObject({
      type: 'host-local',
      dataDir: layout.cniIpamDir,
      routes: [{ dst: '0.0.0.0/0', gw: '10.88.0.1' }],
    });
    expect(config.plugins.map((p) => p.type)).toEqual(['bridge', 'loopback']);
  });

  it('kubelet: cgroup v1 accepted, no iptables chains, its files and cgroups under the node', () => {
    const config = parse(kubeletConfig(layout, '/pki/ca.crt')) as Record<string, unknown>;
    expect(config).toMatchObject({
      failCgroupV1: false,
      cgroupDriver: 'cgroupfs',
      cgroupRoot: '/kpm-node',
      failSwapOn: false,
      makeIPTablesUtilChains: false,
      oomScoreAdj: 0,
      podLogsDir: layout.podLogs,
      address: '10.88.0.1',
      containerRuntimeEndpoint: `unix://${layout.containerdSocket}`,
      authorization: { mode: 'Webhook' },
      authentication: { anonymous: { enabled: false }, x509: { clientCAFile: '/pki/ca.crt' } },
      registerWithTaints: [{ key: 'real.kpm.daq/node', value: 'true', effect: 'NoSchedule' }],
    });
  });

  it('kubelet: its identity is a client certificate of group system:nodes, never a token', () => {
    const config = parse(kubeletKubeconfig(layout, 'https://127.0.0.1:16443', '/pki/ca.crt')) as {
      users: { name: string; user: Record<string, string> }[];
    };
    expect(config.users).toEqual([
      {
        name: 'system:node:kpm-real-1',
        user: { 'client-certificate': layout.pki.clientCert, 'client-key': layout.pki.clientKey },
      },
    ]);
  });

  it('gives the kubelet every tunable its container manager sets, as the values it wants', () => {
    expect(KUBELET_SYSCTLS).toEqual({
      'vm/overcommit_memory': '1',
      'vm/panic_on_oom': '0',
      'kernel/panic': '10',
      'kernel/panic_on_oops': '1',
      'kernel/keys/root_maxkeys': '1000000',
      'kernel/keys/root_maxbytes': '25000000',
    });
  });
});

describe('the host state the node removes', () => {
  it.each([
    {
      line: '42 27 254:0 /srv/daq/.kpm/data/node/kubelet /srv/daq/.kpm/data/node/kubelet rw,relatime shared:1 - ext4 /dev/vda rw',
      entry: {
        mountPoint: '/srv/daq/.kpm/data/node/kubelet',
        fsType: 'ext4',
        optional: ['shared:1'],
      },
    },
    {
      line: '60 42 0:50 / /a\\040b/c rw,relatime - tmpfs tmpfs rw,size=1024k',
      entry: { mountPoint: '/a b/c', fsType: 'tmpfs', optional: [] },
    },
    {
      line: '30 22 0:26 / /sys/fs/cgroup/memory rw,nosuid shared:9 master:2 - cgroup cgroup rw,memory',
      entry: {
        mountPoint: '/sys/fs/cgroup/memory',
        fsType: 'cgroup',
        optional: ['shared:9', 'master:2'],
      },
    },
  ])('reads a mountinfo line: $entry.mountPoint', ({ line, entry }) => {
    expect(parseMountLine(line)).toEqual(entry);
  });

  it('unmounts what lies under the node, deepest first, and nothing beside it', () => {
    const mount = (mountPoint: string) => ({ mountPoint, fsType: 'tmpfs', optional: [] });
    const mounts = [
      mount('/n'),
      mount('/n/kubelet'),
      mount('/n/kubelet/pods/u/volumes/token'),
      mount('/n-other'),
      mount('/'),
      mount('/n/kubelet'),
    ];
    expect(mountsUnder('/n', mounts)).toEqual([
      '/n/kubelet/pods/u/volumes/token',
      '/n/kubelet',
      '/n',
    ]);
  });
});
