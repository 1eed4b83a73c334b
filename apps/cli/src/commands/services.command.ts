import type { Command } from 'commander';

import { printJson, printTable } from '../output';

type LocalServicesModule = typeof import('../local/local-services');

/** Loaded when a services command runs: the other commands start faster without the stack. */
function localServices() {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require('../local/local-services') as LocalServicesModule;
  return new module.LocalServices();
}

export function registerServicesCommands(program: Command): void {
  const services = program
    .command('services')
    .description('boot-worker, watcher and state as local processes');

  services
    .command('up')
    .description('start the services that are not running and wait until they are ready')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => print(await localServices().up(), options.json));

  services
    .command('down')
    .description('stop the services (SIGTERM, so in-flight work finishes)')
    .action(async () => {
      await localServices().down();
      console.error('kpm services: down');
    });

  services
    .command('status')
    .description('pid, port and readiness of each service')
    .option('--json', 'print [{service, pid, port, ready}]')
    .action(async (options: { json?: boolean }) =>
      print(await localServices().status(), options.json),
    );
}

function print(status: unknown[], json?: boolean): void {
  if (json) printJson(status);
  else printTable(status as Record<string, unknown>[], ['service', 'pid', 'port', 'ready']);
}
