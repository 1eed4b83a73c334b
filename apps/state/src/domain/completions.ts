/**
 * What a finished boot or kill reports: the processes as the table knows them at completion,
 * with each targeted pod's exit code.
 */
import { CommandType, type KillKind, type ProcessInstance } from '@kpm/contracts';
import type { BootAggregate } from './boot-aggregate';
import type { CompletionInput } from './completion-record';
import type { KillAggregate } from './kill-aggregate';
import { deadInstance, instanceFromTermination, type ProcessTable } from './process-table';

type Report = Omit<CompletionInput, 'completedAt'>;

const KILL_TYPES: Record<KillKind, string> = {
  kill: CommandType.kill,
  terminate: CommandType.terminate,
  restart: CommandType.restart,
};

export function killCommandType(kind: KillKind): string {
  return KILL_TYPES[kind];
}

/** The current row if it is the booted pod, so a process that died since shows DEAD. */
function latest(instance: ProcessInstance, table: ProcessTable): ProcessInstance {
  const row = table.get(instance.uuid);
  return row && row.podUid === instance.podUid ? row : instance;
}

export function bootCompletion(boot: BootAggregate, table: ProcessTable): Report {
  return {
    commandId: boot.commandId,
    commandType: CommandType.boot,
    session: boot.session,
    status: boot.succeeded ? 'succeeded' : 'failed',
    processes: boot.bootedInstances().map((p) => latest(p, table)),
    errors: boot.errors(),
    acceptedAt: boot.acceptedAt,
  };
}

/** Each targeted process, DEAD with its exit code where its pod ended; a restart's new pod. */
export function killCompletion(kill: KillAggregate, table: ProcessTable): Report {
  const base = {
    commandId: kill.commandId,
    commandType: KILL_TYPES[kill.kind],
    session: kill.session,
    acceptedAt: kill.acceptedAt,
  };
  if (kill.kind === 'restart') return restartCompletion(kill, table, base);
  const processes = kill.targetList().flatMap((target): ProcessInstance[] => {
    const row = table.get(target.uuid);
    const ended = target.ended;
    if (!ended) return row ? [row] : [];
    if (!row) return [instanceFromTermination(ended)];
    if (row.podUid === ended.podUid && row.statusCode === 'DEAD') return [row];
    return [deadInstance(row, ended)];
  });
  return { ...base, status: 'succeeded', processes };
}

/**
 * A restart: each process booted again, as the table knows it now; one error per process that
 * was stopped but could not be booted again (`failed`), with the pods that never ended pending.
 */
function restartCompletion(
  kill: KillAggregate,
  table: ProcessTable,
  base: Omit<Report, 'status' | 'processes'>,
): Report {
  const reboots = kill.rebootOutcomes;
  const processes = reboots.flatMap((r) => ('instance' in r ? [latest(r.instance, table)] : []));
  const errors = reboots.flatMap((r) => {
    if ('instance' in r) return [];
    const { failure } = r;
    const message = `${failure.name} (${failure.uuid}) was stopped but failed to boot again: ${failure.error.code}: ${failure.error.message}`;
    return [{ message }];
  });
  if (errors.length === 0) return { ...base, status: 'succeeded', processes };
  const pending = kill.pending;
  return {
    ...base,
    status: 'failed',
    processes,
    errors,
    ...(pending.length > 0 ? { pending } : {}),
  };
}
