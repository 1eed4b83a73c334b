/** How a ProcessManagerClient is set up, and how long it waits by default. */
import { hostname, userInfo } from 'node:os';
import { DEFAULT_TOPIC_PREFIX, eventSource, type CommandType } from '@kpm/contracts';
import { commandName } from './errors';

export interface ClientOptions {
  /** Topic prefix (`KPM_TOPIC_PREFIX` of the services), default `kpm`. */
  topicPrefix?: string;
  /** CloudEvent `source` of the commands, default `/kpm/client/<host>`. */
  source?: string;
  /** Default completion waits in ms by command name (`boot`, `kill`, …). */
  timeouts?: Partial<Record<string, number>>;
  /**
   * Who acts in kill, restart, logs and flush when a call does not say: the services refuse
   * them for a session another user owns. Default: the login name of this process.
   */
  user?: string;
}

export interface CommandOptions {
  /** Await the command's completion; default false (return once the broker has it). */
  wait?: boolean;
  /** How long to await the completion; defaults per command (see {@link DEFAULT_TIMEOUTS_MS}). */
  timeoutMs?: number;
  /** An id of the caller's choosing makes a retried publish recognisable; default a new UUID. */
  commandId?: string;
  /** The acting user of a restart, logs or flush; default the client's `user`. */
  user?: string;
}

/**
 * Default waits: a boot waits for pods to become ready (drunc's pod_ready_timeout is 60 s), a
 * kill for every shutdown stage; answers from the state service's table come quickly.
 */
export const DEFAULT_TIMEOUTS_MS: Readonly<Record<string, number>> = {
  boot: 180_000,
  kill: 300_000,
  terminate: 300_000,
  restart: 300_000,
  flush: 30_000,
  ps: 30_000,
  logs: 30_000,
};

/** Server-side timeouts (`timeoutSeconds`) plus this margin bound a kill's wait. */
export const COMPLETION_MARGIN_MS = 30_000;

export function resolvedOptions(options: ClientOptions): Required<ClientOptions> {
  return {
    topicPrefix: options.topicPrefix ?? DEFAULT_TOPIC_PREFIX,
    source: options.source ?? eventSource('client', hostname()),
    timeouts: { ...DEFAULT_TIMEOUTS_MS, ...options.timeouts },
    user: options.user ?? localUser(),
  };
}

/**
 * Who runs this process: its login name, else `USER`, else `uid-<n>`. A container's numeric
 * user (kpm's image runs as 10001) often has no passwd entry, and Node's userInfo() throws then.
 */
export function localUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER || `uid-${process.getuid?.() ?? 'unknown'}`;
  }
}

/** The wait for `type`: explicit, else the command's own timeout plus margin, else the default. */
export function waitMs(
  options: Required<ClientOptions>,
  type: CommandType,
  explicitMs: number | undefined,
  serverTimeoutSeconds?: number,
): number {
  if (explicitMs !== undefined) return explicitMs;
  if (serverTimeoutSeconds !== undefined) return serverTimeoutSeconds * 1000 + COMPLETION_MARGIN_MS;
  return options.timeouts[commandName(type)] ?? DEFAULT_TIMEOUTS_MS.ps;
}
