/**
 * What every state replica shows over HTTP: the whole process table and the recent completions,
 * read (committed only) from `kpm.processes` and `kpm.completions`, plus the live stream of
 * completions, terminations and broadcasts for `/v1/events`. With several replicas each one
 * shows every session; the partition owners write, the views follow within milliseconds.
 */
import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Subject } from 'rxjs';
import {
  parseRecord,
  topicName,
  type CloudEvent,
  type CommandCompleted,
  type ProcessInstance,
  type ProcessQuery,
} from '@kpm/contracts';
import { BACKOFF, errorText, EventLoopSlices, logEvent, retry } from '@kpm/common';
import type { KpmSettings } from '@kpm/config';
import { TopicFollower, type InboundRecord, type KafkaClient } from '@kpm/kafka';
import type { Readiness } from '@kpm/service-kit';
import { byName, instanceMatcher } from '../domain/process-table';
import { SHARD_HEADER } from '../kafka/effect-records';
import { CatchUpBuffer } from './catch-up-buffer';
import { CompletionCache } from './completion-cache';
import { withSharedParts, type OwnedInstance } from './shared-parts';

export type ViewEventKind = 'completion' | 'termination' | 'broadcast';

export interface ViewEvent {
  kind: ViewEventKind;
  session?: string;
  event: CloudEvent<unknown>;
}

export interface ViewRow {
  instance: ProcessInstance;
  /** The partition number of the session's owner. */
  shard?: number;
}

/** A row of the table as it changed: the new instance, or `gone` when flushed. */
export type RowChange =
  { kind: 'upsert'; instance: ProcessInstance } | { kind: 'gone'; uuid: string };

export interface SessionCounts {
  session: string;
  running: number;
  dead: number;
}

const PART = 'state-view';

export class StateView implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(StateView.name);
  private readonly rows = new Map<string, ViewRow>();
  private readonly completions: CompletionCache;
  readonly events = new Subject<ViewEvent>();
  /** Every change of the table, in topic order, for views that follow it incrementally. */
  readonly rowChanges = new Subject<RowChange>();
  private follower?: TopicFollower;
  /** Partitions of the history topics still being read; undefined until the read started. */
  private catchingUp?: number;
  /** History kept unparsed until the read ends; undefined once it is applied. */
  private buffer?: CatchUpBuffer;
  private applying = false;
  private readonly closing = new AbortController();
  /** This replica's own rows, whose unchanging parts the view's rows share (shared-parts.ts). */
  private ownInstance: OwnedInstance = () => undefined;

  constructor(
    private readonly settings: Pick<KpmSettings, 'instance' | 'kafka' | 'state'>,
    private readonly kafka: KafkaClient,
    private readonly readiness: Readiness,
  ) {
    readiness.expect(PART);
    const { completionCacheSize, completionCacheProcesses } = settings.state;
    this.completions = new CompletionCache(completionCacheSize, completionCacheProcesses);
    this.buffer = new CatchUpBuffer(completionCacheSize);
  }

  get caughtUp(): boolean {
    return this.catchingUp === 0 && this.buffer === undefined;
  }

  /** Starts following in the background: the HTTP API answers (not ready) while it catches up. */
  onApplicationBootstrap(): void {
    void this.follow();
  }

  private async follow(): Promise<void> {
    await retry(() => this.start(), {
      backoff: BACKOFF.stateView,
      signal: this.closing.signal,
      onRetry: async (error, attempt) => {
        this.logger.warn(logEvent('view.follow_failed', { attempt, error: errorText(error) }));
        await this.follower?.stop().catch(() => undefined);
      },
    }).catch(() => undefined); // closing: nothing more to follow
  }

  private async start(): Promise<void> {
    const prefix = this.settings.kafka.topicPrefix;
    this.follower = new TopicFollower(this.kafka, {
      replay: [topicName('processes', prefix), topicName('completions', prefix)],
      live: [topicName('terminations', prefix), topicName('broadcast', prefix)],
      maxBytesPerPartition: this.settings.kafka.maxRecordBytes,
      onRecord: (record) => this.take(record),
      onProgress: (remaining) => this.reportCatchUp(remaining),
      onError: (error) =>
        this.logger.error(logEvent('view.follow_stopped', { error: errorText(error) })),
    });
    await this.follower.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing.abort();
    await this.follower?.stop();
    this.events.complete();
    this.rowChanges.complete();
  }

  /** Where the rows of the sessions this replica owns are held (its shards). */
  shareWith(ownInstance: OwnedInstance): void {
    this.ownInstance = ownInstance;
  }

  /** Rows taken before a shard held their processes (a restore after the view caught up). */
  shareFrom(instances: Iterable<ProcessInstance>): void {
    for (const own of instances) {
      const row = this.rows.get(own.uuid);
      if (row) row.instance = withSharedParts(row.instance, own);
    }
  }

  completion(commandId: string): CommandCompleted | undefined {
    return this.completions.get(commandId);
  }

  /** Rows `query` selects (an empty query selects all), optionally of one status. */
  select(query: ProcessQuery, status?: string): ViewRow[] {
    const matches = instanceMatcher(query);
    return [...this.rows.values()]
      .filter((row) => matches(row.instance) && (!status || row.instance.statusCode === status))
      .sort((a, b) => byName(a.instance, b.instance));
  }

  sessions(): SessionCounts[] {
    const counts = new Map<string, SessionCounts>();
    for (const { instance } of this.rows.values()) {
      const session = instance.description.metadata.session;
      const entry = counts.get(session) ?? { session, running: 0, dead: 0 };
      if (instance.statusCode === 'RUNNING') entry.running++;
      else entry.dead++;
      counts.set(session, entry);
    }
    return [...counts.values()].sort((a, b) => a.session.localeCompare(b.session));
  }

  private take(record: InboundRecord): void {
    const id = topicId(record.topic);
    if (this.buffer && id === 'processes') return this.buffer.row(record);
    if (this.buffer && id === 'completions') return this.buffer.completion(record);
    this.apply(id, record);
  }

  private apply(id: string, record: InboundRecord): void {
    if (id === 'processes') return this.takeProcess(record);
    const parsed = parseRecord(record.value, {
      topic: record.topic,
      maxBytes: this.settings.kafka.maxRecordBytes,
    });
    if (!parsed.ok) return; // the writers dead-letter what they cannot read; the view only shows
    const event = parsed.event;
    if (id === 'completions' && event.type === 'daq.kpm.command.completed.v1') {
      this.completions.put(event.data);
      if (this.caughtUp) this.events.next({ kind: 'completion', session: event.subject, event });
    } else if (id === 'terminations') {
      this.events.next({ kind: 'termination', session: event.subject, event });
    } else if (id === 'broadcast') {
      this.events.next({ kind: 'broadcast', session: event.subject, event });
    }
  }

  private takeProcess(record: InboundRecord): void {
    if (record.key === null) return;
    if (record.value === null) {
      if (this.rows.delete(record.key)) this.rowChanges.next({ kind: 'gone', uuid: record.key });
      return;
    }
    const parsed = parseRecord(record.value, {
      topic: record.topic,
      maxBytes: this.settings.kafka.maxRecordBytes,
    });
    if (!parsed.ok || parsed.event.type !== 'daq.kpm.process.instance.v1') return;
    const shard = record.headers[SHARD_HEADER];
    const instance = withSharedParts(parsed.event.data, this.ownInstance(parsed.event.data.uuid));
    this.rows.set(record.key, {
      instance,
      shard: shard === undefined ? undefined : Number(shard),
    });
    this.rowChanges.next({ kind: 'upsert', instance });
  }

  private reportCatchUp(remaining: number): void {
    this.catchingUp = remaining;
    if (remaining === 0 && this.buffer) {
      if (!this.applying) void this.applyBuffer(this.buffer);
      return;
    }
    if (this.caughtUp) {
      this.readiness.set(
        PART,
        true,
        `${this.rows.size} processes, ${this.completions.size} completions`,
      );
      this.logger.log(
        logEvent('view.caught_up', {
          processes: this.rows.size,
          completions: this.completions.size,
        }),
      );
    } else {
      this.readiness.set(PART, false, `reading ${remaining} partitions`);
    }
  }

  /**
   * The history read, parsed now: only what survived (latest rows, last completions), a turn of
   * the event loop every slice. Records that come meanwhile are kept and applied in order.
   */
  private async applyBuffer(buffer: CatchUpBuffer): Promise<void> {
    this.applying = true;
    this.readiness.set(PART, false, `applying ${buffer.size} records of the history`);
    const slices = new EventLoopSlices();
    while (buffer.size > 0) {
      for (const record of buffer.drain()) {
        this.apply(topicId(record.topic), record);
        await slices.next();
      }
    }
    this.buffer = undefined;
    this.reportCatchUp(0);
  }
}

function topicId(topic: string): string {
  return topic.slice(topic.lastIndexOf('.') + 1);
}
