/**
 * How a process is reached, as drunc's K8sProcessManager decides it (docs/design.md §6.3
 * "Networking"): the local connection server and the root controller get a NodePort Service on
 * the port of their own command line (drunc's `_extract_port_from_cmd`) and the pod network;
 * every other pod runs in the node's network (drunc's default) with a headless Service for
 * discovery; the root controller learns its pod IP (`POD_IP`, downward API) and its
 * `grpc://host:port` arguments are rewritten to it, since what it registers must be reachable;
 * every pod but the connection server may map `localhost` to the connection server. Pure: the
 * validator, the pod builder and the boot's waits ask here.
 */
import type { V1EnvVar, V1HostAlias } from '@kubernetes/client-node';
import type { ExecutableAndArguments, FieldError, ProcessSpec, Role } from '@kpm/contracts';

export interface NetworkSettings {
  /** drunc's connection server: an infrastructure application whose name contains this. */
  connectionServerName: string;
  /** Its port when its command line names none (drunc's older `connection_server_port`). */
  connectionServerPort: number;
  /** drunc's older `connection_server_node_port`: the node port, when it is not the port itself. */
  connectionServerNodePort?: number;
  /** `host`: every pod but the NodePort ones in the node's network (drunc); `pod`: none is. */
  network: 'host' | 'pod';
  /** NodePort Services for the connection server and the root controller (drunc), or headless. */
  nodePorts: boolean;
  /** The cluster's NodePort range (the API server's `--service-node-port-range`). */
  nodePortRange: { min: number; max: number };
}

/** The process as the network rules need it: its spec and drunc role. */
export interface NetworkProcess {
  spec: Pick<ProcessSpec, 'name' | 'executableAndArguments' | 'env'>;
  role: Role;
}

export type ProcessService =
  { type: 'headless' } | { type: 'NodePort'; port: number; nodePort: number };

export interface ProcessNetwork {
  /** In the node's network namespace (drunc's hostNetwork). */
  hostNetwork: boolean;
  service: ProcessService;
  /** The root controller: `POD_IP` from the downward API, `grpc://…` arguments rewritten to it. */
  podIp: boolean;
  /** The port the container declares (drunc's `http-port` of the connection server). */
  containerPort?: { name: string; port: number };
  /** Whether `localhost` may be mapped to the connection server in this pod (all but itself). */
  localhostAlias: boolean;
}

/** drunc's `_is_local_connection_server`: infrastructure, named after the connection server. */
export function isConnectionServer(
  process: { role: Role; spec: { name: string } },
  connectionServerName: string,
): boolean {
  return (
    process.role === 'infrastructure-applications' &&
    process.spec.name.includes(connectionServerName)
  );
}

/**
 * The connection server's port: gunicorn's `-b|--bind host:N` or `host:${VAR}` (VAR from the
 * process's env), as drunc reads it; else the configured fallback.
 */
export function connectionServerPort(
  spec: Pick<ProcessSpec, 'executableAndArguments' | 'env'>,
  fallback: number,
): number {
  for (const line of commandLines(spec.executableAndArguments)) {
    if (!line.includes('gunicorn')) continue;
    const literal = /(-b|--bind)[\s=]+[\w.]+:(\d+)/.exec(line);
    const fromEnv = /(-b|--bind)[\s=]+[\w.]+:\$\{(\w+)\}/.exec(line);
    const port = literal ? Number(literal[2]) : Number(spec.env?.[fromEnv?.[2] ?? ''] ?? NaN);
    if (Number.isInteger(port) && port > 0 && port <= 65535) return port;
  }
  return fallback;
}

/**
 * drunc's port of a controller: `--port N`, else `-c grpc://host:N`, in a command naming a
 * controller; 0 or none found is no port.
 */
export function controllerPort(
  spec: Pick<ProcessSpec, 'executableAndArguments'>,
): number | undefined {
  for (const line of commandLines(spec.executableAndArguments)) {
    if (!line.includes('controller')) continue;
    const found = /--port[\s=]+(\d+)/.exec(line) ?? /-c\s+["']?grpc:\/\/[^:\s]+:(\d+)/.exec(line);
    const port = found ? Number(found[1]) : 0;
    if (port > 0 && port <= 65535) return port;
  }
  return undefined;
}

/** How `process` is reached (see the module's comment). */
export function processNetwork(process: NetworkProcess, settings: NetworkSettings): ProcessNetwork {
  const server = isConnectionServer(process, settings.connectionServerName);
  const root = process.role === 'root-controller';
  const exposed = settings.nodePorts || (server && settings.connectionServerNodePort !== undefined);
  const service = exposed ? nodePortOf(process, server, root, settings) : undefined;
  const port = server ? connectionServerPort(process.spec, settings.connectionServerPort) : 0;
  return {
    hostNetwork: settings.network === 'host' && service === undefined,
    service: service ?? { type: 'headless' },
    podIp: root && service !== undefined,
    ...(server ? { containerPort: { name: 'http-port', port } } : {}),
    localhostAlias: !server,
  };
}

function nodePortOf(
  process: NetworkProcess,
  server: boolean,
  root: boolean,
  settings: NetworkSettings,
): ProcessService | undefined {
  if (server) {
    const port = connectionServerPort(process.spec, settings.connectionServerPort);
    return { type: 'NodePort', port, nodePort: settings.connectionServerNodePort ?? port };
  }
  const port = root ? controllerPort(process.spec) : undefined;
  return port === undefined ? undefined : { type: 'NodePort', port, nodePort: port };
}

/** A node port outside the cluster's range: the API server would refuse the Service. */
export function nodePortErrors(
  at: string,
  process: NetworkProcess,
  settings: NetworkSettings,
): FieldError[] {
  const { service } = processNetwork(process, settings);
  if (service.type !== 'NodePort') return [];
  const { min, max } = settings.nodePortRange;
  if (service.nodePort >= min && service.nodePort <= max) return [];
  const whose = isConnectionServer(process, settings.connectionServerName)
    ? 'the connection server'
    : 'the root controller';
  const message = `${whose} listens on ${service.nodePort}, which drunc exposes as the same node port, outside the cluster's NodePort range ${min}-${max} (podManagement.nodePortRange); give it a port in the range, or set podManagement.nodePorts to false`;
  return [{ path: `${at}.executableAndArguments`, message }];
}

/** drunc's root controller's `POD_IP`, from the downward API. */
export const POD_IP_ENV: V1EnvVar = {
  name: 'POD_IP',
  valueFrom: { fieldRef: { fieldPath: 'status.podIP' } },
};

/**
 * drunc's rewrite of the root controller's arguments: every `grpc://<host>:<port>` becomes
 * `grpc://${POD_IP}:<port>`, so what it registers and listens on is its pod's address (it is
 * not in the node's network).
 */
export function rewriteGrpcHosts(commands: readonly ExecutableAndArguments[]) {
  return commands.map(({ exec, args }) => ({
    exec,
    args: (args ?? []).map((arg) => arg.replace(/(grpc:\/\/)([^:]+)(:\d+)/g, '$1${POD_IP}$3')),
  }));
}

/** drunc's hostAliases: `localhost` → the connection server's address, in every other pod. */
export function localhostAliases(
  network: Pick<ProcessNetwork, 'localhostAlias'>,
  connectionServerAddress: string | undefined,
): V1HostAlias[] | undefined {
  if (!network.localhostAlias || !connectionServerAddress) return undefined;
  return [{ ip: connectionServerAddress, hostnames: ['localhost'] }];
}

function commandLines(commands: readonly ExecutableAndArguments[]): string[] {
  return commands.map(({ exec, args }) => [exec, ...(args ?? [])].join(' '));
}
