import type { Command } from 'commander';
import { addDownCommand, addStatusCommand, printRows } from './local-group';

type LocalServicesModule = typeof import('../local/local-services');

const COLUMNS = ['service', 'pid', 'port', 'ready'];

/** Loaded when a services command runs: the other commands start faster without the stack. */
function localServices() {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require('../local/local-services') as LocalServicesModule;
  return new module.LocalServices();
}

export function registerServicesCommands(program: Command): void {
  const services = program
    .command('services')
    .description('boot-worker, watcher, state and the drunc gateway as local processes');

  services
    .command('up')
    .description('start the services that are not running and wait until they are ready')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) =>
      printRows(await localServices().up(), COLUMNS, options.json),
    );

  addDownCommand(services, 'stop the services (SIGTERM, so in-flight work finishes)', () =>
    localServices().down(),
  );
  addStatusCommand(
    services,
    {
      description: 'pid, port and readiness of each service',
      json: 'print [{service, pid, port, ready}]',
      columns: COLUMNS,
    },
    () => localServices().status(),
  );
}
