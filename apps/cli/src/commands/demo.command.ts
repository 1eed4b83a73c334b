import type { Command } from 'commander';
import { addJsonFlag, type OutputFlags } from '../options';

interface DemoFlags extends OutputFlags {
  file: string;
  session?: string;
}

export function registerDemoCommand(program: Command): void {
  const command = program
    .command('demo')
    .description(
      'bring up the stack and services, boot a session, let one app fail, terminate the rest in shutdown order',
    )
    .option('-f, --file <session.yaml>', 'the session to play', 'examples/demo-session.yaml')
    .option('--session <name>', 'the session name (default: demo-<random>, so runs never collide)');
  addJsonFlag(command).addHelpText(
    'after',
    '\nThe stack and services keep running afterwards; stop them with:\n  npx kpm services down && npx kpm stack down',
  );
  command.action((flags: DemoFlags) => {
    // Loaded when the demo runs: the other commands start faster without the stack.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const demo = require('../demo/demo') as typeof import('../demo/demo');
    return demo.runDemo(flags);
  });
}
