import { Kafka, logLevel, type LogEntry, type logCreator } from 'kafkajs';
import type { KafkaSettings } from './kafka-settings';

/** The logging seam: services pass a Nest Logger, tests may pass nothing. */
export interface KafkaLogSink {
  error(message: string): void;
  warn(message: string): void;
  log(message: string): void;
}

export function createKafkaClient(settings: KafkaSettings, sink?: KafkaLogSink): Kafka {
  return new Kafka({
    clientId: settings.clientId,
    brokers: settings.brokers,
    logLevel: logLevel.WARN,
    logCreator: sink ? bridgeLogs(sink) : undefined,
    // Brokers restart in tests and operations: keep retrying rather than failing the service.
    retry: { initialRetryTime: 200, retries: 10, maxRetryTime: 10_000 },
  });
}

function bridgeLogs(sink: KafkaLogSink): logCreator {
  return () =>
    ({ level, log, namespace }: LogEntry) => {
      const { message, ...extra } = log;
      const line = `[${namespace}] ${message} ${JSON.stringify(extra)}`;
      if (level <= logLevel.ERROR) sink.error(line);
      else if (level === logLevel.WARN) sink.warn(line);
      else sink.log(line);
    };
}
