import { Module, type INestApplication } from '@nestjs/common';
import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { KafkaLifecycle } from './kafka-lifecycle';
import { Readiness } from './readiness';
import { runService, settingsOrExit, type ServiceConsumer } from './run-service';
import { settingsFor } from './__fixtures__/service-kit-fakes';

class FakeTransport extends Server implements CustomTransportStrategy {
  listened = false;

  listen(callback: () => void): void {
    this.listened = true;
    callback();
  }

  close(): void {}

  on(): never {
    throw new Error('no events');
  }

  unwrap<T>(): T {
    throw new Error('nothing to unwrap');
  }
}

@Module({})
class TestServiceModule {}

async function start(consumer?: ServiceConsumer) {
  const announced: string[] = [];
  const app = await runService(
    {
      module: TestServiceModule,
      providers: [
        Readiness,
        {
          provide: KafkaLifecycle,
          useValue: { announceReady: (url: string) => announced.push(url) },
        },
      ],
    },
    settingsFor('watcher'),
    consumer,
  );
  return { app, announced, readiness: app.get(Readiness) };
}

describe('runService', () => {
  let app: INestApplication | undefined;
  afterEach(() => app?.close());

  it('starts the service transport, expects its consumer part, and announces the URL', async () => {
    const transport = new FakeTransport();
    const given: Readiness[] = [];
    const started = await start({
      groupId: 'kpmtest-watcher',
      topics: ['kpmtest.commands'],
      transport: (_app, readiness) => {
        given.push(readiness);
        return transport;
      },
    });
    app = started.app;
    expect(transport.listened).toBe(true);
    expect(given).toEqual([started.readiness]);
    expect(started.readiness.report()).toEqual({
      'kafka-consumer': { ready: false, detail: 'starting' },
    });
    expect(started.announced).toEqual([await app.getUrl()]);
    expect(started.announced[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('without a consumer, serves HTTP only and expects no consumer part', async () => {
    const started = await start();
    app = started.app;
    expect(started.readiness.report()).toEqual({});
    expect(started.announced).toHaveLength(1);
  });
});

describe('settingsOrExit', () => {
  const saved = process.env.KPM_HTTP_PORT;
  afterEach(() => {
    if (saved === undefined) delete process.env.KPM_HTTP_PORT;
    else process.env.KPM_HTTP_PORT = saved;
    jest.restoreAllMocks();
  });

  it('stops with EX_CONFIG (78) and names the bad setting', () => {
    process.env.KPM_HTTP_PORT = 'not-a-port';
    const exit = jest.spyOn(process, 'exit').mockImplementation(() => {
      throw new Error('exited');
    });
    const said = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => settingsOrExit('watcher')).toThrow('exited');
    expect(exit).toHaveBeenCalledWith(78);
    expect(said.mock.calls[0][0]).toMatch(/^kpm watcher: [\s\S]*http\.port/);
  });

  it('returns the settings, defaults filled in, when they are valid', () => {
    delete process.env.KPM_HTTP_PORT;
    expect(settingsOrExit('state', { http: { port: 8480 } }).http.port).toBe(8480);
  });
});
