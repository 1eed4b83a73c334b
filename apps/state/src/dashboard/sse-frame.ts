/** Server-Sent Events framing: one event per call, data on one line (JSON has no newlines). */
export function sseFrame(event: string, data: unknown, id?: string): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Tells the browser how soon to reconnect after the stream drops. */
export function sseRetry(retryMs: number): string {
  return `retry: ${retryMs}\n\n`;
}
