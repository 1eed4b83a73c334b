import { KpmLabels } from '@kpm/kube';
import { namespaceView, sessionOwnershipErrors, type NamespaceView } from './session-ownership';

const labels = new KpmLabels('drunc.daq');

describe('sessionOwnershipErrors', () => {
  it.each<[string, NamespaceView | undefined, string | undefined]>([
    ['no namespace yet', undefined, undefined],
    ["kpm's, owned by the user", { kpm: true, owner: 'alice' }, undefined],
    ["kpm's, no owner label", { kpm: true }, undefined],
    [
      "kpm's, owned by another user",
      { kpm: true, owner: 'bob' },
      'session "run-7" belongs to user "bob", not "alice"',
    ],
    ["not kpm's", { kpm: false }, 'namespace "run-7" exists and was not created by kpm'],
    [
      "not kpm's, whatever its user label",
      { kpm: false, owner: 'alice' },
      'namespace "run-7" exists and was not created by kpm',
    ],
  ])('%s', (_, namespace, message) => {
    expect(sessionOwnershipErrors('run-7', 'alice', namespace)).toEqual(
      message ? [{ path: 'session', message }] : [],
    );
  });
});

describe('namespaceView', () => {
  it.each<[string, Record<string, string> | undefined, NamespaceView]>([
    [
      "kpm's with a user",
      { 'creator.drunc.daq': 'kpm', 'user.drunc.daq': 'alice' },
      { kpm: true, owner: 'alice' },
    ],
    ["kpm's without a user", { 'creator.drunc.daq': 'kpm' }, { kpm: true, owner: undefined }],
    ['someone else’s', { 'creator.drunc.daq': 'helm' }, { kpm: false, owner: undefined }],
    ['unlabelled', undefined, { kpm: false, owner: undefined }],
  ])('%s', (_, values, view) => {
    expect(namespaceView({ metadata: { name: 'run-7', labels: values } }, labels)).toEqual(view);
  });
});
