/**
 * DUNE's own feeds (docs/design.md §5.7): drunc's broadcasts, opmon's process counts and ERS
 * issues for unexpected deaths, written by the state service beside kpm's CloudEvents. Named as
 * drunc names them where drunc has a name (`kafka_address`, `interval_s`, the process
 * manager's session and name). On by default: a DUNE operator who swaps drunc's process
 * manager for kpm expects to see what drunc showed. They go to kpm's own brokers, inside the
 * state service's transactions, so each is written exactly once.
 */
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { DEFAULT_FEED_NAMING } from '@kpm/contracts';
import { IsBoolean, IsInt, IsOptional, Matches, Max, Min, ValidateNested } from 'class-validator';

const TOPIC_PART = /^[a-zA-Z0-9._-]{1,200}$/;
const TOPIC_PART_MESSAGE = 'may hold letters, digits, ".", "_" and "-" (a Kafka topic name)';

/** drunc's broadcasts on `control.<session>.<name>` (drunc's BroadcastMessage, protobuf). */
export class BroadcastFeedConfig {
  /** Write drunc's broadcasts (off: describe offers none either). */
  @IsBoolean()
  enabled = true;

  /** The process manager's own session: drunc uses its Unix user; the topic's middle part. */
  @Matches(TOPIC_PART, { message: `session ${TOPIC_PART_MESSAGE}` })
  session = DEFAULT_FEED_NAMING.broadcast.session;

  /** The process manager's name: the topic's last part and the emitter's `process`. */
  @Matches(TOPIC_PART, { message: `name ${TOPIC_PART_MESSAGE}` })
  name = DEFAULT_FEED_NAMING.broadcast.name;
}

/** opmon's `ProcessStatus` on `monitoring.<topic>` (opmonlib's OpMonEntry, protobuf). */
export class OpmonFeedConfig {
  /** Publish opmon's ProcessStatus every interval. */
  @IsBoolean()
  enabled = true;

  /** kafkaopmon's topic name without its `monitoring.` prefix (DUNE's default `opmon_stream`). */
  @Matches(TOPIC_PART, { message: `topic ${TOPIC_PART_MESSAGE}` })
  topic = DEFAULT_FEED_NAMING.opmon.topic;

  /** drunc's `interval_s`: one ProcessStatus per session this often. */
  @IsInt()
  @Min(1)
  @Max(3600)
  intervalSeconds = 10;

  /** The OpMonId application (the session is the DAQ session counted). */
  @Matches(TOPIC_PART, { message: `application ${TOPIC_PART_MESSAGE}` })
  application = 'process_manager';
}

/** ERS CRITICAL issues for a process that died without a kill asking (erskafka's IssueChain). */
export class ErsFeedConfig {
  /** Write an ERS issue for every death nobody asked for. */
  @IsBoolean()
  enabled = true;

  /** erskafka's topic (its publishers' default `ers_stream`). */
  @Matches(TOPIC_PART, { message: `topic ${TOPIC_PART_MESSAGE}` })
  topic = DEFAULT_FEED_NAMING.ers.topic;

  /** The application, as drunc's process manager names its ERS logger. */
  @Matches(TOPIC_PART, { message: `application ${TOPIC_PART_MESSAGE}` })
  application = 'drunc.process_manager';
}

export class FeedsConfig {
  /**
   * drunc's `kafka_address`: the broker drunc's shells dial to follow the broadcasts, offered by
   * the drunc gateway's `describe` (`broadcast`) only when set — a shell given an address it
   * cannot reach fails as it starts. The feeds themselves go to `kafka.brokers` whatever it says
   * (a Kafka transaction spans one cluster), so name an address of that cluster.
   */
  @IsOptional()
  @Matches(/^[^\s:]+:\d{1,5}$/, { message: 'kafkaAddress must be host:port' })
  kafkaAddress?: string;

  @ValidateNested()
  @Type(() => BroadcastFeedConfig)
  broadcast = new BroadcastFeedConfig();

  @ValidateNested()
  @Type(() => OpmonFeedConfig)
  opmon = new OpmonFeedConfig();

  @ValidateNested()
  @Type(() => ErsFeedConfig)
  ers = new ErsFeedConfig();
}

const bool = (raw: string): unknown => (raw === 'true' ? true : raw === 'false' ? false : raw);

export const FEEDS_ENV: ReadonlyArray<[string, string, (raw: string) => unknown]> = [
  ['KPM_FEEDS_KAFKA_ADDRESS', 'feeds.kafkaAddress', String],
  ['KPM_FEEDS_BROADCAST_ENABLED', 'feeds.broadcast.enabled', bool],
  ['KPM_FEEDS_BROADCAST_SESSION', 'feeds.broadcast.session', String],
  ['KPM_FEEDS_BROADCAST_NAME', 'feeds.broadcast.name', String],
  ['KPM_FEEDS_OPMON_ENABLED', 'feeds.opmon.enabled', bool],
  ['KPM_FEEDS_OPMON_TOPIC', 'feeds.opmon.topic', String],
  ['KPM_FEEDS_OPMON_INTERVAL_SECONDS', 'feeds.opmon.intervalSeconds', Number],
  ['KPM_FEEDS_OPMON_APPLICATION', 'feeds.opmon.application', String],
  ['KPM_FEEDS_ERS_ENABLED', 'feeds.ers.enabled', bool],
  ['KPM_FEEDS_ERS_TOPIC', 'feeds.ers.topic', String],
  ['KPM_FEEDS_ERS_APPLICATION', 'feeds.ers.application', String],
];
