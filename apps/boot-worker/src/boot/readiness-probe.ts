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
import type { PlannedProcess } from './planned-process';
import { connectionServerPort, controllerPort } from './process-network';
import { isConnectionServer } from './boot-order';

export { controllerPort };

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
    const port = connectionServerPort(process.spec, settings.connectionServerPort);
    return { tcpSocket: { port }, ...timing };
  }
  const kind = settings.controllerReadinessProbe ?? 'none';
  if (kind === 'none' || !CONTROLLER_ROLES.has(process.role)) return undefined;
  const port = controllerPort(process.spec);
  if (port === undefined) return undefined;
  return kind === 'grpc' ? { grpc: { port }, ...timing } : { tcpSocket: { port }, ...timing };
}
