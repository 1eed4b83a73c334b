/** One line per kpm event, for `kpm tail` and the demo: when, which session, what happened. */
import {
  BroadcastEventType,
  CommandType,
  CompletionType,
  DeadLetterType,
  ProcessEventType,
  ProcessTableType,
  TerminationType,
  type KpmEvent,
} from '@kpm/contracts';
import { commandName, describeFieldErrors, sessionOfEvent } from '@kpm/client';
import type { Colours } from '../output';
import { completionHeadline } from './completion-view';
import { exitText } from './process-table';

export function formatEventLine(event: KpmEvent, colours: Colours): string {
  const time = event.time ? event.time.slice(11, 23) : '--:--:--.---';
  const session = sessionOfEvent(event) ?? event.subject ?? '-';
  return `${colours.dim(time)} ${colours.cyan(session)} ${describeEvent(event, colours)}`;
}

/** What the event says, in the operator's words. */
export function describeEvent(event: KpmEvent, colours: Colours): string {
  switch (event.type) {
    case CommandType.boot:
      return `boot ${event.id} asked by ${event.source}: ${event.data.processes.length} process(es)`;
    case CommandType.kill:
    case CommandType.terminate:
    case CommandType.restart:
    case CommandType.flush:
    case CommandType.ps:
    case CommandType.logs:
      return `${commandName(event.type)} ${event.id} asked by ${event.source}`;
    case ProcessEventType.bootAccepted:
      return `boot ${event.data.commandId} accepted: ${event.data.processes.length} process(es)`;
    case ProcessEventType.processBooted: {
      const p = event.data.process;
      const node = p.nodeName ? ` on ${p.nodeName}` : '';
      return `${colours.green('booted')} ${p.description.metadata.name} (${p.role})${node}`;
    }
    case ProcessEventType.processBootFailed:
      return `${colours.red('boot failed')} ${event.data.name}: ${event.data.error.code}: ${event.data.error.message}`;
    case ProcessEventType.killAccepted:
      return `${event.data.kind} ${event.data.commandId} accepted: ${event.data.stages.map((s) => s.length).join(' → ')} process(es) in ${event.data.stages.length} stage(s), grace ${event.data.gracePeriodSeconds} s`;
    case ProcessEventType.logsFetched:
      return `logs of ${event.data.uuid}: ${event.data.lines.length} line(s)`;
    case ProcessEventType.commandRejected:
      return `${colours.red('rejected')} ${commandName(event.data.commandType)} ${event.data.commandId}: ${describeFieldErrors(event.data.errors)}`;
    case TerminationType.processTerminated: {
      const t = event.data;
      const signal = t.signal === undefined ? '' : `, signal ${t.signal}`;
      return `${t.name} terminated: exit ${exitText(t.exitCode, colours)} (${t.reason}${signal})`;
    }
    case CompletionType.commandCompleted:
      return completionHeadline(event.data, colours);
    case BroadcastEventType.broadcast:
      return `${colours.magenta(event.data.broadcastType)} ${event.data.emitter.service}: ${event.data.text}`;
    case ProcessTableType.processInstance:
      return `${event.data.description.metadata.name} is ${event.data.statusCode}${event.data.returnCode === undefined ? '' : ` (exit ${event.data.returnCode})`}`;
    case DeadLetterType.deadLetter: {
      const { topic, partition, offset } = event.data.source;
      return `${colours.red('dead letter')} from ${topic}[${partition}]@${offset}: ${event.data.reason}`;
    }
  }
}
