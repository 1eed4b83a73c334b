import { runService, settingsOrExit } from '@kpm/service-kit';
import { WatcherModule } from './watcher.module';

async function main(): Promise<void> {
  const settings = settingsOrExit('watcher', { http: { port: 8482 } });
  await runService(WatcherModule.register(settings), settings);
}

void main();
