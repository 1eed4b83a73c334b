import { runService, settingsOrExit } from '@kpm/service-kit';
import { BootWorkerModule } from './boot-worker.module';

async function main(): Promise<void> {
  const settings = settingsOrExit('boot-worker', { http: { port: 8481 } });
  await runService(
    BootWorkerModule.register(settings),
    settings,
    BootWorkerModule.consumer(settings),
  );
}

void main();
