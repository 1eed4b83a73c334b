import { withCause } from '@kpm/contracts';
import { loadSettings } from '@kpm/config';
import { KpmJsonLogger, LOG_LEVELS, serviceLogger } from './kpm-logger';

function captured(work: () => void): Array<Record<string, unknown>> {
  const lines: string[] = [];
  const write = jest
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk: string | Uint8Array) => lines.push(String(chunk)) > 0);
  try {
    work();
  } finally {
    write.mockRestore();
  }
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('KpmJsonLogger', () => {
  const cause = {
    commandId: 'c-1',
    session: 'run-7',
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  };

  it('writes one JSON object per line with the command id, session and trace as fields', () => {
    const logger = new KpmJsonLogger();
    const [line] = captured(() => withCause(cause, () => logger.log('booted ru-01', 'Booter')));
    expect(line).toMatchObject({
      level: 'log',
      message: 'booted ru-01',
      context: 'Booter',
      ...cause,
    });
  });

  it('has no command fields outside a command', () => {
    const [line] = captured(() => new KpmJsonLogger().warn('idle', 'Runner'));
    expect(line).toMatchObject({ level: 'warn', message: 'idle' });
    expect(line).not.toHaveProperty('commandId');
  });

  it.each([
    ['text', LOG_LEVELS],
    ['json', expect.any(KpmJsonLogger)],
  ] as const)('format %s → %p', (format, expected) => {
    expect(serviceLogger(format)).toEqual(expected);
  });
});

describe('KPM_LOG_FORMAT', () => {
  it.each([
    [{}, 'text'],
    [{ KPM_LOG_FORMAT: 'json' }, 'json'],
  ])('%j → %s', (env, format) => {
    expect(loadSettings('state', env).logFormat).toBe(format);
  });

  it('refuses another format, naming the setting', () => {
    expect(() => loadSettings('state', { KPM_LOG_FORMAT: 'xml' })).toThrow(
      'logFormat must be "text" or "json"',
    );
  });
});
