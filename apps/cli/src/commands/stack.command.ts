import type { Command } from 'commander';
import { printJson } from '../output';
import { addDownCommand, addStatusCommand } from './local-group';

/** Loaded when a stack command runs: the other commands start faster without the stack. */
function defaultStack() {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const module = require('../local/local-stack') as typeof import('../local/local-stack');
  return module.defaultStack();
}

export function registerStackCommands(program: Command): void {
  const stack = program
    .command('stack')
    .description(
      'the embedded local stack: Apache Kafka (KRaft), etcd, kube-apiserver and kwok on 127.0.0.1',
    );

  stack
    .command('up')
    .description('provision what is missing, start what is not running, write .kpm/stack.env')
    .option('--json', 'print the variables of .kpm/stack.env as JSON')
    .action(async (options: { json?: boolean }) => {
      const started = Date.now();
      const env = await defaultStack().up((message) => console.error(`kpm stack: ${message}`));
      if (options.json) printJson(env);
      else for (const [name, value] of Object.entries(env)) console.log(`${name}=${value}`);
      console.error(`kpm stack: up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    });

  addDownCommand(stack, 'stop every component (data is kept for the next up)', () =>
    defaultStack().down(),
  );
  addStatusCommand(
    stack,
    {
      description: 'which components run, their pids and endpoints',
      json: 'print JSON',
      columns: ['name', 'running', 'pid', 'endpoint', 'detail'],
    },
    () => defaultStack().status(),
  );
}
