import { loadSettings } from '@kpm/config';
import { feedTopicNames } from '@kpm/contracts';
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

/** DUNE's feeds go out in the state service's transactions; an operator may follow them. */
it('kpmAcls grants the state service write on the feed topics, and the operator read', () => {
  const settings = loadSettings('state', {});
  const feeds = Object.values(feedTopicNames(settings.feeds));
  expect(feeds).toEqual(['control.kpm.process_manager', 'monitoring.opmon_stream', 'ers_stream']);
  const grants = (role: 'state' | 'operator' | 'watcher') =>
    kpmAcls(role, 'p', 'kpm', feeds)
      .filter((a) => feeds.includes(a.name))
      .map((a) => `${a.operation} ${a.name}`);
  expect(grants('state')).toEqual(feeds.flatMap((t) => [`write ${t}`, `describe ${t}`]));
  expect(grants('operator')).toEqual(feeds.flatMap((t) => [`read ${t}`, `describe ${t}`]));
  expect(grants('watcher')).toEqual([]);
});
