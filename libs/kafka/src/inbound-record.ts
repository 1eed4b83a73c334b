import type { IHeaders, KafkaMessage } from 'kafkajs';

/** A consumed record with its coordinates, independent of the client library's types. */
export interface InboundRecord {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer | null;
  headers: Record<string, string>;
  timestamp: string;
}

export function toInboundRecord(
  topic: string,
  partition: number,
  message: KafkaMessage,
): InboundRecord {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key ? message.key.toString('utf8') : null,
    value: message.value,
    headers: decodeHeaders(message.headers),
    timestamp: message.timestamp,
  };
}

function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined)
      out[name] = Buffer.isBuffer(first) ? first.toString('utf8') : String(first);
  }
  return out;
}
