import { Writable } from 'node:stream';
import { withCause } from '@kpm/contracts';
import { loadSettings } from '@kpm/config';
import { logEvent } from '@kpm/common';
import { causeFields, serviceLogger, textLine, textStream, type LogSettings } from './kpm-logger';

/** A logger of these settings writing into a list of parsed JSON lines. */
function jsonLogger(settings: Partial<LogSettings> = {}) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = serviceLogger({ logFormat: 'json', ...settings }, sink);
  return { logger, lines };
}

const cause = {
  commandId: 'c-1',
  session: 'run-7',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
};

describe('the service logger (pino under Nest)', () => {
  it('writes one JSON object per line: level, message, context, service, and the command it serves', () => {
    const { logger, lines } = jsonLogger({ service: 'boot-worker', instance: 'bw-1' });
    withCause(cause, () => logger.log('booted ru-01', 'Booter'));
    expect(lines).toEqual([
      {
        level: 'info',
        time: expect.any(String),
        message: 'booted ru-01',
        context: 'Booter',
        service: 'boot-worker',
        instance: 'bw-1',
        ...cause,
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
      },
    ]);
  });

  it('writes an event as its name and its fields, with the trace and span ids of its cause', () => {
    const { logger, lines } = jsonLogger({ service: 'state' });
    withCause(cause, () =>
      logger.warn(logEvent('shard.restore_failed', { partition: 3, error: 'boom' }), 'Restore'),
    );
    expect(lines).toEqual([
      {
        level: 'warn',
        time: expect.any(String),
        message: 'shard.restore_failed',
        event: 'shard.restore_failed',
        partition: 3,
        error: 'boom',
        context: 'Restore',
        service: 'state',
        ...cause,
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
      },
    ]);
  });

  it('names the span open as the line is written when tracing records one', () => {
    const active = '00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01';
    expect(causeFields(cause, active)).toEqual({
      ...cause,
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: 'b7ad6b7169203331',
    });
    expect(causeFields(cause, undefined).spanId).toBe('00f067aa0ba902b7');
    expect(causeFields({}, active)).toMatchObject({ spanId: 'b7ad6b7169203331' });
  });

  it('writes no trace ids from a traceparent that is not W3C', () => {
    const { logger, lines } = jsonLogger();
    withCause({ traceparent: 'nonsense' }, () => logger.log(logEvent('x.y')));
    expect(lines[0]).toMatchObject({ event: 'x.y', traceparent: 'nonsense' });
    expect(lines[0]).not.toHaveProperty('traceId');
  });

  it('has no command fields outside a command', () => {
    const { logger, lines } = jsonLogger();
    logger.warn('idle', 'Runner');
    expect(lines[0]).toMatchObject({ level: 'warn', message: 'idle', context: 'Runner' });
    expect(lines[0]).not.toHaveProperty('commandId');
  });

  it("keeps an error's stack, as Nest passes it", () => {
    const { logger, lines } = jsonLogger();
    logger.error('restore failed', 'Error: boom\n    at restore (x.ts:1:1)', 'StateCoordinator');
    expect(lines[0]).toMatchObject({
      level: 'error',
      message: 'restore failed',
      stack: expect.stringContaining('at restore'),
      context: 'StateCoordinator',
    });
  });

  it.each<[LogSettings['logLevel'], string[]]>([
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['trace', ['trace', 'debug', 'info', 'warn', 'error']],
  ])('logLevel %s writes %j', (logLevel, levels) => {
    const { logger, lines } = jsonLogger({ logLevel });
    logger.verbose('v');
    logger.debug('d');
    logger.log('i');
    logger.warn('w');
    logger.error('e');
    expect(lines.map((l) => l.level)).toEqual(levels);
  });
});

describe('the text format', () => {
  it('writes one line: the context, the event, then its fields and trace ids as key=value', () => {
    let text = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    const logger = serviceLogger({ logFormat: 'text', service: 'state' }, textStream(sink));
    withCause(cause, () =>
      logger.log(logEvent('shard.restored', { partition: 3, durationMs: 45 }), 'ShardRestore'),
    );
    expect(text.split('\n').filter(Boolean)).toHaveLength(1);
    expect(text).toMatch(
      /INFO.*\[ShardRestore\] shard\.restored partition=3 durationMs=45 commandId=c-1 session=run-7 traceId=4bf92f3577b34da6a3ce929d0e0e4736 spanId=00f067aa0ba902b7\n$/,
    );
  });

  it('quotes a value with a space, writes an object as JSON, an error as its message', () => {
    expect(
      textLine({
        message: 'command.rejected',
        event: 'command.rejected',
        why: 'no such session',
        spec: { a: 1 },
        err: { message: 'boom now', stack: 'x' },
      }),
    ).toBe('command.rejected why="no such session" spec={"a":1} err="boom now"');
  });
});

describe('KPM_LOG_FORMAT and KPM_LOG_LEVEL', () => {
  it.each([
    [{}, 'text', 'info'],
    [{ KPM_LOG_FORMAT: 'json', KPM_LOG_LEVEL: 'debug' }, 'json', 'debug'],
  ])('%j → %s, %s', (env, format, level) => {
    const settings = loadSettings('state', env);
    expect([settings.logFormat, settings.logLevel]).toEqual([format, level]);
  });

  it.each([
    [{ KPM_LOG_FORMAT: 'xml' }, 'logFormat must be "text" or "json"'],
    [{ KPM_LOG_LEVEL: 'loud' }, 'logLevel must be one of fatal, error, warn, info, debug, trace'],
  ])('refuses %j, naming the setting', (env, message) => {
    expect(() => loadSettings('state', env)).toThrow(message);
  });
});
