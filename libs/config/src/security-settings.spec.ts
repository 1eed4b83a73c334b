import { loadSettings } from './load-settings';
import { yamlFile } from './yaml-file.spec-helper';

describe('security.operatorUsers', () => {
  it('has no operators by default', () => {
    expect(loadSettings('boot-worker', {}).security.operatorUsers).toEqual([]);
  });

  it.each<[string, Record<string, string>, string[]]>([
    ['KPM_OPERATOR_USERS', { KPM_OPERATOR_USERS: 'shifter, rc ,' }, ['shifter', 'rc']],
    [
      'the YAML file',
      { KPM_CONFIG: yamlFile('security:\n  operatorUsers: [shifter]\n') },
      ['shifter'],
    ],
  ])('reads the operators from %s', (_, env, operators) => {
    expect(loadSettings('state', env).security.operatorUsers).toEqual(operators);
  });

  it('names an operator that is not a user name, and takes the next good value', () => {
    expect(() => loadSettings('state', { KPM_OPERATOR_USERS: 'shifter,rc;rm' })).toThrow(
      /security\.operatorUsers: each operator must be a user name/,
    );
    expect(loadSettings('state', { KPM_OPERATOR_USERS: 'rc' }).security.operatorUsers).toEqual([
      'rc',
    ]);
  });
});
