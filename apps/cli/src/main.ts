import { Command, CommanderError } from 'commander';
import { registerServicesCommands } from './commands/services.command';
import { registerStackCommands } from './commands/stack.command';
import { registerTopicsCommands } from './commands/topics.command';
import { CliError, ExitCode } from './exit-codes';

/** `kpm`: the operator's command line over the local stack, the services and the client library. */
export function buildProgram(): Command {
  const program = new Command('kpm')
    .description('Kubernetes process manager for DAQ, driven over Kafka')
    .showHelpAfterError()
    .exitOverride();
  registerStackCommands(program);
  registerServicesCommands(program);
  registerTopicsCommands(program);
  return program;
}

export async function runCli(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return ExitCode.done;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.done : ExitCode.usage;
    }
    if (error instanceof CliError) {
      console.error(`kpm: ${error.message}`);
      return error.exitCode;
    }
    console.error(`kpm: ${error instanceof Error ? error.message : String(error)}`);
    return ExitCode.failed;
  }
}

if (require.main === module) {
  void runCli(process.argv.slice(2)).then((code) => process.exit(code));
}
