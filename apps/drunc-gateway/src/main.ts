import { runGateway } from './run-gateway';
import { settingsOrExit } from '@kpm/service-kit';

async function main(): Promise<void> {
  const settings = settingsOrExit('drunc-gateway', { http: { port: 8483 } });
  await runGateway(settings);
}

void main();
