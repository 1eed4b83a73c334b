/**
 * A watch request as client-node's Watch makes it, over kpm's HTTP client: `watch(path, query,
 * onEvent, done)` streams the events (one JSON object a line) to `onEvent(type, object)` and
 * calls `done` once — null when the server ended the stream, else the error (a status other than
 * 200 carries `statusCode`); the returned controller aborts it (done is then called with null).
 */
import { STATUS_CODES } from 'node:http';
import { createInterface } from 'node:readline';
import type { KubeHttp, Query } from './kube-http';

export type WatchCallback = (type: string, object: unknown) => void;

export class KubeWatch {
  constructor(private readonly http: KubeHttp) {}

  async watch(
    path: string,
    query: Query,
    onEvent: WatchCallback,
    done: (error: unknown) => void,
  ): Promise<AbortController> {
    const controller = new AbortController();
    let ended = false;
    const end = (error: unknown) => {
      if (ended) return;
      ended = true;
      // Aborted by its controller: whatever the request failed with, the watch simply ended.
      const stopped = controller.signal.aborted;
      controller.abort();
      done(stopped ? null : error);
    };
    try {
      const response = await this.http.stream(path, { ...query, watch: true }, controller.signal);
      if (response.statusCode !== 200) {
        response.resume();
        const status = response.statusCode ?? 0;
        const error = new Error(STATUS_CODES[status] ?? `HTTP ${status}`) as Error & {
          statusCode: number;
        };
        error.statusCode = status;
        end(error);
        return controller;
      }
      response.on('error', end);
      response.once('close', () => end(null));
      const lines = createInterface({ input: response, crlfDelay: Infinity });
      // readline repeats the response's errors, which end the watch above.
      lines.on('error', () => undefined);
      lines.on('line', (line) => {
        if (ended) return;
        let event: { type?: string; object?: unknown };
        try {
          event = JSON.parse(line) as typeof event;
        } catch {
          return; // not an event (a keep-alive blank, a torn line): skipped, as client-node does
        }
        if (typeof event.type === 'string') onEvent(event.type, event.object);
      });
    } catch (error) {
      end(error);
    }
    return controller;
  }
}
