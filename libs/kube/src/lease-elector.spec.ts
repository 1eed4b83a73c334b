import { eventually } from '@kpm/common';
import { KubeApiError } from './http/kube-http';
import type { CoordinationApi, Lease } from './http/kube-core-api';
import { LeaseElector, type LeaseElectorOptions } from './lease-elector';

/** One Lease with optimistic concurrency, as the API server keeps it. */
class LeaseStore {
  lease?: Lease;
  private version = 0;
  writes = 0;

  /** A client of the store; `partitioned` makes its calls fail like an unreachable server. */
  client(): CoordinationApi & { partitioned: boolean } {
    const call = <T>(action: () => T): Promise<T> => this.call(api, action);
    const api = {
      partitioned: false,
      readNamespacedLease: () =>
        call(() => {
          if (!this.lease) throw new KubeApiError(404, '{"reason":"NotFound"}');
          return clone(this.lease);
        }),
      createNamespacedLease: ({ body }: { body: Lease }) =>
        call(() => {
          if (this.lease) throw new KubeApiError(409, '{"reason":"AlreadyExists"}');
          return this.write(body);
        }),
      replaceNamespacedLease: ({ body }: { body: Lease }) =>
        call(() => {
          if (body.metadata?.resourceVersion !== this.lease?.metadata?.resourceVersion) {
            throw new KubeApiError(409, '{"reason":"Conflict"}');
          }
          return this.write(body);
        }),
    };
    return api;
  }

  private call<T>(api: { partitioned: boolean }, action: () => T): Promise<T> {
    if (api.partitioned)
      return Promise.reject(new KubeApiError(503, '{"reason":"ServiceUnavailable"}'));
    // An action that throws becomes a rejected call, as from the real client.
    return new Promise<T>((resolve) => resolve(action()));
  }

  private write(body: Lease): Lease {
    this.writes++;
    this.lease = clone({
      ...body,
      metadata: { ...body.metadata, resourceVersion: String(++this.version) },
    });
    return clone(this.lease);
  }
}

const clone = <T>(value: T): T => structuredClone(value);

const options = (
  identity: string,
  overrides: Partial<LeaseElectorOptions> = {},
): LeaseElectorOptions => ({
  namespace: 'default',
  name: 'kpm-watcher.test',
  identity,
  leaseDurationSeconds: 0.6,
  renewDeadlineSeconds: 0.3,
  retryPeriodSeconds: 0.05,
  labels: { 'creator.drunc.daq': 'kpm' },
  ...overrides,
});

/** Records who leads when, to check that terms never overlap. */
class Terms {
  readonly spans: Array<{ who: string; from: number; to?: number }> = [];

  lead(who: string) {
    return async (term: AbortSignal) => {
      const span: { who: string; from: number; to?: number } = { who, from: performance.now() };
      this.spans.push(span);
      await new Promise<void>((resolve) =>
        term.addEventListener('abort', () => resolve(), { once: true }),
      );
      span.to = performance.now();
    };
  }

  async until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
    await eventually(predicate, { what: 'the terms wanted', timeoutMs, everyMs: 5 }).catch(
      (error: Error) => {
        throw new Error(`${error.message}; terms: ${JSON.stringify(this.spans)}`);
      },
    );
  }

  overlapping(): boolean {
    return this.spans.some((a, i) =>
      this.spans.some(
        (b, j) =>
          i !== j && a.who !== b.who && a.from < (b.to ?? Infinity) && b.from < (a.to ?? Infinity),
      ),
    );
  }
}

describe('LeaseElector', () => {
  it('creates the Lease, leads, and releases it on shutdown', async () => {
    const store = new LeaseStore();
    const terms = new Terms();
    const stop = new AbortController();
    const elector = new LeaseElector(store.client(), options('a'));
    const running = elector.run(terms.lead('a'), stop.signal);
    await terms.until(() => terms.spans.length === 1);
    expect(elector.isLeader).toBe(true);
    expect(store.lease?.spec).toMatchObject({ holderIdentity: 'a', leaseTransitions: 0 });
    expect(store.lease?.metadata?.labels).toEqual({ 'creator.drunc.daq': 'kpm' });
    stop.abort();
    await running;
    expect(terms.spans[0].to).toBeDefined();
    expect(store.lease?.spec?.holderIdentity).toBe('');
  });

  it('keeps one leader among two candidates and hands over when the leader is cut off', async () => {
    const store = new LeaseStore();
    const terms = new Terms();
    const stop = new AbortController();
    const apiA = store.client();
    const apiB = store.client();
    const changes: string[] = [];
    const a = new LeaseElector(apiA, options('a'));
    const b = new LeaseElector(apiB, options('b'));
    const runA = a.run(terms.lead('a'), stop.signal);
    await terms.until(() => terms.spans.length === 1);
    const runB = b.run(terms.lead('b'), stop.signal, {
      leaderChanged: (holder) => changes.push(holder ?? '-'),
    });
    // b sees a renewing and stays a candidate.
    const writes = store.writes;
    await terms.until(() => store.writes >= writes + 5);
    expect(terms.spans.map((s) => s.who)).toEqual(['a']);

    apiA.partitioned = true;
    await terms.until(() => terms.spans.some((s) => s.who === 'b'));
    expect(terms.spans[0].to).toBeDefined();
    expect(terms.overlapping()).toBe(false);
    expect(store.lease?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    expect(changes).toEqual(['a', 'b']);

    // a comes back and finds b holding the Lease: it campaigns but does not lead.
    apiA.partitioned = false;
    const seen = store.writes;
    await terms.until(() => store.writes >= seen + 5);
    expect(terms.spans.filter((s) => s.who === 'a')).toHaveLength(1);
    stop.abort();
    await Promise.all([runA, runB]);
    expect(terms.overlapping()).toBe(false);
  });

  it('lets a standby take over at once when the leader shuts down', async () => {
    const store = new LeaseStore();
    const terms = new Terms();
    const stopA = new AbortController();
    const stopB = new AbortController();
    const long = { leaseDurationSeconds: 30, renewDeadlineSeconds: 20 };
    const runA = new LeaseElector(store.client(), options('a', long)).run(
      terms.lead('a'),
      stopA.signal,
    );
    await terms.until(() => terms.spans.length === 1);
    const runB = new LeaseElector(store.client(), options('b', long)).run(
      terms.lead('b'),
      stopB.signal,
    );
    const started = Date.now();
    stopA.abort();
    await runA;
    await terms.until(() => terms.spans.some((s) => s.who === 'b'));
    expect(Date.now() - started).toBeLessThan(5_000);
    stopB.abort();
    await runB;
  });

  it("tells a term whether it continues this replica's own lapsed leadership", async () => {
    const store = new LeaseStore();
    const terms = new Terms();
    const continued: boolean[] = [];
    const stop = new AbortController();
    const api = store.client();
    const lead = terms.lead('a');
    const running = new LeaseElector(api, options('a')).run((term, context) => {
      continued.push(context.continued);
      return lead(term);
    }, stop.signal);
    await terms.until(() => terms.spans.length === 1);
    api.partitioned = true;
    await terms.until(() => terms.spans[0].to !== undefined);
    api.partitioned = false;
    await terms.until(() => terms.spans.length === 2);
    expect(continued).toEqual([false, true]);
    stop.abort();
    await running;
  });

  it('refuses a renew deadline that is not below the lease duration', () => {
    expect(
      () =>
        new LeaseElector(new LeaseStore().client(), options('a', { renewDeadlineSeconds: 0.6 })),
    ).toThrow(/below leaseDurationSeconds/);
  });
});
