import { Kafka, logLevel, type Producer } from 'kafkajs';
import {
  completionEventId,
  CompletionType,
  topicName,
  type CommandCompleted,
  type KpmEvent,
} from '@kpm/contracts';
import { ServiceProcess } from './service-process';
import { record } from './state-facts';
import { stackEnv } from './stack-env';
import { TopicProbe, type ProbedRecord } from './topic-probe';

/** A state service under test as a child process, with its environment on the local stack. */
export function stateProcess(
  prefix: string,
  instance: string,
  extra: Record<string, string> = {},
): ServiceProcess {
  return new ServiceProcess('state', {
    KPM_KAFKA_BROKERS: stackEnv().brokers.join(','),
    KPM_TOPIC_PREFIX: prefix,
    KPM_INSTANCE: instance,
    ...extra,
  });
}

/** Writes facts and commands as the boot-worker, the watcher and clients do, and reads the answers. */
export class StateBench {
  private producer?: Producer;
  probe!: TopicProbe;

  constructor(
    private readonly prefix: string,
    private readonly read: Array<
      'completions' | 'broadcast' | 'processes' | 'state-snapshots' | 'commands'
    >,
  ) {}

  async start(): Promise<this> {
    this.probe = await new TopicProbe(
      stackEnv().brokers,
      this.read.map((id) => topicName(id, this.prefix)),
    ).start();
    this.producer = new Kafka({ brokers: stackEnv().brokers, logLevel: logLevel.NOTHING }).producer(
      {
        idempotent: true,
      },
    );
    await this.producer.connect();
    return this;
  }

  async stop(): Promise<void> {
    await this.producer?.disconnect();
    await this.probe?.stop();
  }

  /** Sends in chunks, each acknowledged by all in-sync replicas, in order. */
  async send(
    topic: 'process-events' | 'terminations' | 'commands',
    ...events: KpmEvent[]
  ): Promise<void> {
    for (let i = 0; i < events.length; i += 200) {
      await this.producer!.send({
        topic: topicName(topic, this.prefix),
        acks: -1,
        messages: events.slice(i, i + 200).map(record),
      });
    }
  }

  async completion(commandId: string, timeoutMs?: number): Promise<CommandCompleted> {
    const found = await this.probe.waitFor(isCompletion(commandId), timeoutMs);
    return found.event!.data as unknown as CommandCompleted;
  }

  /** How many completions of `commandId` are on the topic (exactly one is the contract). */
  completions(commandId: string): number {
    return this.probe.records.filter(isCompletion(commandId)).length;
  }
}

export const isCompletion = (commandId: string) => (r: ProbedRecord) =>
  r.event?.type === CompletionType.commandCompleted && r.event.id === completionEventId(commandId);
