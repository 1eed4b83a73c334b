/**
 * The local connection server's readiness probe: a TCP connect to `connectionServerPort`, tried
 * every `socketRetryTimeoutSeconds` (drunc's checking.socket_retry_timeout: how long drunc waits
 * between attempts to reach the connection server's socket). The boot waits for the Ready this
 * probe sets, up to `podReadyTimeoutSeconds` (drunc's pod_ready_timeout), before it boots the
 * root controller.
 */
import type { V1Probe } from '@kubernetes/client-node';
import type { PlannedProcess } from './planned-process';
import { isConnectionServer } from './ready-wait';

export interface ProbeSettings {
  connectionServerName: string;
  connectionServerPort: number;
  socketRetryTimeoutSeconds: number;
}

/** The probe of `process`, or undefined for a process kpm does not probe. */
export function readinessProbe(
  process: PlannedProcess,
  settings: ProbeSettings,
): V1Probe | undefined {
  if (!isConnectionServer(process, settings.connectionServerName)) return undefined;
  return {
    tcpSocket: { port: settings.connectionServerPort },
    periodSeconds: settings.socketRetryTimeoutSeconds,
    timeoutSeconds: settings.socketRetryTimeoutSeconds,
    successThreshold: 1,
  };
}
