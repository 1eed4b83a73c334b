import { runService, settingsOrExit } from '@kpm/service-kit';
import { StateModule } from './state.module';

async function main(): Promise<void> {
  const settings = settingsOrExit('state', { http: { port: 8480 } });
  await runService(StateModule.register(settings), settings, StateModule.consumer(settings));
}

void main();
