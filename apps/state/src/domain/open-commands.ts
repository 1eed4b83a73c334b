/** How open commands read in the query API: what each still waits for. */
import { CommandType } from '@kpm/contracts';
import type { BootAggregate } from './boot-aggregate';
import type { KillAggregate } from './kill-aggregate';

/** A command that has started and not completed: what `GET /v1/commands/:id` shows. */
export interface OpenCommand {
  commandId: string;
  commandType: string;
  session: string;
  acceptedAt: string;
  pending: string[];
  deadline?: string;
}

export function describeOpen(
  boots: Iterable<BootAggregate>,
  kills: Iterable<KillAggregate>,
): OpenCommand[] {
  const opened = [...boots].map((b) => ({
    commandId: b.commandId,
    commandType: CommandType.boot,
    session: b.session,
    acceptedAt: new Date(b.acceptedAt).toISOString(),
    pending: b.pending,
  }));
  const killing = [...kills].map((k) => ({
    commandId: k.commandId,
    commandType: k.commandType,
    session: k.session,
    acceptedAt: new Date(k.acceptedAt).toISOString(),
    pending: k.pending,
    deadline: new Date(k.deadline).toISOString(),
  }));
  return [...opened, ...killing];
}
