import { loadSettings } from '@kpm/config';
import { kpmAcls } from '@kpm/kafka';
import { StateModule } from './state.module';

/**
 * The ACL table (`kpmAcls`) must let the state service read every topic it consumes, in its
 * group, or the secured stack (and a cluster set up from the table) starves it.
 */
it('kpmAcls grants the state service read on what it consumes, in its group', () => {
  const settings = loadSettings('state', {});
  const consumer = StateModule.consumer(settings);
  const acls = kpmAcls('state', 'kpm-state', settings.kafka.topicPrefix);
  const reads = acls.filter((a) => a.resource === 'topic' && a.operation === 'read');
  expect(reads.map((a) => a.name)).toEqual(expect.arrayContaining([...consumer.topics]));
  const groups = acls.filter((a) => a.resource === 'group' && a.prefixed);
  expect(groups.some((g) => consumer.groupId.startsWith(g.name))).toBe(true);
});
