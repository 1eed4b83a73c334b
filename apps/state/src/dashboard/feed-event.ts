/**
 * What the dashboard's log keeps of a completion or a termination: what the page shows of it
 * (static/store.js `describe`) and no more. The log holds up to 75,000 entries; a completion
 * of a 10,000-process boot lists 10,000 full instances, which the page never reads from the
 * stream (it asks `/v1/commands/:id` for a command's details).
 */
import type { CloudEvent, CommandCompleted, ProcessTerminated } from '@kpm/contracts';
import type { ViewEventKind } from '../view/state-view';

export function feedEvent(kind: ViewEventKind, event: CloudEvent<unknown>): CloudEvent<unknown> {
  if (kind === 'completion') return { ...event, data: completionSummary(event.data) };
  if (kind === 'termination') return { ...event, data: terminationSummary(event.data) };
  return event;
}

function completionSummary(data: unknown): unknown {
  const completion = data as CommandCompleted;
  if (!Array.isArray(completion?.processes)) return data;
  const { logs: _logs, ...rest } = completion;
  return {
    ...rest,
    processes: completion.processes.map(({ uuid, statusCode }) => ({ uuid, statusCode })),
  };
}

function terminationSummary(data: unknown): unknown {
  const { uuid, session, name, exitCode, reason } = (data ?? {}) as Partial<ProcessTerminated>;
  return { uuid, session, name, exitCode, reason };
}
