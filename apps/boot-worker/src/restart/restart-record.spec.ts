import { KpmLabels } from '@kpm/kube';
import { isTrustedRecord, restartLabel, restartRecord, targetOf } from './restart-record';

const labels = new KpmLabels('drunc.daq');
const target = {
  uuid: '0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c',
  session: 'run-7',
  user: 'alice',
  spec: {
    uuid: '0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c',
    name: 'ru-01',
    executableAndArguments: [{ exec: 'daq_application', args: ['--name', 'ru-01'] }],
  },
};

describe('restart record', () => {
  it('round-trips the target through a creator-labelled ConfigMap', () => {
    const record = restartRecord(labels, 'cmd restart/1', target);
    expect(record.metadata!.labels).toMatchObject({
      'creator.drunc.daq': 'kpm',
      'uuid.drunc.daq': target.uuid,
      ...restartLabel(labels, 'cmd restart/1'),
    });
    expect(record.metadata!.namespace).toBe('run-7');
    expect(targetOf(record, labels)).toEqual(target);
  });

  it('names the command by a label-safe digest of its id', () => {
    const [value] = Object.values(restartLabel(labels, 'a command id with spaces and / slashes'));
    expect(value).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('ignores an unreadable record', () => {
    const record = restartRecord(labels, 'c', target);
    record.data!.spec = '{not json';
    expect(targetOf(record, labels)).toBeUndefined();
  });

  it.each([
    [
      'in its own kpm namespace, owned by its user',
      'run-7',
      { 'creator.drunc.daq': 'kpm', 'user.drunc.daq': 'alice' },
      true,
    ],
    ['in a namespace kpm did not create', 'run-7', { 'user.drunc.daq': 'alice' }, false],
    [
      'in a kpm namespace of another user',
      'run-7',
      { 'creator.drunc.daq': 'kpm', 'user.drunc.daq': 'mallory' },
      false,
    ],
    ['in a kpm namespace without owner', 'run-7', { 'creator.drunc.daq': 'kpm' }, false],
    [
      'read from another namespace than its own',
      'run-8',
      { 'creator.drunc.daq': 'kpm', 'user.drunc.daq': 'alice' },
      false,
    ],
  ])('trusts a record %s: %s', (_, name, nsLabels, trusted) => {
    const record = restartRecord(labels, 'c', target);
    const namespace = { metadata: { name, labels: nsLabels } };
    expect(isTrustedRecord(record, namespace, labels)).toBe(trusted);
  });

  it('trusts no record without its namespace', () => {
    expect(isTrustedRecord(restartRecord(labels, 'c', target), undefined, labels)).toBe(false);
  });
});
