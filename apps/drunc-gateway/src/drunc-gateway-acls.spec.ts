import { kpmAcls } from '@kpm/kafka';
import { loadSettings } from '@kpm/config';

/**
 * With Kafka security on, the gateway is a principal of its own with the least ACLs: it writes
 * commands (and its SERVER_READY broadcast), reads completions in no consumer group, and
 * nothing else.
 */
it('kpmAcls gives the drunc gateway commands to write and completions to read, no more', () => {
  const prefix = loadSettings('drunc-gateway', {}).kafka.topicPrefix;
  const acls = kpmAcls('drunc-gateway', 'kpm-drunc-gateway', prefix);
  const on = (operation: string) =>
    acls
      .filter((a) => a.resource === 'topic' && a.operation === operation && !a.prefixed)
      .map((a) => a.name)
      .sort();
  expect(on('write')).toEqual([`${prefix}.broadcast`, `${prefix}.commands`]);
  expect(on('read')).toEqual([`${prefix}.completions`]);
  expect(acls.filter((a) => a.resource === 'group')).toEqual([]);
  expect(acls.some((a) => a.resource === 'transactional-id')).toBe(false);
});
