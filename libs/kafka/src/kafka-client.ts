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
    // Retries at most 2 s apart (about a minute in all, as before with 10 up to 10 s apart): when
    // a broker dies its partitions get new leaders once the controller fences it (~9 s), and
    // the next attempt then finds them within 2 s instead of up to 10 s later.
    retry: { initialRetryTime: 200, retries: 30, maxRetryTime: 2_000 },
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
