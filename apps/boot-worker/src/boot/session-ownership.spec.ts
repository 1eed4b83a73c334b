import { KpmLabels } from '@kpm/kube';
import {
  namespaceView,
  processOwnershipErrors,
  sessionOwnershipErrors,
  type NamespaceView,
} from './session-ownership';

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
    expect(sessionOwnershipErrors('run-7', { user: 'alice', operators: [] }, namespace)).toEqual(
      message ? [{ path: 'session', message }] : [],
    );
  });

  it.each<[string, NamespaceView, string | undefined]>([
    ["another user's session", { kpm: true, owner: 'bob' }, undefined],
    [
      "a namespace that is not kpm's",
      { kpm: false },
      'namespace "run-7" exists and was not created by kpm',
    ],
  ])('an operator may act on %s', (_, namespace, message) => {
    const operator = { user: 'shifter', operators: ['shifter', 'rc'] };
    expect(sessionOwnershipErrors('run-7', operator, namespace)).toEqual(
      message ? [{ path: 'session', message }] : [],
    );
  });
});

describe('processOwnershipErrors', () => {
  const ru = { session: 'run-7', user: 'alice' };
  const tp = { session: 'run-8', user: 'bob' };
  const hsi = { session: 'run-9', user: 'carol' };
  it.each<[string, string, Array<{ session: string; user?: string }>, string[]]>([
    ['nothing selected', 'alice', [], []],
    ["the user's own processes", 'alice', [ru, ru], []],
    ['processes without an owner label', 'alice', [{ session: 'run-5' }], []],
    [
      "another user's process, once per session",
      'alice',
      [ru, tp, tp],
      ['session "run-8" belongs to user "bob", not "alice"'],
    ],
    [
      'several foreign sessions, in order',
      'alice',
      [hsi, ru, tp],
      [
        'session "run-8" belongs to user "bob", not "alice"',
        'session "run-9" belongs to user "carol", not "alice"',
      ],
    ],
    ['an operator, whoever owns them', 'shifter', [ru, tp, hsi], []],
  ])('%s', (_, user, processes, messages) => {
    expect(processOwnershipErrors({ user, operators: ['shifter'] }, processes)).toEqual(
      messages.map((message) => ({ path: 'query', message })),
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
