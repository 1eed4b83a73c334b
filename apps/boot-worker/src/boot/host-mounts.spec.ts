import type { ProcessSpec } from '@kpm/contracts';
import { dataMountPath, logFileDirectory, logFileRedirection, specMounts } from './host-mounts';

const spec = (extra: Partial<ProcessSpec>): ProcessSpec => ({
  name: 'ru-01',
  executableAndArguments: [{ exec: 'daq_application', args: [] }],
  ...extra,
});

describe('specMounts: the host directories of a spec, as drunc mounts them', () => {
  it.each<[string, Partial<ProcessSpec>, Array<[string, string, string]>]>([
    ['nothing', {}, []],
    [
      'kpm’s log directory, as is',
      { logsPath: '/log/daq' },
      [['logsPath', '/log/daq', 'DirectoryOrCreate']],
    ],
    [
      'drunc’s log file: its directory, never a directory named after the file',
      { logFile: '/log/daq/log_alice_run-7_ru-01.txt' },
      [['logFile', '/log/daq', 'DirectoryOrCreate']],
    ],
    [
      'a data directory',
      { restriction: { dataMount: '/data/run-7' } },
      [['restriction.dataMount', '/data/run-7', 'Directory']],
    ],
    [
      'drunc’s "." data mount: the execution directory',
      { executionDirectory: '/data/work', restriction: { dataMount: '.' } },
      [['restriction.dataMount', '/data/work', 'Directory']],
    ],
    [
      'drunc’s "./" too',
      { executionDirectory: '/data/work', restriction: { dataMount: './' } },
      [['restriction.dataMount', '/data/work', 'Directory']],
    ],
    [
      'the data directory equal to the log file’s directory: mounted once (drunc skips it)',
      {
        logFile: '/data/work/log.txt',
        executionDirectory: '/data/work',
        restriction: { dataMount: '.' },
      },
      [['logFile', '/data/work', 'DirectoryOrCreate']],
    ],
    [
      'a log directory and a log file side by side',
      { logsPath: '/log/kpm', logFile: '/log/daq/x.txt' },
      [
        ['logsPath', '/log/kpm', 'DirectoryOrCreate'],
        ['logFile', '/log/daq', 'DirectoryOrCreate'],
      ],
    ],
  ])('%s', (_, extra, expected) => {
    expect(specMounts(spec(extra)).map((m) => [m.field, m.path, m.type])).toEqual(expected);
  });

  it('leaves a "." data mount unresolved without an execution directory', () => {
    expect(dataMountPath({ restriction: { dataMount: '.' } })).toBeUndefined();
    expect(specMounts(spec({ restriction: { dataMount: '.' } }))).toEqual([]);
  });

  it('takes the log file’s directory after normalising the path', () => {
    expect(logFileDirectory('/log//daq/./x.txt')).toBe('/log/daq');
  });
});

describe('logFileRedirection: drunc’s tee of stdout and stderr into the log file', () => {
  it('appends both streams to the file and passes them on', () => {
    expect(logFileRedirection('/log/daq/log_alice_run-7_ru-01.txt')).toBe(
      'exec > >(tee -a "/log/daq/log_alice_run-7_ru-01.txt") 2>&1; ',
    );
  });

  it('keeps a path with spaces or shell characters one word', () => {
    expect(logFileRedirection('/log/a b/$(x).txt')).toBe(
      'exec > >(tee -a "/log/a b/\\$(x).txt") 2>&1; ',
    );
  });

  it('is nothing without a log file', () => {
    expect(logFileRedirection(undefined)).toBe('');
  });
});
