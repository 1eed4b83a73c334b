/**
 * A boot from its acceptance to its completion: the boot-worker's acceptance opens it, each
 * process's booted or boot-failed fact settles one process. A fact may come before its
 * acceptance (it is held) and may serve a restart's reboot instead (the kill hears of it).
 */
import { CommandType, type BootAccepted, type ProcessInstance } from '@kpm/contracts';
import { BootAggregate } from './boot-aggregate';
import { startBroadcast } from './broadcasts';
import type { Effect } from './effects';
import { exitActions } from './exit-actions';
import { policyMayDecide } from './exit-decision';
import { rebootOf } from './kill-aggregate';
import type { BootFact, ShardMemory } from './shard-memory';

export function acceptBoot(
  memory: ShardMemory,
  accepted: BootAccepted,
  session: string,
  time: number,
): Effect[] {
  const { commandId, processes } = accepted;
  if (memory.completed.has(commandId) || memory.boots.has(commandId)) return [];
  const boot = new BootAggregate(commandId, session, time, processes);
  memory.boots.set(commandId, boot);
  for (const fact of memory.takeEarly(commandId)) offerBootFact(boot, fact);
  const detail = `${processes.length} processes`;
  return [
    ...memory.publish(() => [startBroadcast(commandId, CommandType.boot, session, detail)]),
    ...memory.settleBoot(boot),
  ];
}

/** A pod of a boot or a restart is running: the table first, then the command it serves. */
export function processBooted(
  memory: ShardMemory,
  commandId: string,
  instance: ProcessInstance,
): Effect[] {
  const { fresh, changed } = memory.book.booted(instance, memory.live);
  if (!fresh) return []; // a duplicate fact
  const ended = changed && endedFirst(memory, changed);
  // Its pod's end came first (the two facts travel on different topics), nobody asked for it,
  // and it was not decided then for want of this row: the exit policy decides now.
  const { row, effects } = ended
    ? exitActions(memory, ended, changed, true)
    : { row: changed, effects: [] };
  const out: Effect[] = row ? [{ kind: 'process', instance: row }] : [];
  return [...out, ...effects, ...bootFact(memory, commandId, instance)];
}

/** The end of `row`'s pod, when it made the row DEAD before its boot fact, undecided and unasked. */
function endedFirst(memory: ShardMemory, row: ProcessInstance) {
  if (row.statusCode !== 'DEAD' || !row.exitPolicy) return undefined;
  if (row.automatic?.last?.podUid === row.podUid) return undefined; // decided already
  const ended = memory.book.endOf(row.podUid);
  const aimed = [...memory.kills.values()].some((kill) => kill.aimsAt(row.podUid));
  return ended && policyMayDecide(ended, aimed) ? ended : undefined;
}

/** One process's boot outcome, for the boot or restart `commandId`, or held until it opens. */
export function bootFact(memory: ShardMemory, commandId: string, fact: BootFact): Effect[] {
  if (memory.completed.has(commandId)) return [];
  const boot = memory.boots.get(commandId);
  if (boot) {
    offerBootFact(boot, fact);
    return memory.settleBoot(boot);
  }
  const kill = memory.kills.get(commandId);
  if (kill) {
    kill.rebooted(rebootOf(fact));
    return memory.settleKill(kill);
  }
  memory.holdEarly(commandId, fact);
  return [];
}

function offerBootFact(boot: BootAggregate, fact: BootFact): void {
  if ('podUid' in fact) boot.offerBooted(fact);
  else boot.offerFailed(fact);
}
