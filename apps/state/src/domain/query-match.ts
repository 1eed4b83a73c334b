/**
 * The contract's ProcessQuery matcher over the process table's rows. An empty query matches
 * every row: ps and flush read it as "all".
 */
import { processQueryMatcher, type ProcessInstance, type ProcessQuery } from '@kpm/contracts';

type InstanceMatcher = (instance: ProcessInstance) => boolean;

export function instanceMatcher(query: ProcessQuery): InstanceMatcher {
  const matches = processQueryMatcher(query);
  return (instance) => matches({ uuid: instance.uuid, ...instance.description.metadata });
}
