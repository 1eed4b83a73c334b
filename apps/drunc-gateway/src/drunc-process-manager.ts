/**
 * drunc's ProcessManager over kpm: each RPC becomes kpm commands through `@kpm/client`, answered
 * from their completions, in drunc's words (docs/design.md "drunc gateway" has the mapping).
 *
 * - boot: one kpm boot of one process into the request's session, as the token's user;
 * - ps: kpm's ps (read from the state service's table);
 * - kill, restart: kpm's, with drunc's query; a killed process leaves the list, as in drunc (a
 *   kpm flush of what the kill ended follows);
 * - terminate: drunc's meaning — every process of the calling user's sessions: one kpm terminate
 *   (and flush) per session the user has processes in;
 * - flush: kpm's, per session the query's dead processes are in (the caller's, unless the query
 *   names a user);
 * - logs: kpm's, as LogLines; a query that does not name exactly one process is drunc's BadQuery
 *   answer (flag NOT_EXECUTED_BAD_REQUEST_FORMAT with the reason);
 * - describe: kpm, and drunc's command list.
 */
import {
  CommandFailedError,
  InvalidCommandError,
  type ProcessManagerClient,
  type Query,
} from '@kpm/client';
import type { CommandCompleted, ProcessInstance as KpmInstance } from '@kpm/contracts';
import type { CallIdentity } from './calls/command-identity';
import { followUpId } from './calls/command-identity';
import { killBudgetSeconds } from './calls/kill-plan';
import type { CommandRunner } from './calls/command-runner';
import { describeKpm } from './describe';
import { badRequest, completionError, unavailable } from './errors/gateway-error';
import { bootPlan } from './mapping/boot-request';
import { bootFieldPath, queryFieldPath } from './mapping/field-paths';
import { druncInstance } from './mapping/process-instance';
import { isEmptyQuery, kpmQuery } from './mapping/process-query';
import {
  ResponseFlag,
  type BootRequest,
  type Description,
  type LogLines,
  type LogRequest,
  type ProcessInstanceList,
  type ProcessQuery,
  type Request,
} from './wire/drunc-messages';

export type KpmCommands = Pick<
  ProcessManagerClient,
  'boot' | 'kill' | 'terminate' | 'restart' | 'flush' | 'ps' | 'logs'
>;

export interface GatewayIdentity {
  /** What describe names (drunc's `name`): kpm. */
  name: string;
  /** The address clients use, `grpc://host:port`. */
  endpoint: string;
  /** Where drunc's broadcasts are, when offered (broadcast-listing.ts). */
  broadcast?: { type_url: string; value: Uint8Array };
  /** The image of the processes drunc boots (`gateway.defaultImage`); else the boot-worker's. */
  defaultImage?: string;
}

export class DruncProcessManager {
  constructor(
    private readonly kpm: KpmCommands,
    private readonly runner: CommandRunner,
    private readonly identity: GatewayIdentity,
  ) {}

  describe(request: Request): Description {
    rejectData('describe', request);
    return describeKpm(this.identity);
  }

  async boot(request: BootRequest, answerByMs: number): Promise<ProcessInstanceList> {
    const plan = bootPlan(request, this.identity.defaultImage);
    if (!plan.ok) throw badRequest('boot', plan.violations);
    const boot = plan.value;
    const completion = await this.runner.run({
      rpc: 'boot',
      identity: { rpc: 'boot', user: boot.user, request: boot },
      send: (commandId, timeoutMs) => this.kpm.boot(boot, { wait: true, commandId, timeoutMs }),
      changedSince: (done) =>
        done.status === 'succeeded' ? this.notRunning(done.processes[0]) : Promise.resolve(false),
      answerByMs,
      fieldOf: bootFieldPath,
    });
    if (completion.status !== 'succeeded') throw completionError('boot', completion, bootFieldPath);
    return this.list(completion.processes);
  }

  async ps(query: ProcessQuery): Promise<ProcessInstanceList> {
    const processes = await this.read('ps', () => this.kpm.ps(kpmQuery(query)));
    return this.list(processes);
  }

  async kill(query: ProcessQuery, answerByMs: number): Promise<ProcessInstanceList> {
    const user = callerOf('kill', query.token);
    const selection = this.actionable('kill', kpmQuery(query));
    const call = { rpc: 'kill', user, request: { query: selection } };
    const completion = await this.runner.run({
      rpc: 'kill',
      identity: call,
      send: (commandId, timeoutMs) =>
        this.kpm.kill(
          { query: selection, user, deadlineSeconds: killBudgetSeconds(answerByMs) },
          { wait: true, commandId, timeoutMs },
        ),
      changedSince: () => this.anyRunning(selection),
      answerByMs,
      fieldOf: queryFieldPath,
    });
    return this.killedAnswer('kill', user, completion, answerByMs);
  }

  async restart(query: ProcessQuery, answerByMs: number): Promise<ProcessInstanceList> {
    const user = callerOf('restart', query.token);
    const selection = this.actionable('restart', kpmQuery(query));
    const completion = await this.runner.run({
      rpc: 'restart',
      identity: { rpc: 'restart', user, request: { query: selection } },
      send: (commandId, timeoutMs) =>
        this.kpm.restart(selection, { wait: true, commandId, timeoutMs, user }),
      changedSince: (done) =>
        done.status === 'succeeded' ? this.notRunning(done.processes[0]) : Promise.resolve(false),
      answerByMs,
      fieldOf: queryFieldPath,
    });
    if (completion.status !== 'succeeded') {
      throw completionError('restart', completion, queryFieldPath);
    }
    return this.list(completion.processes);
  }

  async terminate(request: Request, answerByMs: number): Promise<ProcessInstanceList> {
    rejectData('terminate', request);
    const user = callerOf('terminate', request.token);
    const owned = await this.read('terminate', () => this.kpm.ps({ user }));
    const sessions = [...new Set(owned.map((p) => p.description.metadata.session))].sort();
    const answers = await Promise.all(
      sessions.map(async (session) => {
        const completion = await this.runner.run({
          rpc: 'terminate',
          identity: { rpc: 'terminate', user, request: { session } },
          send: (commandId, timeoutMs) =>
            this.kpm.terminate(
              { session, user, deadlineSeconds: killBudgetSeconds(answerByMs) },
              { wait: true, commandId, timeoutMs },
            ),
          changedSince: () => this.anyRunning({ session }),
          answerByMs,
          fieldOf: queryFieldPath,
        });
        return this.killedAnswer('terminate', user, completion, answerByMs);
      }),
    );
    return {
      name: this.identity.name,
      values: answers.flatMap((a) => a.values),
      flag: answers.some((a) => a.flag !== ResponseFlag.EXECUTED_SUCCESSFULLY)
        ? ResponseFlag.FAILED
        : ResponseFlag.EXECUTED_SUCCESSFULLY,
    };
  }

  async flush(query: ProcessQuery, answerByMs: number): Promise<ProcessInstanceList> {
    const user = callerOf('flush', query.token);
    const given = kpmQuery(query);
    const selection: Query = given.user ? given : { ...given, user };
    const dead = (await this.read('flush', () => this.kpm.ps(selection))).filter(
      (p) => p.statusCode === 'DEAD',
    );
    const sessions = [...new Set(dead.map((p) => p.description.metadata.session))].sort();
    const flushed = await Promise.all(
      sessions.map((session) => this.flushSession(user, { ...selection, session }, answerByMs)),
    );
    return this.list(flushed.flat());
  }

  async logs(request: LogRequest): Promise<LogLines> {
    const user = callerOf('logs', request.token);
    const query = kpmQuery(request.query);
    const tailLines = request.how_far > 0 ? request.how_far : 100;
    if (isEmptyQuery(query))
      return badQuery('the query selects no process: give a uuid, name, user or session');
    try {
      const [logs] = await this.kpm.logs(query, { tailLines, user });
      const [process] = logs ? await this.kpm.ps({ uuids: [logs.uuid] }) : [];
      return {
        name: process?.description.metadata.name ?? '',
        uuid: logs ? { uuid: logs.uuid } : null,
        lines: logs?.lines ?? [],
        flag: ResponseFlag.EXECUTED_SUCCESSFULLY,
      };
    } catch (error) {
      if (error instanceof InvalidCommandError || error instanceof CommandFailedError) {
        return badQuery(error.message);
      }
      throw unavailable('logs', error as Error);
    }
  }

  /**
   * drunc's SessionManager: every session kpm has processes in, with the user it belongs to
   * (the user of its processes: a kpm session belongs to the user who booted it).
   */
  async sessions(rpc: string): Promise<Array<{ name: string; user: string }>> {
    const processes = await this.read(rpc, () => this.kpm.ps({}));
    const owners = new Map<string, string>();
    for (const p of processes)
      owners.set(p.description.metadata.session, p.description.metadata.user);
    return [...owners]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, user]) => ({ name, user }));
  }

  /** kill and terminate: the ended processes leave the list (a flush), and say so. */
  private async killedAnswer(
    rpc: string,
    user: string,
    completion: CommandCompleted,
    answerByMs: number,
  ): Promise<ProcessInstanceList> {
    if (completion.status === 'rejected' || completion.status === 'failed') {
      throw completionError(rpc, completion, queryFieldPath);
    }
    const ended = completion.processes.filter((p) => p.statusCode === 'DEAD');
    if (ended.length > 0) {
      await this.flushUuids(user, completion.commandId, ended, answerByMs);
    }
    return {
      ...this.list(completion.processes),
      flag:
        completion.status === 'succeeded'
          ? ResponseFlag.EXECUTED_SUCCESSFULLY
          : ResponseFlag.FAILED,
    };
  }

  private async flushUuids(
    user: string,
    commandId: string,
    ended: KpmInstance[],
    answerByMs: number,
  ): Promise<void> {
    const bySession = new Map<string, string[]>();
    for (const p of ended) {
      const session = p.description.metadata.session;
      bySession.set(session, [...(bySession.get(session) ?? []), p.uuid]);
    }
    await Promise.all(
      [...bySession].map(async ([session, uuids]) => {
        const query = { session, uuids };
        const flushId = followUpId(commandId, `flush ${session}`);
        await this.kpm
          .flush(query, { wait: true, commandId: flushId, user, timeoutMs: remaining(answerByMs) })
          .catch((error: Error) => {
            if (!(error instanceof CommandFailedError)) throw unavailable('flush', error);
          });
      }),
    );
  }

  private async flushSession(
    user: string,
    query: Query,
    answerByMs: number,
  ): Promise<KpmInstance[]> {
    const call: CallIdentity = { rpc: 'flush', user, request: { query } };
    const completion = await this.runner.run({
      rpc: 'flush',
      identity: call,
      send: (commandId, timeoutMs) =>
        this.kpm.flush(query, { wait: true, commandId, timeoutMs, user }),
      changedSince: async () => (await this.kpm.ps(query)).some((p) => p.statusCode === 'DEAD'),
      answerByMs,
      fieldOf: queryFieldPath,
    });
    if (completion.status !== 'succeeded')
      throw completionError('flush', completion, queryFieldPath);
    return completion.processes;
  }

  private actionable(rpc: string, query: Query): Query {
    if (!isEmptyQuery(query)) return query;
    throw badRequest(rpc, [
      {
        field: 'uuids, names, user, session',
        description: `at least one selector is needed: an empty query selects nothing to ${rpc} (terminate is for everything)`,
      },
    ]);
  }

  private async notRunning(instance: KpmInstance | undefined): Promise<boolean> {
    if (!instance) return true;
    const [now] = await this.kpm.ps({ uuids: [instance.uuid] });
    return !now || now.statusCode !== 'RUNNING' || now.podUid !== instance.podUid;
  }

  private async anyRunning(query: Query): Promise<boolean> {
    return (await this.kpm.ps(query)).some((p) => p.statusCode === 'RUNNING');
  }

  private async read<T>(rpc: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof InvalidCommandError) {
        throw badRequest(
          rpc,
          error.errors.map((e) => ({ field: queryFieldPath(e.path), description: e.message })),
        );
      }
      throw unavailable(rpc, error as Error);
    }
  }

  private list(processes: readonly KpmInstance[]): ProcessInstanceList {
    return {
      name: this.identity.name,
      values: processes.map(druncInstance),
      flag: ResponseFlag.EXECUTED_SUCCESSFULLY,
    };
  }
}

function callerOf(rpc: string, token: { user_name: string } | null | undefined): string {
  const user = token?.user_name ?? '';
  if (user) return user;
  throw badRequest(rpc, [
    { field: 'token.user_name', description: 'must name the user the call acts for' },
  ]);
}

/** describe and terminate take no data: an Any there is not what drunc's clients send. */
function rejectData(rpc: string, request: Request): void {
  const data = request.data;
  if (!data || (!data.type_url && data.value.length === 0)) return;
  throw badRequest(rpc, [
    {
      field: 'data',
      description: `${rpc} takes no data, got an Any of type "${data.type_url || '(none)'}" (${data.value.length} bytes)`,
    },
  ]);
}

function badQuery(reason: string): LogLines {
  return {
    name: '',
    uuid: null,
    lines: [reason],
    flag: ResponseFlag.NOT_EXECUTED_BAD_REQUEST_FORMAT,
  };
}

function remaining(answerByMs: number): number {
  return Math.max(1_000, answerByMs - Date.now());
}
