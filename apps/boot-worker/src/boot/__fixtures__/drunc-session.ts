/**
 * A DAQ session as drunc's driver boots it, and what drunc's K8sProcessManager makes of it: the
 * expected side of the table test (drunc-session.spec.ts), written from a reading of drunc's
 * code (process_manager_driver.py, oks_parser.py, configuration.py, k8s_process_manager.py), not
 * from kpm's.
 *
 * The driver's boot requests: infrastructure applications first (tree ids 1, 2, …), then the
 * root segment's tree in pre-order — the root controller `0`, each sub-segment's controller
 * `0.<i>` followed by its own sub-segments and applications, then the root segment's own
 * applications `0.<j>` (the same ids as the sub-segments' controllers: only the executable tells
 * them apart). Every request runs `source <rte>` then the program with drunc's command line
 * (`-s session -k config-id -n name -c <proto>://host:port -d config [-l level]`), in the shell's
 * directory, its output in a log FILE `<dir>/log_<user>_<session>_<name>.txt`.
 */

/** drunc's BootRequest (era B), in drunc's field names. */
export interface DruncBootRequest {
  metadata: { user: string; session: string; name: string; hostname: string; tree_id: string };
  executable_and_arguments: { exec: string; args: string[] }[];
  env: Record<string, string>;
  process_execution_directory: string;
  process_logs_path: string;
  process_restriction: { allowed_hosts: string[]; data_mount?: string };
}

export const USER = 'alice';
export const UID = 1000;
export const SESSION = 'run-7';
export const HOME_BASE = '/nfs/home';
export const WORK = '/nfs/home/alice/np04';
const RTE = '/cvmfs/dunedaq.opensciencegrid.org/releases/fddaq-v5/daq_app_rte.sh';
const CONFIG = 'oksconflibs:np04-session.data.xml';
export const READOUT_HOST = 'np04-srv-031';

/** drunc's K8s settings for this session, as DUNE's CERN configuration gives them. */
export const DRUNC_SETTINGS = {
  home_path_base: HOME_BASE,
  headless_discovery_port: 80,
  readout_app_selector: 'runp',
  volumes: [
    { name: 'nfs', mount_path: '/nfs', host_path: '/nfs', read_only: false },
    { name: 'cvmfs', mount_path: '/cvmfs', host_path: '/cvmfs', read_only: true },
    {
      name: 'hugepages',
      mount_path: '/dev/hugepages',
      host_path: '/dev/hugepages',
      read_only: false,
    },
    { name: 'vfio', mount_path: '/dev/vfio', host_path: '/dev/vfio', read_only: false },
    {
      name: 'intel-firmware',
      mount_path: '/lib/firmware/intel/ice',
      host_path: '/lib/firmware/intel/ice',
      read_only: true,
    },
  ],
  host_configs: {
    [READOUT_HOST]: {
      limits: { 'hugepages-2Mi': '32Gi', cpu: '128', memory: '1024Gi' },
      requests: { 'hugepages-2Mi': '32Gi', cpu: '32', memory: '256Gi' },
    },
  },
};

function request(
  name: string,
  treeId: string,
  host: string,
  exec: string,
  args: string[],
  extra: { env?: Record<string, string>; dataMount?: string } = {},
): DruncBootRequest {
  return {
    metadata: { user: USER, session: SESSION, name, hostname: '', tree_id: treeId },
    executable_and_arguments: [
      { exec: 'source', args: [RTE] },
      { exec, args },
    ],
    env: {
      DUNEDAQ_SESSION: SESSION,
      DUNEDAQ_APPLICATION_NAME: name,
      DUNE_DAQ_BASE_RELEASE: 'fddaq-v5.3.0',
      ...extra.env,
    },
    process_execution_directory: WORK,
    process_logs_path: `${WORK}/log_${USER}_${SESSION}_${name}.txt`,
    process_restriction: {
      allowed_hosts: [host],
      ...(extra.dataMount ? { data_mount: extra.dataMount } : {}),
    },
  };
}

/** drunc's command line for a controller or an application (get_commandline_parameters). */
function daq(name: string, control: string, controller: boolean): string[] {
  const args = ['-s', SESSION, '-k', 'np04-session', '-n', name, '-c', control, '-d', CONFIG];
  return controller ? [...args, '-l', 'INFO'] : args;
}
const controller = (name: string, tree: string, host: string, port: number) =>
  request(name, tree, host, 'drunc-controller', daq(name, `grpc://${host}:${port}`, true));
const application = (name: string, tree: string, host: string, port: number, dataMount?: string) =>
  request(name, tree, host, 'daq_application', daq(name, `rest://${host}:${port}`, false), {
    dataMount,
  });

/** The boot requests in the order drunc's driver sends them. */
export const DRUNC_BOOT_REQUESTS: DruncBootRequest[] = [
  request(
    'local-connection-server',
    '1',
    'np04-srv-001',
    'gunicorn',
    [
      '-b',
      '0.0.0.0:${CONNECTION_PORT}',
      '--workers=1',
      '--worker-class=gthread',
      '--threads=2',
      '--timeout',
      '0',
      'connection-service.connection-flask:app',
    ],
    { env: { CONNECTION_PORT: '30500' } },
  ),
  request('ers-gateway', '2', 'np04-srv-001', 'daq_application', ['--name', 'ers-gateway']),
  controller('root-controller', '0', 'np04-srv-001', 30333),
  controller('ru-controller', '0.0', 'np04-srv-002', 3334),
  controller('ru-apa1-controller', '0.0.0', READOUT_HOST, 3340),
  application('runp04srv031eth0', '0.0.0.0', READOUT_HOST, 3341),
  application('ru-01', '0.0.0', 'np04-srv-002', 3335),
  controller('df-controller', '0.1', 'np04-srv-004', 3336),
  application('df-01', '0.1.0', 'np04-srv-004', 3337, '.'),
  application('tp-stream-writer', '0.1.1', 'np04-srv-004', 3339, '/data/tp'),
  application('mlt', '0.0', 'np04-srv-001', 3338),
];

/** A hostPath mount: the host directory, its type, where and how it is mounted. */
export interface HostMount {
  path: string;
  type: 'Directory' | 'DirectoryOrCreate';
  readOnly: boolean;
}

/** What drunc's K8sProcessManager makes of one boot request (4c9961a). */
export interface DruncPod {
  name: string;
  role: string;
  hostNetwork: boolean;
  /** The Service named after the pod: NodePort on the port and node port, or headless on 80. */
  service: { type: 'NodePort'; port: number; nodePort: number } | { type: 'headless'; port: 80 };
  /** The container's declared port (the connection server's `http-port`). */
  containerPort?: number;
  /** The root controller's `POD_IP` from the downward API. */
  podIp: boolean;
  /** The program's arguments as the container runs them (after the root's grpc rewrite). */
  args: string[];
  /** The last command is `exec`'d (PID 1 gets the signals); the connection server's is not. */
  execLast: boolean;
  /** stdout and stderr appended to this file. */
  logFile: string;
  /** drunc's `kill -QUIT 1` preStop. */
  preStop: boolean;
  runAs: { uid: number; gid: number; fsGroup: number };
  privileged: boolean;
  resources?: { limits: Record<string, string>; requests: Record<string, string> };
  /** hostPath mounts, by mount path (always mounted at the host path itself). */
  hostMounts: Record<string, HostMount>;
  /** The HugePages emptyDir at /dev/hugepages. */
  hugepages: boolean;
  env: { USER: string; HOME: string; DOTDRUNC: string };
  host: string;
  /** `localhost` mapped to the connection server. */
  localhostAlias: boolean;
  /** What `boot` waits for after Ready: an HTTP answer, a TCP connect, or nothing. */
  bootWait: 'http' | 'tcp' | 'none';
}

const CONFIGURED: Record<string, HostMount> = {
  '/nfs': { path: '/nfs', type: 'Directory', readOnly: false },
  '/cvmfs': { path: '/cvmfs', type: 'Directory', readOnly: true },
};
const READOUT_HARDWARE: Record<string, HostMount> = {
  '/dev/vfio': { path: '/dev/vfio', type: 'Directory', readOnly: false },
  '/lib/firmware/intel/ice': { path: '/lib/firmware/intel/ice', type: 'Directory', readOnly: true },
};
// The log file's directory (drunc's log-mount). The home, /nfs/home/alice, is covered by /nfs.
const LOGS: Record<string, HostMount> = {
  [WORK]: { path: WORK, type: 'DirectoryOrCreate', readOnly: false },
};

function drunc(r: DruncBootRequest, role: string, extra: Partial<DruncPod> = {}): DruncPod {
  const program = r.executable_and_arguments[1];
  return {
    name: r.metadata.name,
    role,
    hostNetwork: true,
    service: { type: 'headless', port: 80 },
    podIp: false,
    args: program.args,
    execLast: true,
    logFile: r.process_logs_path,
    preStop: !role.includes('controller'),
    runAs: { uid: UID, gid: UID, fsGroup: UID },
    privileged: false,
    hostMounts: { ...CONFIGURED, ...LOGS },
    hugepages: false,
    env: { USER, HOME: `${HOME_BASE}/${USER}`, DOTDRUNC: `${HOME_BASE}/${USER}/.drunc.json` },
    host: r.process_restriction.allowed_hosts[0],
    localhostAlias: true,
    bootWait: 'none',
    ...extra,
  };
}

const [lcs, ers, root, ruCtl, apaCtl, readout, ru01, dfCtl, df01, tpsw, mlt] = DRUNC_BOOT_REQUESTS;

/** What drunc makes of each request, in the driver's order. */
export const DRUNC_PODS: DruncPod[] = [
  drunc(lcs, 'infrastructure-applications', {
    hostNetwork: false,
    service: { type: 'NodePort', port: 30500, nodePort: 30500 },
    containerPort: 30500,
    execLast: false,
    preStop: false,
    localhostAlias: false,
    bootWait: 'http',
  }),
  drunc(ers, 'infrastructure-applications'),
  drunc(root, 'root-controller', {
    hostNetwork: false,
    service: { type: 'NodePort', port: 30333, nodePort: 30333 },
    podIp: true,
    args: daq('root-controller', 'grpc://${POD_IP}:30333', true),
    bootWait: 'tcp',
  }),
  drunc(ruCtl, 'segment-controller'),
  drunc(apaCtl, 'segment-controller'),
  drunc(readout, 'application', {
    privileged: true,
    resources: DRUNC_SETTINGS.host_configs[READOUT_HOST],
    hostMounts: { ...CONFIGURED, ...READOUT_HARDWARE, ...LOGS },
    hugepages: true,
  }),
  drunc(ru01, 'application'),
  drunc(dfCtl, 'segment-controller'),
  // data_mount "." is the execution directory, already the log file's: mounted once.
  drunc(df01, 'application'),
  drunc(tpsw, 'application', {
    hostMounts: {
      ...CONFIGURED,
      ...LOGS,
      '/data/tp': { path: '/data/tp', type: 'Directory', readOnly: false },
    },
  }),
  drunc(mlt, 'application'),
];

/** drunc's kill of the whole session, stage by stage (segment controllers deepest first). */
export const DRUNC_KILL_STAGES: string[][] = [
  ['runp04srv031eth0', 'ru-01', 'df-01', 'tp-stream-writer', 'mlt'],
  ['ru-apa1-controller'],
  ['ru-controller', 'df-controller'],
  ['root-controller'],
  ['local-connection-server', 'ers-gateway'],
];
