/** The session-file parser: what it builds, and that each problem names its line and field. */
import {
  formatProblem,
  parseSessionFile,
  readSessionFile,
  type SessionFileProblem,
} from './session-file';

/** Lines joined; line numbers in the tests count from the first entry. */
const yaml = (...lines: string[]) => lines.join('\n') + '\n';

const valid = yaml(
  'session: run-42', //                                 1
  'user: daq', //                                       2
  'defaults:', //                                       3
  '  image: ghcr.io/dune-daq/runtime:v5', //            4
  '  env: {DUNEDAQ_PARTITION: run-42, PORT: 8080}', //  5
  '  restriction: {allowedHosts: [kpm-node-1]}', //     6
  'processes:', //                                      7
  '  - name: root-controller', //                       8
  '    treeId: 0', //                                   9
  '    executableAndArguments:', //                     10
  '      - exec: drunc-controller', //                  11
  '        args: [--port, 3333]', //                    12
  '  - name: ru-01', //                                 13
  '    treeId: 1.10.1', //                              14
  '    env: {PORT: "9090"}', //                         15
  '    executableAndArguments: [{exec: daq_application}]', // 16
  '    annotations:', //                                17
  '      sim.kpm.daq/exit-code: 3', //                  18
  '      sim.kpm.daq/run-ms: 2000', //                  19
);

const formatLine = (p: SessionFileProblem) => formatProblem('f.yaml', p);

function problems(text: string, overrides = {}): SessionFileProblem[] {
  const result = parseSessionFile(text, overrides);
  if (result.ok) throw new Error('expected problems, the file parsed');
  return result.problems;
}

/** `valid` with line `n` (1-based) replaced by `replacement` (or removed when undefined). */
function edit(n: number, replacement?: string): string {
  const lines = valid.trimEnd().split('\n');
  if (replacement === undefined) lines.splice(n - 1, 1);
  else lines[n - 1] = replacement;
  return lines.join('\n') + '\n';
}

describe('session file', () => {
  it('builds the boot command, defaults merged and every value as written', () => {
    const result = parseSessionFile(valid);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const [root, ru] = result.boot.processes;
    expect(result.boot.session).toBe('run-42');
    expect(result.boot.user).toBe('daq');
    expect(root).toMatchObject({
      name: 'root-controller',
      treeId: '0',
      image: 'ghcr.io/dune-daq/runtime:v5',
      env: { DUNEDAQ_PARTITION: 'run-42', PORT: '8080' },
      restriction: { allowedHosts: ['kpm-node-1'] },
      executableAndArguments: [{ exec: 'drunc-controller', args: ['--port', '3333'] }],
    });
    // A process's own map entries win over the defaults; the rest is inherited.
    expect(ru.env).toEqual({ DUNEDAQ_PARTITION: 'run-42', PORT: '9090' });
    expect(ru.treeId).toBe('1.10.1');
    expect(ru.annotations).toEqual({ 'sim.kpm.daq/exit-code': '3', 'sim.kpm.daq/run-ms': '2000' });
    // Frozen: the client's check before it publishes the boot passes it without a second look.
    expect(Object.isFrozen(result.boot) && Object.isFrozen(ru.env)).toBe(true);
  });

  it('asks for an all-or-nothing boot in the file or on the command line', () => {
    const inFile = parseSessionFile(edit(2, 'user: daq\nallOrNothing: true'));
    const onLine = parseSessionFile(valid, { allOrNothing: true });
    const neither = parseSessionFile(valid);
    if (!inFile.ok || !onLine.ok || !neither.ok) throw new Error('expected the files to parse');
    expect([inFile.boot.allOrNothing, onLine.boot.allOrNothing]).toEqual([true, true]);
    expect(neither.boot.allOrNothing).toBeUndefined();
  });

  it('refuses an allOrNothing that is not true or false, naming its line', () => {
    expect(problems(edit(2, 'user: daq\nallOrNothing: sometimes')).map(formatLine)).toEqual([
      'f.yaml:3:15: allOrNothing: must be true or false',
    ]);
  });

  it('takes an exit policy for the session and per process, its numbers as numbers', () => {
    const policy = [
      'exitPolicy:',
      '  rules:',
      '    - {action: Restart, exitCodes: {operator: In, values: [3]}}',
      '  maxRestarts: 2',
      '  backoffSeconds: 5',
    ].join('\n');
    const result = parseSessionFile(
      edit(2, `user: daq\n${policy}`).replace(
        '    treeId: 0\n',
        '    treeId: 0\n    exitPolicy: {rules: [{action: FailSession}]}\n',
      ),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.boot.exitPolicy).toEqual({
      rules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [3] } }],
      maxRestarts: 2,
      backoffSeconds: 5,
    });
    expect(result.boot.processes[0].exitPolicy).toEqual({ rules: [{ action: 'FailSession' }] });
  });

  it('reads the example session with an exit policy', () => {
    const result = readSessionFile('examples/exit-policy-session.yaml', { defaultUser: 'daq' });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.boot.exitPolicy?.rules.map((r) => r.action)).toEqual([
      'Ignore',
      'FailSession',
      'Restart',
    ]);
    expect(result.boot.processes[1].exitPolicy).toEqual({
      rules: [{ action: 'Restart', reasons: ['OOMKilled'] }],
      maxRestarts: 2,
    });
  });

  it('refuses an exit policy rule that can never match, naming its line and why', () => {
    const policy = [
      'exitPolicy:', //                              3
      '  rules:', //                                 4
      '    - {action: Count}', //                     5
      '    - {action: Restart, roles: [application]}', // 6
      '  maxRestarts: -1', //                         7
    ].join('\n');
    expect(problems(edit(2, `user: daq\n${policy}`)).map(formatLine)).toEqual([
      'f.yaml:7:16: exitPolicy.maxRestarts: must not be negative',
      'f.yaml:6:7: exitPolicy.rules[1]: can never match: rules[0] before it matches every end',
    ]);
  });

  it('gives every process the uid and gid of the defaults; a process may set its own', () => {
    const result = parseSessionFile(
      edit(6, '  restriction: {allowedHosts: [kpm-node-1]}\n  uid: 1000\n  gid: 1000').replace(
        '    treeId: 0\n',
        '    treeId: 0\n    uid: 2000\n',
      ),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const [root, ru] = result.boot.processes;
    expect([root.uid, root.gid]).toEqual([2000, 1000]);
    expect([ru.uid, ru.gid]).toEqual([1000, 1000]);
  });

  it('takes Secrets by reference from the defaults, a process list replacing them', () => {
    const text = valid.replace(
      '  restriction: {allowedHosts: [kpm-node-1]}\n',
      '  restriction: {allowedHosts: [kpm-node-1]}\n  envFrom: [{secretRef: {name: daq-credentials}}]\n' +
        '  secretEnv: [{name: DB_PASSWORD, secretKeyRef: {name: daq-db, key: password}}]\n',
    );
    const result = parseSessionFile(
      text.replace(
        '    env: {PORT: "9090"}\n',
        '    env: {PORT: "9090"}\n    envFrom: [{secretRef: {name: ru-credentials}}]\n',
      ),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const [root, ru] = result.boot.processes;
    expect(root.envFrom).toEqual([{ secretRef: { name: 'daq-credentials' } }]);
    expect(ru.envFrom).toEqual([{ secretRef: { name: 'ru-credentials' } }]);
    expect(ru.secretEnv).toEqual([
      { name: 'DB_PASSWORD', secretKeyRef: { name: 'daq-db', key: 'password' } },
    ]);
  });

  it('keeps a tree id like 1.10 as written, not as the number 1.1', () => {
    const result = parseSessionFile(edit(14, '    treeId: 1.10'));
    expect(result.ok && result.boot.processes[1].treeId).toBe('1.10');
  });

  it('lets the command line set the session and user', () => {
    const result = parseSessionFile(edit(2), { session: 'other', defaultUser: 'alice' });
    expect(result.ok && [result.boot.session, result.boot.user]).toEqual(['other', 'alice']);
  });

  it('points at the line of a bad process name', () => {
    expect(problems(edit(13, '  - name: "RU 01"'))).toEqual([
      {
        line: 13,
        column: 11,
        path: 'processes[1].name',
        message: expect.stringContaining('without whitespace'),
      },
    ]);
  });

  it('points at a misspelt field', () => {
    expect(problems(edit(15, '    evn: {PORT: "9090"}'))).toEqual([
      { line: 15, column: 5, path: 'processes[1].evn', message: 'is not a known field' },
    ]);
  });

  it('points at the env entry whose key is invalid', () => {
    const [problem] = problems(edit(5, '  env:\n    GOOD: x\n    1BAD: y'));
    expect(problem).toMatchObject({ line: 7, column: 5, path: 'processes[0].env' });
    expect(problem.message).toContain('key "1BAD" is not a valid environment variable name');
  });

  it('blames the defaults line for a value a process inherited', () => {
    const found = problems(edit(4, '  image: "bad image"'));
    expect(found.map((p) => [p.line, p.path])).toEqual([
      [4, 'processes[0].image'],
      [4, 'processes[1].image'],
    ]);
  });

  it('points at the process for a missing required field', () => {
    const [problem] = problems(edit(16));
    expect(problem).toMatchObject({ line: 13, path: 'processes[1].executableAndArguments' });
  });

  it('points at the second of two processes with one name', () => {
    const [problem] = problems(edit(13, '  - name: root-controller'));
    expect(problem).toMatchObject({
      line: 13,
      path: 'processes[1].name',
      message: 'duplicate name "root-controller" (also processes[0])',
    });
  });

  it('names unknown top-level and defaults fields', () => {
    const found = problems(yaml('session: a', 'sesion: b', 'defaults: {name: x}', 'processes: []'));
    expect(found).toEqual([
      { line: 2, column: 1, path: 'sesion', message: expect.stringContaining('not a known field') },
      {
        line: 3,
        column: 12,
        path: 'defaults.name',
        message: expect.stringContaining('image, executableAndArguments, env'),
      },
    ]);
  });

  it('reports YAML syntax errors with their position', () => {
    const [problem] = problems(yaml('session: a', 'processes: [', '  - name: x'));
    expect(problem.path).toBe('(yaml)');
    expect(problem.line).toBeGreaterThanOrEqual(2);
  });

  it('reports a duplicate key', () => {
    const [problem] = problems(yaml('session: a', 'session: b'));
    expect(problem).toMatchObject({ line: 2, path: '(yaml)', message: 'Map keys must be unique' });
  });

  it('requires a session from the file or the command line', () => {
    expect(problems(edit(1))).toEqual([
      { line: 1, column: 1, path: 'session', message: expect.stringContaining('--session') },
    ]);
  });

  it('says when a bad value came from the command line', () => {
    const [problem] = problems(valid, { session: 'Bad_Session' });
    expect(problem).toEqual({
      path: 'session',
      message: expect.stringMatching(/DNS-1123.*\(given on the command line\)$/),
    });
  });

  it('refuses a file that is not a mapping', () => {
    expect(problems('- a\n- b\n')[0]).toMatchObject({ line: 1, path: '(file)' });
  });

  it('formats a problem as file:line:column: field: message', () => {
    const problem = { line: 3, column: 7, path: 'processes[0].name', message: 'bad' };
    expect(formatProblem('s.yaml', problem)).toBe('s.yaml:3:7: processes[0].name: bad');
    expect(formatProblem('s.yaml', { path: '(file)', message: 'ENOENT' })).toBe(
      's.yaml: (file): ENOENT',
    );
  });
});
