/**
 * DUNE's feeds as Kafka records (docs/design.md §5.7): the state service's effects, already
 * decided, become drunc's broadcasts and ERS issues, written in the same transaction as kpm's own
 * records and the input offsets — so a state restart neither repeats nor loses one. opmon's
 * counts and SERVER_READY are not tied to an input; feed-publisher.ts sends them.
 */
import Long from 'long';
import type { FeedsConfig } from '@kpm/config';
import { feedTopicNames, type ProcessInstance } from '@kpm/contracts';
import type { TransactionalRecord } from '@kpm/kafka';
import type { Effect } from '../domain/effects';
import { druncBroadcast, type DruncBroadcast } from './drunc-broadcasts';
import { ersIssue } from './ers-issues';
import { broadcastTypeNumber, encodeFeedMessage, FeedMessage, packAny } from './feed-protos';
import { opmonEntry, opmonKey, processStatus } from './opmon-status';

/**
 * Users of the commands under way, for drunc's "User '<u>' successfully executed": each is
 * forgotten at its command's end (COMMAND_EXECUTION_SUCCESS or _FAILED). The cap bounds what
 * commands that never end would leave.
 */
const USERS_KEPT = 10_000;

/** The broadcasts that end a command: its user is not asked for again. */
const COMMAND_ENDS = new Set(['COMMAND_EXECUTION_SUCCESS', 'COMMAND_EXECUTION_FAILED']);

/** Whether any feed is on. */
export function feedsOn(feeds: FeedsConfig): boolean {
  return feeds.broadcast.enabled || feeds.opmon.enabled || feeds.ers.enabled;
}

/** The feeds' topic names, from the settings. */
export function feedTopics(feeds: FeedsConfig): ReturnType<typeof feedTopicNames> {
  return feedTopicNames(feeds);
}

export class FeedRecords {
  private readonly topics: ReturnType<typeof feedTopics>;
  private readonly users = new Map<string, string>();

  constructor(
    private readonly feeds: FeedsConfig,
    private readonly hostName: string,
  ) {
    this.topics = feedTopics(feeds);
  }

  /** Commands under way whose user is remembered (each is forgotten at its command's end). */
  get usersRemembered(): number {
    return this.users.size;
  }

  /** The feed records of one batch of effects (none for a feed switched off). */
  encode(effects: readonly Effect[]): TransactionalRecord[] {
    const out: TransactionalRecord[] = [];
    for (const effect of effects) {
      if (effect.kind === 'broadcast' && this.feeds.broadcast.enabled) {
        this.rememberUser(effect.data);
        const message = druncBroadcast(effect, (id) => this.userOf(id, effects));
        if (message) out.push(this.broadcast(message));
        if (COMMAND_ENDS.has(effect.broadcastType)) this.forgetUser(effect.data);
      } else if (effect.kind === 'death' && this.feeds.ers.enabled) {
        out.push(this.issue(effect.termination));
      }
    }
    return out;
  }

  /** drunc's BroadcastMessage on `control.<session>.<name>`, without a key, as drunc sends it. */
  broadcast(message: DruncBroadcast): TransactionalRecord {
    const value = encodeFeedMessage(FeedMessage.broadcast, {
      emitter: { process: this.feeds.broadcast.name, session: this.feeds.broadcast.session },
      type: broadcastTypeNumber(message.type),
      data: packAny(FeedMessage.plainText, { text: message.text }),
    });
    return { topic: this.topics.broadcast, key: null, value };
  }

  /** opmon's entry for one session's rows, keyed as kafkaopmon keys it. */
  opmon(session: string, rows: Iterable<ProcessInstance>, now: number): TransactionalRecord {
    const entry = opmonEntry(session, this.feeds.opmon.application, processStatus(rows), now);
    const value = encodeFeedMessage(FeedMessage.opmonEntry, { ...entry });
    return { topic: this.topics.opmon, key: opmonKey(entry), value };
  }

  private issue(termination: Parameters<typeof ersIssue>[0]): TransactionalRecord {
    const issue = ersIssue(termination, {
      application: this.feeds.ers.application,
      hostName: this.hostName,
    });
    const wire = {
      ...issue,
      final: { ...issue.final, time: Long.fromString(issue.final.time, true) },
    };
    const value = encodeFeedMessage(FeedMessage.issueChain, wire);
    // erskafka keys an issue by its session.
    return { topic: this.topics.ers, key: issue.session, value };
  }

  private rememberUser(data: Record<string, unknown> | undefined): void {
    if (typeof data?.commandId !== 'string' || typeof data.user !== 'string') return;
    this.users.set(data.commandId, data.user);
    if (this.users.size > USERS_KEPT) this.users.delete(this.users.keys().next().value!);
  }

  private forgetUser(data: Record<string, unknown> | undefined): void {
    if (typeof data?.commandId === 'string') this.users.delete(data.commandId);
  }

  /** The command's user: from its ACK, else the owner of the processes its completion lists. */
  private userOf(commandId: string, effects: readonly Effect[]): string | undefined {
    const known = this.users.get(commandId);
    if (known) return known;
    for (const effect of effects) {
      if (effect.kind === 'completion' && effect.completion.commandId === commandId)
        return effect.completion.processes[0]?.description.metadata.user;
    }
    return undefined;
  }
}
