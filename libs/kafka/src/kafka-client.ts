import { Kafka, logLevel, type LogEntry, type logCreator } from 'kafkajs';
import { logEvent, type LogEvent } from '@kpm/common';
import { kafkaJsSecurity, type OAuthBearerTokenProvider } from './kafka-security';
import type { KafkaSettings } from './kafka-settings';

/**
 * kpm's handle on a Kafka cluster. Code outside libs/kafka only creates it and hands it to this
 * library's adapters (producer, runners, readers, admin); it never calls the client itself, so
 * replacing the client library touches this folder only.
 */
export type KafkaClient = Kafka;

/** The logging seam: services pass a Nest Logger, tests may pass nothing. */
interface KafkaLogSink {
  error(entry: LogEvent): void;
  warn(entry: LogEvent): void;
  log(entry: LogEvent): void;
}

export interface KafkaClientOptions {
  /** Where the client's own logs go: a sink, the console (warnings and errors), or nowhere. */
  logs?: KafkaLogSink | 'console' | 'silent';
  /** Retries of a failing request before it fails (default 30). */
  retries?: number;
  /** Longest wait between two retries (default 2 s). */
  maxRetryTimeMs?: number;
  /** OAUTHBEARER: returns a current token on every authentication (else `sasl.tokenFile`). */
  oauthBearerProvider?: OAuthBearerTokenProvider;
}

/** A client of the brokers, with TLS and SASL when the settings ask (kafka-security.ts). */
export function createKafkaClient(
  settings: Pick<KafkaSettings, 'brokers' | 'clientId' | 'ssl' | 'sasl'>,
  options: KafkaClientOptions = {},
): KafkaClient {
  const { logs = 'console', retries = 30, maxRetryTimeMs = 2_000 } = options;
  return new Kafka({
    clientId: settings.clientId,
    brokers: [...settings.brokers],
    ...kafkaJsSecurity(settings, options.oauthBearerProvider),
    logLevel: logs === 'silent' ? logLevel.NOTHING : logLevel.WARN,
    logCreator: typeof logs === 'object' ? bridgeLogs(logs) : undefined,
    // Brokers restart in tests and operations: keep retrying rather than failing the service.
    // Retries at most 2 s apart (about a minute in all): when a broker dies its partitions get new
    // leaders once the controller fences it (~9 s), and the next attempt then finds them within
    // 2 s instead of up to 10 s later.
    retry: { initialRetryTime: 200, retries, maxRetryTime: maxRetryTimeMs },
  });
}

function bridgeLogs(sink: KafkaLogSink): logCreator {
  return () =>
    ({ level, log, namespace }: LogEntry) => {
      // The client's own words go in `detail`; its fields (broker, groupId, error …) as they are.
      const { message, timestamp: _timestamp, logger: _logger, ...extra } = log;
      const entry = logEvent('kafka.client', { namespace, detail: message, ...extra });
      if (level <= logLevel.ERROR) sink.error(entry);
      else if (level === logLevel.WARN) sink.warn(entry);
      else sink.log(entry);
    };
}
