/**
 * The state service's `GET /v1/commands/:id` (docs/design.md §7.4): where a retried call finds
 * the completion of the command it already sent. A boot re-sent with the same id never completes
 * twice (§6.6), so the gateway must read the first completion rather than wait for a second.
 */
import { readFileSync } from 'node:fs';
import type { CommandCompleted } from '@kpm/contracts';
import type { CommandLookup } from './calls/retry-rule';

export interface CommandLookupPort {
  command(commandId: string): Promise<CommandLookup>;
}

export class StateApi implements CommandLookupPort {
  private readonly headers: Record<string, string>;

  constructor(
    private readonly baseUrl: string,
    tokenFile?: string,
    private readonly timeoutMs = 5_000,
  ) {
    const token = tokenFile ? readFileSync(tokenFile, 'utf8').trim() : undefined;
    this.headers = token ? { authorization: `Bearer ${token}` } : {};
  }

  async command(commandId: string): Promise<CommandLookup> {
    const url = `${this.baseUrl.replace(/\/$/, '')}/v1/commands/${encodeURIComponent(commandId)}`;
    const response = await fetch(url, {
      headers: this.headers,
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (response.status === 404) return { state: 'unknown' };
    if (!response.ok) {
      throw new Error(`the state service answered ${response.status} for ${url}`);
    }
    const body = (await response.json()) as {
      state: string;
      completion?: CommandCompleted;
      pending?: unknown[];
    };
    if (body.state === 'completed' && body.completion) {
      return { state: 'completed', completion: body.completion };
    }
    const pending = Array.isArray(body.pending) ? body.pending.length : undefined;
    return {
      state: 'open',
      progress:
        pending === undefined ? 'open in kpm' : `open in kpm, ${pending} process(es) pending`,
    };
  }
}
