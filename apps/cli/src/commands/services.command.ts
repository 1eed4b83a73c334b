import type { Command } from 'commander';
import { LocalServices } from '../local/local-services';
import { printJson, printTable } from '../output';

export function registerServicesCommands(program: Command): void {
  const services = program
    .command('services')
    .description('boot-worker, watcher and state as local processes');

  services
    .command('up')
    .description('start the services that are not running and wait until they are ready')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) =>
      print(await new LocalServices().up(), options.json),
    );

  services
    .command('down')
    .description('stop the services (SIGTERM, so in-flight work finishes)')
    .action(async () => {
      await new LocalServices().down();
      console.error('kpm services: down');
    });

  services
    .command('status')
    .description('pid, port and readiness of each service')
    .option('--json', 'print [{service, pid, port, ready}]')
    .action(async (options: { json?: boolean }) =>
      print(await new LocalServices().status(), options.json),
    );
}

function print(status: unknown[], json?: boolean): void {
  if (json) printJson(status);
  else printTable(status as Record<string, unknown>[], ['service', 'pid', 'port', 'ready']);
}
