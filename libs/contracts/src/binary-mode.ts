/**
 * CloudEvents' Kafka protocol binding, binary content mode (docs/design.md §3.1): the context
 * attributes travel as headers `ce_<attribute>`, the `content-type` header is `datacontenttype`,
 * and the record value is the data itself. kpm accepts it on input and writes structured mode.
 */
import { CLOUDEVENTS_CONTENT_TYPE, CONTENT_TYPE_HEADER } from './envelope';

/** Prefix of the binary-mode attribute headers. */
export const BINARY_ATTRIBUTE_PREFIX = 'ce_';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Binary mode when the record has a `ce_` header and its content type is not CloudEvents'
 * structured one (the binding: a content type starting `application/cloudevents` is structured).
 */
export function isBinaryMode(headers: Readonly<Record<string, string>> | undefined): boolean {
  if (!headers) return false;
  const contentType = headers[CONTENT_TYPE_HEADER] ?? '';
  if (contentType.startsWith(CLOUDEVENTS_CONTENT_TYPE.split('+')[0])) return false;
  return Object.keys(headers).some((name) => name.startsWith(BINARY_ATTRIBUTE_PREFIX));
}

/**
 * The event a binary-mode record carries, as structured mode would: attributes from the
 * headers, `datacontenttype` from `content-type`, `data` the value parsed as JSON. Data that is
 * not JSON stays out, with the reason, so the parser can name it at path `data`.
 */
export function binaryModeEvent(
  value: Buffer | null,
  headers: Readonly<Record<string, string>>,
): { raw: Record<string, unknown>; dataError?: string } {
  const raw: Record<string, unknown> = {};
  for (const [name, headerValue] of Object.entries(headers)) {
    if (name.startsWith(BINARY_ATTRIBUTE_PREFIX)) {
      raw[name.slice(BINARY_ATTRIBUTE_PREFIX.length)] = headerValue;
    }
  }
  const contentType = headers[CONTENT_TYPE_HEADER];
  if (contentType !== undefined) raw.datacontenttype = contentType.split(';')[0].trim();
  if (value === null) return { raw, dataError: 'is required: the record has no value' };
  try {
    raw.data = JSON.parse(utf8.decode(value)) as unknown;
    return { raw };
  } catch (e) {
    return { raw, dataError: `is not UTF-8 JSON: ${(e as Error).message}` };
  }
}
