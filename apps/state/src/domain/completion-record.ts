/**
 * The completion record, sized to fit its topic: whatever the input the contract allows (a
 * boot of 5000 processes with large specs, a kill or flush of a whole session, a ps of 20,000
 * processes), the record stays under `max.message.bytes`, so producing it can never fail the
 * transaction and wedge the partition (docs/design.md §5.3).
 *
 * Processes are listed while they fit in what the rest of the record leaves; a ps page ends
 * there with a `nextCursor`, any other completion says how many it left out
 * (`processesOmitted`). At least one process is always listed, so paging always advances: one
 * process is bounded far below the limit by its pod's annotation (256 KiB in Kubernetes).
 */
import {
  MAX_RECORD_BYTES,
  type AutomaticAction,
  type CommandCompleted,
  type CommandStatus,
  type ProcessInstance,
  type ProcessLogs,
} from '@kpm/contracts';

/** What a command's completion says, before it is sized into its record. */
export interface CompletionInput {
  commandId: string;
  commandType: string;
  session: string;
  status: CommandStatus;
  processes: ProcessInstance[];
  pending?: string[];
  errors?: { path?: string; message: string }[];
  logs?: ProcessLogs[];
  acceptedAt?: number;
  completedAt: number;
  /** A ps page: more processes follow `processes` (docs/design.md §6.6). */
  paging?: { more: boolean };
  /** A command the state service sent under an exit policy: why (exit-actions.ts). */
  automatic?: AutomaticAction;
}

/** What a command's rule decides (its completion but the time it completes). */
export type CompletionReport = Omit<CompletionInput, 'completedAt'>;

/** Room kept for the CloudEvent envelope and the record's headers. */
const ENVELOPE_RESERVE_BYTES = 64 * 1024;

/** What the record may weigh: the topic's limit less the envelope's reserve. */
const COMPLETION_BUDGET_BYTES = MAX_RECORD_BYTES - ENVELOPE_RESERVE_BYTES;

/**
 * `completion` with `processes` set to as many of `processes` as fit in `budgetBytes`;
 * `more` says a ps page has more after `processes` already.
 */
export function sizedCompletion(
  completion: Omit<CommandCompleted, 'processes'>,
  processes: readonly ProcessInstance[],
  paging: { more: boolean } | undefined,
  budgetBytes: number = COMPLETION_BUDGET_BYTES,
): CommandCompleted {
  const room = budgetBytes - bytesOf({ ...completion, processes: [], nextCursor: '' }) - 64;
  const listed = fitting(processes, room);
  const left = processes.length - listed.length;
  const sized: CommandCompleted = { ...completion, processes: listed };
  if (paging && (paging.more || left > 0) && listed.length > 0) {
    sized.nextCursor = cursorOf(listed[listed.length - 1]);
  } else if (!paging && left > 0) {
    sized.processesOmitted = left;
  }
  return sized;
}

/** The longest prefix of `processes` whose JSON fits in `room` bytes (at least one). */
function fitting(processes: readonly ProcessInstance[], room: number): ProcessInstance[] {
  let used = 0;
  let count = 0;
  for (const process of processes) {
    used += bytesOf(process) + 1; // the comma
    if (used > room && count > 0) break;
    count++;
  }
  return processes.slice(0, count);
}

function bytesOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** `<session>/<name>/<uuid>`, the sort key of a ps page's last process: where the next page starts. */
export function cursorOf(process: ProcessInstance): string {
  const { session, name } = process.description.metadata;
  return `${session}/${name}/${process.uuid}`;
}

/** What every completion names of its command, read off anything that carries it (an aggregate). */
export type ReportHead = Pick<
  CompletionReport,
  'commandId' | 'commandType' | 'session' | 'acceptedAt'
>;

export function reportHead({
  commandId,
  commandType,
  session,
  acceptedAt,
}: ReportHead): ReportHead {
  return { commandId, commandType, session, acceptedAt };
}
