import type { EncodedRecord } from '@kpm/contracts';
import type { PlannedProcess } from '../boot/planned-process';
import type { BootContext, PodBuilder } from '../boot/pod-builder';
import type { BootFailure, BootOutcome } from '../boot/process-booter';
import type { ProcessFacts } from './process-facts';
import { runningInstance } from './process-instance';

/** `process.booted` or `process.boot-failed` for one process of a boot or restart. */
export function bootOutcomeFact(
  facts: ProcessFacts,
  builder: PodBuilder,
  process: PlannedProcess,
  context: BootContext,
  subject: string,
  outcome: BootOutcome,
): EncodedRecord {
  if (!outcome.ok) return bootFailedFact(facts, process, context, subject, outcome);
  const env = builder.env(process, context.user);
  const instance = runningInstance(process, outcome.pod, { ...context, env });
  return facts.processBooted(subject, context.commandId, instance);
}

export function bootFailedFact(
  facts: ProcessFacts,
  process: PlannedProcess,
  context: BootContext,
  subject: string,
  failure: BootFailure,
): EncodedRecord {
  return facts.processBootFailed(subject, {
    commandId: context.commandId,
    uuid: process.uuid,
    name: process.spec.name,
    session: context.session,
    error: { code: failure.code, message: failure.message },
  });
}
