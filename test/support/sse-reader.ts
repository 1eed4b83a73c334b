/** One Server-Sent Event as it came over the wire. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/**
 * Reads a Server-Sent Events stream with `fetch` (headers a browser's EventSource cannot set,
 * like a chosen `Last-Event-ID`) until `done` says it saw enough.
 */
export async function readSse(
  url: string,
  headers: Record<string, string>,
  done: (events: SseEvent[]) => boolean,
  timeoutMs = 30_000,
): Promise<SseEvent[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const events: SseEvent[] = [];
  try {
    const response = await fetch(url, { headers, signal: abort.signal });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = parseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (frame) events.push(frame);
      }
      if (done(events)) return events;
    }
    return events;
  } catch (error) {
    throw new Error(
      `the stream ended before the expected events (${events.map((e) => e.event).join(', ')}): ${String(error)}`,
    );
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

function parseFrame(frame: string): SseEvent | undefined {
  const fields = new Map<string, string>();
  for (const line of frame.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
  }
  const data = fields.get('data');
  if (data === undefined) return undefined;
  return { id: fields.get('id'), event: fields.get('event') ?? 'message', data };
}
