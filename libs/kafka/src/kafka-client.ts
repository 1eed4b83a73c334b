import { Kafka, logLevel, type LogEntry, type logCreator } from 'kafkajs';
import type { KafkaSettings } from './kafka-settings';

/**
 * kpm's handle on a Kafka cluster. Code outside libs/kafka only creates it and hands it to this
 * library's adapters (producer, runners, readers, admin); it never calls the client itself, so
 * replacing the client library touches this folder only.
 */
export type KafkaClient = Kafka;

/** The logging seam: services pass a Nest Logger, tests may pass nothing. */
export interface KafkaLogSink {
  error(message: string): void;
  warn(message: string): void;
  log(message: string): void;
}

export interface KafkaClientOptions {
  /** Where the client's own logs go: a sink, the console (warnings and errors), or nowhere. */
  logs?: KafkaLogSink | 'console' | 'silent';
  /** Retries of a failing request before it fails (default 10). */
  retries?: number;
  /** Longest wait between two retries (default 10 s). */
  maxRetryTimeMs?: number;
}

export function createKafkaClient(
  settings: Pick<KafkaSettings, 'brokers' | 'clientId'>,
  options: KafkaClientOptions = {},
): KafkaClient {
  const { logs = 'console', retries = 10, maxRetryTimeMs = 10_000 } = options;
  return new Kafka({
    clientId: settings.clientId,
    brokers: [...settings.brokers],
    logLevel: logs === 'silent' ? logLevel.NOTHING : logLevel.WARN,
    logCreator: typeof logs === 'object' ? bridgeLogs(logs) : undefined,
    // Brokers restart in tests and operations: keep retrying rather than failing the service.
    retry: { initialRetryTime: 200, retries, maxRetryTime: maxRetryTimeMs },
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
