/**
 * A kill, terminate or restart from its acceptance to its completion: the boot-worker's
 * acceptance names the pods in stages, terminations settle them, a restart's reboot settles the
 * rest, and a kill still open at its deadline completes as timed_out with what is pending
 * (the rules: completion/kill.ts, completion/restart.ts).
 */
import type { KillAccepted, ProcessTerminated } from '@kpm/contracts';
import { startBroadcast, terminationBroadcast } from './broadcasts';
import { killTimedOut } from './completion/kill';
import { restartTimedOut } from './completion/restart';
import { deathOf } from './deaths';
import { cancelPendingRestarts, exitActions } from './exit-actions';
import { policyMayDecide } from './exit-decision';
import type { Effect } from './effects';
import { KillAggregate, rebootOf } from './kill-aggregate';
import type { ShardMemory } from './shard-memory';

export function acceptKill(
  memory: ShardMemory,
  accepted: KillAccepted,
  session: string,
  time: number,
): Effect[] {
  const { commandId, kind, stages, timeoutSeconds, progressTimeoutSeconds, podUids } = accepted;
  if (memory.completed.has(commandId) || memory.kills.has(commandId)) return [];
  const targets = stages.flat().map((uuid) => memory.book.target(uuid, time, podUids?.[uuid]));
  const timing = {
    timeoutMs: timeoutSeconds * 1000,
    ...(progressTimeoutSeconds === undefined
      ? {}
      : { progressTimeoutMs: progressTimeoutSeconds * 1000 }),
  };
  const kill = new KillAggregate(commandId, kind, session, time, timing, targets);
  memory.kills.set(commandId, kill);
  const reboot = memory.takeEarly(commandId); // a restart's new pod may have been seen first
  if (kind === 'restart') for (const fact of reboot) kill.rebooted(rebootOf(fact));
  const detail = `${targets.length} processes in ${stages.length} stages`;
  return [
    ...memory.publish(() => [startBroadcast(commandId, kill.commandType, session, detail)]),
    // A user's kill, terminate or restart wins over a restart its targets wait for; a terminate
    // over every restart its session waits for, whether or not its stages name the process.
    ...memory.publish(() => cancelPendingRestarts(memory, cancelledBy(memory, kill), commandId)),
    ...memory.settleKill(kill),
  ];
}

/** The processes whose scheduled restart `kill` cancels (exit-actions.ts). */
function cancelledBy(memory: ShardMemory, kill: KillAggregate): string[] {
  if (kill.kind !== 'terminate') return kill.uuids;
  const session = kill.session;
  return [...memory.pendingRestarts.keys()].filter(
    (uuid) => memory.book.table.get(uuid)?.description.metadata.session === session,
  );
}

/** A pod ended (applied at `time`): the table, the termination broadcast, then every kill waiting for it. */
export function processTerminated(
  memory: ShardMemory,
  termination: ProcessTerminated,
  time: number,
): Effect[] {
  const { fresh, changed } = memory.book.terminated(termination, memory.live);
  if (!fresh) return []; // the same pod's end, re-published
  const out: Effect[] = memory.publish(() => [terminationBroadcast(termination)]);
  const aimed = [...memory.kills.values()].filter((kill) => kill.offer(termination, time));
  if (changed && policyMayDecide(termination, aimed.length > 0)) {
    // Nobody asked for this end: the process's exit policy decides (exit-actions.ts). An end
    // seen before its pod's boot fact is decided when that fact comes (boot-progress.ts).
    const { row, effects } = exitActions(memory, termination, changed);
    return [...out, { kind: 'process', instance: row }, ...effects];
  }
  if (changed) out.push({ kind: 'process', instance: changed });
  for (const kill of aimed) out.push(...memory.settleKill(kill));
  out.push(...memory.publish(() => deathOf(termination, aimed.length > 0)));
  return out;
}

/** Kills whose deadline passed complete as timed_out (completion/kill.ts, restart.ts). */
export function expireKills(memory: ShardMemory): Effect[] {
  const now = memory.now();
  const out: Effect[] = [];
  for (const kill of [...memory.kills.values()]) {
    if (kill.deadline > now) continue;
    const timedOut = kill.kind === 'restart' ? restartTimedOut : killTimedOut;
    out.push(...memory.complete(timedOut(kill, memory.book.table)));
  }
  return out;
}

/** The earliest kill deadline, for the timer that expires kills. */
export function nextKillDeadline(memory: ShardMemory): number | undefined {
  let next: number | undefined;
  for (const kill of memory.kills.values())
    if (next === undefined || kill.deadline < next) next = kill.deadline;
  return next;
}
