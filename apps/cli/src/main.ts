import { errorText } from '@kpm/common';
import { inSpan, SpanKind, startTracing } from '@kpm/tracing';
import { Command, CommanderError } from 'commander';
import { registerBootCommand } from './commands/boot.command';
import { registerDemoCommand } from './commands/demo.command';
import { registerFlushCommand } from './commands/flush.command';
import { registerImageCommands } from './commands/image.command';
import { registerKillCommand } from './commands/kill.command';
import { registerLogsCommand } from './commands/logs.command';
import { registerPsCommand } from './commands/ps.command';
import { registerRestartCommand } from './commands/restart.command';
import { registerServicesCommands } from './commands/services.command';
import { registerStackCommands } from './commands/stack.command';
import { registerTailCommand } from './commands/tail.command';
import { registerTerminateCommand } from './commands/terminate.command';
import { registerTopicsCommands } from './commands/topics.command';
import { CliError, ExitCode } from './exit-codes';
import { exitWhenDrained, tolerateClosedReaders } from './exit-when-drained';
import { refuseRetiredUserFlag } from './options';

/** `kpm`: the operator's command line over the local stack, the services and the client library. */
export function buildProgram(): Command {
  const program = new Command('kpm')
    .description('Kubernetes process manager for DAQ, driven over Kafka')
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .option('--brokers <list>', 'Kafka bootstrap servers, comma-separated (KPM_KAFKA_BROKERS)')
    .hook('preAction', (command, action) => {
      refuseRetiredUserFlag(action);
      // Wins over KPM_KAFKA_BROKERS and .kpm/stack.env, as a flag should.
      const brokers = command.opts<{ brokers?: string }>().brokers;
      if (brokers) process.env.KPM_KAFKA_BROKERS = brokers;
    })
    .addHelpText(
      'after',
      `
Exit codes: 0 done, 1 failed or rejected, 2 usage, 3 timed out.
Settings come from .kpm/stack.env and KPM_* variables (KPM_KAFKA_BROKERS, KPM_TOPIC_PREFIX, …).

Start here: npm run demo`,
    );
  registerStackCommands(program);
  registerServicesCommands(program);
  registerImageCommands(program);
  registerTopicsCommands(program);
  registerBootCommand(program);
  registerKillCommand(program);
  registerTerminateCommand(program);
  registerRestartCommand(program);
  registerPsCommand(program);
  registerLogsCommand(program);
  registerFlushCommand(program);
  registerTailCommand(program);
  registerDemoCommand(program);
  return program;
}

export async function runCli(argv: string[]): Promise<number> {
  try {
    // One span per command when tracing is on: the commands it sends carry its traceparent.
    const command = argv.find((arg) => !arg.startsWith('-')) ?? 'help';
    await inSpan(`kpm ${command}`, { kind: SpanKind.CLIENT }, () =>
      buildProgram().parseAsync(argv, { from: 'user' }),
    );
    return ExitCode.done;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.done : ExitCode.usage;
    }
    if (error instanceof CliError) {
      console.error(`kpm: ${error.message}`);
      return error.exitCode;
    }
    console.error(`kpm: ${errorText(error)}`);
    return ExitCode.failed;
  }
}

/** The process entry: runs the CLI and exits with its code once its output has drained. */
export async function main(argv: string[] = process.argv.slice(2)): Promise<never> {
  tolerateClosedReaders();
  const tracing = startTracing('cli');
  const code = await runCli(argv);
  await tracing.shutdown();
  return exitWhenDrained(code);
}

if (require.main === module) void main();
