/**
 * Which ends of processes nobody asked for: drunc's `expected_dead_applications` (kill,
 * terminate and restart mark theirs), decided at the termination instead of by a 10 s poll.
 */
import type { ProcessTerminated } from '@kpm/contracts';
import type { DeathEffect } from './effects';

/**
 * An end is expected when a kill, terminate or restart of this shard aimed at its pod (`asked`),
 * or when its pod was being deleted as it ended (`deletionRequestedAt`: the boot-worker deletes
 * the pods it kills, so a termination that arrives before its `kill.accepted` still counts; a
 * pod someone else deleted counts too). Every other end is a death: one effect, once per pod,
 * since the termination is applied once.
 */
export function deathOf(termination: ProcessTerminated, asked: boolean): DeathEffect[] {
  if (asked || termination.deletionRequestedAt !== undefined) return [];
  return [{ kind: 'death', termination }];
}
