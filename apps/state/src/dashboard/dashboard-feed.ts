/**
 * What the dashboard follows: the table's changes and the live events of the state view, as
 * one numbered log (`FeedLog`) that a page reads from a snapshot's cursor on, plus the
 * commands under way. Everything is appended in the view's order on one thread, so a snapshot
 * and its cursor always agree.
 */
import type { OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Subject, type Subscription } from 'rxjs';
import type { CloudEvent, CommandCompleted } from '@kpm/contracts';
import type { RowChange, StateView, ViewEvent } from '../view/state-view';
import { CommandTracker, type StartedCommand } from './command-tracker';
import { dashboardRow, type DashboardRow } from './dashboard-row';
import { feedEvent } from './feed-event';
import { FeedLog, type FeedEntry } from './feed-log';

type FeedData = DashboardRow | { uuid: string } | CloudEvent<unknown> | StartedCommand;

export interface DashboardSnapshot {
  /** Resume the stream after this cursor to miss nothing the snapshot does not hold. */
  cursor: string;
  ready: boolean;
  rows: DashboardRow[];
  commands: StartedCommand[];
  /** The latest events (not row changes), oldest first, for the timeline. */
  recent: FeedEntry<FeedData>[];
}

/** Enough for a 5,000-process boot and kill while a page reconnects… */
const KEPT_ENTRIES = 50_000;
/** …if it reconnects within two minutes (EventSource retries within seconds). */
export const KEPT_FOR_MS = 120_000;
const RECENT_EVENTS = 300;

export class DashboardFeed implements OnModuleInit, OnModuleDestroy {
  readonly log: FeedLog<FeedData>;
  readonly live = new Subject<FeedEntry<FeedData>>();
  private readonly commands = new CommandTracker();
  private readonly recent: FeedEntry<FeedData>[] = [];
  private readonly subscriptions: Subscription[] = [];
  private trimmer?: NodeJS.Timeout;

  constructor(
    private readonly view: StateView,
    now: () => number = Date.now,
  ) {
    this.log = new FeedLog<FeedData>(KEPT_ENTRIES, undefined, { maxAgeMs: KEPT_FOR_MS, now });
  }

  onModuleInit(): void {
    this.subscriptions.push(
      this.view.rowChanges.subscribe((change) => this.takeRow(change)),
      this.view.events.subscribe((event) => this.takeEvent(event)),
    );
    // Entries past their two minutes go even when nothing new comes.
    this.trimmer = setInterval(() => this.log.trimExpired(), KEPT_FOR_MS / 4);
    this.trimmer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.trimmer);
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.live.complete();
  }

  snapshot(): DashboardSnapshot {
    return {
      cursor: this.log.cursor,
      ready: this.view.caughtUp,
      rows: this.view.select({}).map((row) => dashboardRow(row.instance)),
      commands: this.commands.list(),
      recent: [...this.recent],
    };
  }

  private takeRow(change: RowChange): void {
    if (change.kind === 'gone') this.publish('gone', { uuid: change.uuid });
    else this.publish('row', dashboardRow(change.instance));
  }

  private takeEvent({ kind, event, session }: ViewEvent): void {
    if (kind === 'completion') this.commands.completed(event.data as CommandCompleted);
    this.remember(this.publish(kind, feedEvent(kind, event)));
    const started = kind === 'broadcast' ? startedCommand(event, session) : undefined;
    if (started && this.commands.started(started)) this.publish('command', started);
  }

  private publish(kind: string, data: FeedData): FeedEntry<FeedData> {
    const entry = this.log.append(kind, data);
    this.live.next(entry);
    return entry;
  }

  private remember(entry: FeedEntry<FeedData>): void {
    this.recent.push(entry);
    if (this.recent.length > RECENT_EVENTS) this.recent.shift();
  }
}

/** The command a `COMMAND_EXECUTION_START` broadcast announces. */
function startedCommand(event: CloudEvent<unknown>, session?: string): StartedCommand | undefined {
  const data = event.data as {
    broadcastType?: string;
    data?: { commandId?: unknown; commandType?: unknown };
  };
  const commandId = data.data?.commandId;
  const commandType = data.data?.commandType;
  if (data.broadcastType !== 'COMMAND_EXECUTION_START') return undefined;
  if (typeof commandId !== 'string' || typeof commandType !== 'string') return undefined;
  return { commandId, commandType, session: session ?? '', startedAt: event.time ?? '' };
}
