import type { Command } from 'commander';
import { createKafkaClient, kpmTopicSpecs, TopicAdmin } from '@kpm/kafka';
import { cliSettings } from '../cli-context';
import { printJson, printTable } from '../output';

export function registerTopicsCommands(program: Command): void {
  const topics = program.command('topics').description("kpm's Kafka topics");
  topics
    .command('create')
    .description('create the topics idempotently with their partitions, replication and configs')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const settings = cliSettings();
      const kafka = createKafkaClient({ ...settings.kafka, clientId: 'kpm-cli' });
      // Drifted topics fail the command with every difference named (TopicDriftError).
      const checks = await new TopicAdmin(kafka).ensure(kpmTopicSpecs(settings.kafka));
      if (options.json) printJson(checks);
      else printTable(checks as unknown as Record<string, unknown>[], ['name', 'created']);
    });
}
