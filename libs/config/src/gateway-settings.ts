/**
 * The drunc gateway's settings (docs/design.md "drunc gateway"): where it serves drunc's
 * ProcessManager gRPC service, where it reads completions, and its retry rule's window.
 */
import 'reflect-metadata';
import { IsArray, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

export class GatewayConfig {
  /** gRPC port drunc's clients dial (`grpc://host:port`); 0 picks a free one. */
  @IsInt()
  @Min(0)
  @Max(65535)
  port = 8484;

  /** Address the gRPC server binds. */
  @IsString()
  host = '127.0.0.1';

  /** What `describe` names (drunc's process-manager name). */
  @Matches(/^[a-zA-Z0-9._-]{1,100}$/, {
    message: 'name may hold letters, digits, ".", "_" and "-"',
  })
  name = 'kpm';

  /** The state service's HTTP API: a retried call reads the first completion there. */
  @Matches(/^https?:\/\/\S+$/, { message: 'stateUrl must be an http(s) URL' })
  stateUrl = 'http://127.0.0.1:8480';

  /** A bearer token for the state API when it asks for one (`http.auth`), read from this file. */
  @IsOptional()
  @IsString()
  stateTokenFile?: string;

  /**
   * How long an identical request is still the same call (a retry) rather than a new attempt,
   * counted from the first call's completion: drunc's longest deadline (terminate, 130 s) and
   * then some.
   */
  @IsInt()
  @Min(1)
  @Max(86_400)
  retryWindowSeconds = 300;

  /** The answer leaves this long before the caller's gRPC deadline, so it arrives in time. */
  @IsInt()
  @Min(0)
  @Max(30_000)
  deadlineMarginMs = 1_000;

  /**
   * The image of every process drunc boots through the gateway. drunc's BootRequest names none,
   * so without it the boot-worker's `podManagement.image` (drunc's default
   * `ghcr.io/dune-daq/alma9:latest`) runs. `kpm services up` sets it to the local stack's DAQ
   * image (`KPM_REAL_IMAGE`, present on the real node), and says so.
   */
  @IsOptional()
  @Matches(/^\S{1,512}$/, { message: 'defaultImage must be an image reference without whitespace' })
  defaultImage?: string;

  /** Longest wait for a call without a deadline (drunc's clients always set one). */
  @IsInt()
  @Min(1)
  @Max(86_400)
  defaultDeadlineSeconds = 300;

  /**
   * The configurations drunc's SessionManager lists (`list_all_configs`, drunc's web UI's
   * Sessions page): each `<file>:<session id>`, drunc's ConfigKey.
   */
  @IsArray()
  @Matches(/^[^,]+:[^:,]+$/, {
    each: true,
    message: 'each of configurations must be "<file>:<session id>"',
  })
  configurations: string[] = [];
}

export const GATEWAY_ENV: ReadonlyArray<[string, string, (raw: string) => unknown]> = [
  ['KPM_DRUNC_GATEWAY_PORT', 'gateway.port', Number],
  ['KPM_DRUNC_GATEWAY_HOST', 'gateway.host', String],
  ['KPM_DRUNC_GATEWAY_NAME', 'gateway.name', String],
  ['KPM_STATE_URL', 'gateway.stateUrl', String],
  ['KPM_STATE_TOKEN_FILE', 'gateway.stateTokenFile', String],
  ['KPM_DRUNC_GATEWAY_RETRY_WINDOW_SECONDS', 'gateway.retryWindowSeconds', Number],
  ['KPM_DRUNC_GATEWAY_DEADLINE_MARGIN_MS', 'gateway.deadlineMarginMs', Number],
  [
    'KPM_DRUNC_GATEWAY_CONFIGURATIONS',
    'gateway.configurations',
    (raw) =>
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
  ],
  ['KPM_DRUNC_GATEWAY_DEFAULT_IMAGE', 'gateway.defaultImage', String],
];
