import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { DNS_SUBDOMAIN } from '@kpm/contracts/validation/rules';
import {
  ABSOLUTE_PATH,
  ABSOLUTE_PATH_MESSAGE,
  CommandsConfig,
  PodManagementConfig,
  VolumeConfig,
} from './boot-worker-settings';
import { FeedsConfig } from './feeds-settings';
import { GatewayConfig } from './gateway-settings';
import { HttpAuthConfig } from './http-auth-settings';
import { KafkaSaslConfig, KafkaSslConfig } from './kafka-security-settings';
import { SecurityConfig } from './security-settings';
import { StateConfig } from './state-settings';
import { WatcherConfig } from './watcher-settings';

/** The log levels, most severe first. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

/** Kafka connection and topic layout (docs/design.md §2). */
export class KafkaConfig {
  /** The bootstrap brokers, `host:port`. */
  @IsArray()
  @ArrayMinSize(1)
  @Matches(/^[^\s:]+:\d{1,5}$/, { each: true, message: 'each broker must be host:port' })
  brokers: string[] = ['127.0.0.1:19092'];

  /** Every topic's name starts with it (`kpm.commands`, …), and so do the consumer groups. */
  @Matches(/^[a-zA-Z0-9._-]{1,100}$/, {
    message: 'topicPrefix may hold letters, digits, ".", "_" and "-"',
  })
  topicPrefix = 'kpm';

  /** Partitions of every session-keyed topic (the same for all: docs/design.md §2). */
  @IsInt()
  @Min(1)
  @Max(1000)
  partitions = 6;

  /**
   * Replicas of every topic kpm creates (KPM_TOPIC_REPLICATION_FACTOR): 3 in production, so one
   * broker may fail without losing an acknowledged record; the local one-broker stack sets 1.
   */
  @IsInt()
  @Min(1)
  @Max(32)
  replicationFactor = 3;

  /**
   * `min.insync.replicas` of kpm's topics (KPM_TOPIC_MIN_INSYNC_REPLICAS): with acks=all a write
   * is acknowledged once this many replicas hold it; 2 of 3 survives one broker down.
   */
  @IsInt()
  @Min(1)
  @Max(32)
  @ValidateBy({
    name: 'atMostReplicationFactor',
    validator: {
      validate: (value, args) => Number(value) <= (args?.object as KafkaConfig).replicationFactor,
      defaultMessage: () =>
        'minInsyncReplicas must not exceed replicationFactor (no write could be acknowledged)',
    },
  })
  minInsyncReplicas = 2;

  /** Matches the topics' max.message.bytes (contracts MAX_RECORD_BYTES): a 5000-process boot fits. */
  @IsInt()
  @Min(1024)
  @Max(100 * 1024 * 1024)
  maxRecordBytes = 8 * 1024 * 1024;

  /** TLS to the brokers (kafka-security-settings.ts); absent: plaintext. */
  @IsOptional()
  @ValidateNested()
  @Type(() => KafkaSslConfig)
  ssl?: KafkaSslConfig;

  /** SASL authentication (SCRAM or OAUTHBEARER); absent: none. */
  @IsOptional()
  @ValidateNested()
  @Type(() => KafkaSaslConfig)
  sasl?: KafkaSaslConfig;
}

/** drunc's `labels` setting: the domain of every label and finalizer kpm writes. */
export class LabelConfig {
  /** drunc's `drunc_label`: `creator.<domain>=kpm`, `uuid.<domain>`, …, finalizer `<domain>/termination-record`. */
  @Matches(DNS_SUBDOMAIN, { message: 'domain must be a DNS subdomain such as drunc.daq' })
  domain = 'drunc.daq';
}

export class HttpConfig {
  /** The HTTP port: health, readiness, metrics, and the state service's API and dashboard; 0 picks one. */
  @IsInt()
  @Min(0)
  @Max(65535)
  port = 0;

  /** The address the HTTP server listens on. */
  @IsString()
  host = '127.0.0.1';

  /** Bearer tokens the API asks for (http-auth-settings.ts); absent: it answers anyone. */
  @IsOptional()
  @ValidateNested()
  @Type(() => HttpAuthConfig)
  auth?: HttpAuthConfig;

  /** Server-Sent Event streams open at once; one more is answered 503 with Retry-After. */
  @IsInt()
  @Min(1)
  @Max(100_000)
  maxStreams = 100;
}

/** Everything a kpm service reads at start; each service uses the parts it needs. */
export class KpmSettings {
  @IsString()
  service = 'kpm';

  /** Names this replica in broadcasts and Kafka client ids. */
  @IsString()
  instance = 'local';

  /**
   * `json`: one JSON object per log line, with level, service, context, the event and its
   * fields, and the command's id, session, trace and span ids (what the deploy kit sets); `text`:
   * one readable line each, the event then its fields as `key=value`.
   */
  @IsIn(['text', 'json'], { message: 'logFormat must be "text" or "json"' })
  logFormat: 'text' | 'json' = 'text';

  /** The least severe level logged: `fatal`, `error`, `warn`, `info`, `debug` or `trace`. */
  @IsIn(LOG_LEVELS, { message: `logLevel must be one of ${LOG_LEVELS.join(', ')}` })
  logLevel: (typeof LOG_LEVELS)[number] = 'info';

  @ValidateNested()
  @Type(() => KafkaConfig)
  kafka = new KafkaConfig();

  @ValidateNested()
  @Type(() => LabelConfig)
  labels = new LabelConfig();

  @ValidateNested()
  @Type(() => HttpConfig)
  http = new HttpConfig();

  /** The kubeconfig file; unset: in-cluster credentials, else `~/.kube/config`. */
  @IsOptional()
  @IsString()
  kubeconfig?: string;

  /** The boot-worker's drunc settings (see boot-worker-settings.ts). */
  @ValidateNested()
  @Type(() => PodManagementConfig)
  podManagement = new PodManagementConfig();

  /** How the boot-worker carries out commands: per-session concurrency, bounded. */
  @ValidateNested()
  @Type(() => CommandsConfig)
  commands = new CommandsConfig();

  /** drunc's `volumes`: host directories mounted into every pod, `{name, mountPath, hostPath, readOnly}`. */
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => VolumeConfig)
  volumes: VolumeConfig[] = [];

  /** drunc's `home_path_base`: a process's HOME is `<homePathBase>/<user>`, mounted from the host (unset: `/home/<user>`, not mounted). */
  @IsOptional()
  @Matches(ABSOLUTE_PATH, { message: ABSOLUTE_PATH_MESSAGE })
  homePathBase?: string;

  /** The watcher's settings (see watcher-settings.ts). */
  @ValidateNested()
  @Type(() => WatcherConfig)
  watcher = new WatcherConfig();

  /** The state service's settings (see state-settings.ts). */
  @ValidateNested()
  @Type(() => StateConfig)
  state = new StateConfig();

  /** DUNE's feeds: drunc's broadcasts, opmon and ERS (see feeds-settings.ts). */
  @ValidateNested()
  @Type(() => FeedsConfig)
  feeds = new FeedsConfig();

  /** The drunc gateway's settings (see gateway-settings.ts). */
  @ValidateNested()
  @Type(() => GatewayConfig)
  gateway = new GatewayConfig();

  /** Session ownership: the operators who may act on any session (see security-settings.ts). */
  @ValidateNested()
  @Type(() => SecurityConfig)
  security = new SecurityConfig();
}
