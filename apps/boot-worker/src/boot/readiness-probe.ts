/**
 * Readiness probes (docs/design.md §6.3). The local connection server's: a TCP connect to
 * `connectionServerPort`, tried every `socketRetryTimeoutSeconds` (drunc's
 * checking.socket_retry_timeout: how long drunc waits between attempts to reach the connection
 * server's socket). Controllers', when `controllerReadinessProbe` is `tcp` or `grpc` (gRPC health,
 * for controllers that serve it): on the port drunc reads from the controller's command line
 * (`--port N` or `-c grpc://host:N`), at the same period. The boot waits for the Ready a probe
 * sets, up to `podReadyTimeoutSeconds` (drunc's pod_ready_timeout), before it boots what follows.
 */
import type { V1Probe } from '@kubernetes/client-node';
import type { ProcessSpec } from '@kpm/contracts';
import type { PlannedProcess } from './planned-process';
import { isConnectionServer } from './boot-order';

interface ProbeSettings {
  connectionServerName: string;
  connectionServerPort: number;
  socketRetryTimeoutSeconds: number;
  controllerReadinessProbe?: 'none' | 'tcp' | 'grpc';
}

const CONTROLLER_ROLES = new Set(['root-controller', 'segment-controller']);

/** The probe of `process`, or undefined for a process kpm does not probe. */
export function readinessProbe(
  process: PlannedProcess,
  settings: ProbeSettings,
): V1Probe | undefined {
  const timing = {
    periodSeconds: settings.socketRetryTimeoutSeconds,
    timeoutSeconds: settings.socketRetryTimeoutSeconds,
    successThreshold: 1,
  };
  if (isConnectionServer(process, settings.connectionServerName)) {
    return { tcpSocket: { port: settings.connectionServerPort }, ...timing };
  }
  const kind = settings.controllerReadinessProbe ?? 'none';
  if (kind === 'none' || !CONTROLLER_ROLES.has(process.role)) return undefined;
  const port = controllerPort(process.spec);
  if (port === undefined) return undefined;
  return kind === 'grpc' ? { grpc: { port }, ...timing } : { tcpSocket: { port }, ...timing };
}

/**
 * drunc's port of a controller: `--port N`, else `-c grpc://host:N`, in a command naming a
 * controller; 0 or none found is no port (its Ready is then the container's start).
 */
export function controllerPort(
  spec: Pick<ProcessSpec, 'executableAndArguments'>,
): number | undefined {
  for (const { exec, args } of spec.executableAndArguments) {
    const line = [exec, ...(args ?? [])].join(' ');
    if (!line.includes('controller')) continue;
    const found = /--port[\s=]+(\d+)/.exec(line) ?? /-c\s+["']?grpc:\/\/[^:\s]+:(\d+)/.exec(line);
    const port = found ? Number(found[1]) : 0;
    if (port > 0 && port <= 65535) return port;
  }
  return undefined;
}
