import { InvalidArgumentError, type Command } from 'commander';
import { TOPIC_IDS, type TopicId } from '@kpm/contracts';
import { DEFAULT_EVENT_TOPICS } from '@kpm/client';
import { withClient } from '../cli-context';
import { addJsonFlag, count, type OutputFlags } from '../options';
import { coloursFor } from '../output';
import { formatEventLine } from '../render/event-line';

interface TailFlags extends OutputFlags {
  session?: string;
  topic?: TopicId[];
  fromBeginning?: boolean;
  count?: number;
}

export function registerTailCommand(program: Command): void {
  const command = program
    .command('tail')
    .description('follow kpm events as they happen (Ctrl-C to stop)')
    .option('--session <name>', "only this session's events")
    .option(
      '--topic <topic>',
      `a topic to follow: ${TOPIC_IDS.join(', ')} (repeatable; default ${DEFAULT_EVENT_TOPICS.join(', ')})`,
      topics,
    )
    .option('--from-beginning', 'replay what the topics retain first')
    .option('--count <n>', 'stop after this many events', count);
  addJsonFlag(command).addHelpText(
    'after',
    '\n--json prints one CloudEvent per line (NDJSON).\n\nExamples:\n  npx kpm tail --session run-42\n  npx kpm tail --topic commands --topic process-events --json',
  );
  command.action((flags: TailFlags) => tail(flags));
}

async function tail(flags: TailFlags): Promise<void> {
  const colours = coloursFor(process.stdout);
  await withClient(async (client) => {
    const stream = client.events({
      session: flags.session,
      topics: flags.topic,
      fromBeginning: flags.fromBeginning,
    });
    const stop = () => void stream.close();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      await stream.ready();
      if (!flags.json) console.error(colours.dim('following… (Ctrl-C to stop)'));
      let seen = 0;
      for await (const event of stream) {
        console.log(flags.json ? JSON.stringify(event) : formatEventLine(event, colours));
        if (flags.count !== undefined && ++seen >= flags.count) break;
      }
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  });
}

/** `--topic terminations --topic broadcast`: known topic ids, collected. */
function topics(value: string, previous: TopicId[] = []): TopicId[] {
  const id = TOPIC_IDS.find((t) => t === value);
  if (!id) throw new InvalidArgumentError(`must be one of ${TOPIC_IDS.join(', ')}.`);
  return [...previous, id];
}
