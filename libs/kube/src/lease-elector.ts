import { microTime, type CoordinationApi, type Lease } from './http/kube-core-api';
import { delay, errorText, logEvent, type LogEvent } from '@kpm/common';
import { failureOf } from './kube-errors';

export interface LeaseElectorOptions {
  namespace: string;
  name: string;
  /** This replica, as written into the Lease's holderIdentity. */
  identity: string;
  leaseDurationSeconds: number;
  /** A leader that cannot renew for this long steps down (before others may take over). */
  renewDeadlineSeconds: number;
  retryPeriodSeconds: number;
  /** Labels of the Lease when this replica creates it (kpm's creator label). */
  labels?: Record<string, string>;
  logger?: { log(entry: LogEvent): void; warn(entry: LogEvent): void };
}

export interface LeadershipTerm {
  /** This replica held the Lease right before (it lapsed and was renewed): nobody else led. */
  continued: boolean;
}

export interface LeadershipListener {
  /** Called with the holder whenever it changes (undefined: nobody holds the Lease). */
  leaderChanged?(holder: string | undefined, self: boolean): void;
}

/**
 * Leader election over a coordination.k8s.io Lease, as client-go's leaderelection does it:
 * candidates try every retry period; the holder renews; a Lease is free when its holder is empty
 * or its record has not changed for leaseDuration *as observed locally* (no clock-skew trust);
 * updates carry the resourceVersion, so two candidates never both win. A leader that cannot
 * renew within renewDeadline stops leading before the Lease can expire for the others.
 */
export class LeaseElector {
  private observedVersion?: string;
  private observedAt = 0;
  private leading = false;
  private holder?: string;
  /** The holder this replica found in the Lease when it last acquired it. */
  private previousHolder?: string;

  constructor(
    private readonly api: CoordinationApi,
    private readonly options: LeaseElectorOptions,
  ) {
    if (options.renewDeadlineSeconds >= options.leaseDurationSeconds) {
      throw new Error('leaseRenewDeadlineSeconds must be below leaseDurationSeconds');
    }
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * Campaigns until `signal` aborts. While this replica leads, `lead(term)` runs; `term` aborts
   * when leadership is lost (then it campaigns again) or `signal` aborts (then the Lease is
   * released so a standby takes over at once).
   */
  async run(
    lead: (term: AbortSignal, context: LeadershipTerm) => Promise<void>,
    signal: AbortSignal,
    listener: LeadershipListener = {},
  ): Promise<void> {
    const retryMs = this.options.retryPeriodSeconds * 1000;
    while (!signal.aborted) {
      if (!(await this.tryAcquireOrRenew(listener))) {
        await delay(retryMs * (1 + Math.random() * 0.2), signal);
        continue;
      }
      this.leading = true;
      this.options.logger?.log(logEvent('lease.leading', this.lease()));
      const term = new AbortController();
      const continued = this.previousHolder === this.options.identity;
      const leading = lead(term.signal, { continued }).catch((error: unknown) =>
        this.options.logger?.warn(
          logEvent('lease.leader_work_failed', { ...this.lease(), error: errorText(error) }),
        ),
      );
      await this.renewWhileLeading(signal, listener);
      term.abort();
      this.leading = false;
      await leading;
      if (signal.aborted) await this.release(listener);
      else this.options.logger?.warn(logEvent('lease.lost', this.lease()));
    }
  }

  private async renewWhileLeading(
    signal: AbortSignal,
    listener: LeadershipListener,
  ): Promise<void> {
    const deadlineMs = this.options.renewDeadlineSeconds * 1000;
    let renewedAt = Date.now();
    while (!signal.aborted) {
      await delay(this.options.retryPeriodSeconds * 1000, signal);
      if (signal.aborted) return;
      if (await this.tryAcquireOrRenew(listener, renewedAt + deadlineMs)) {
        renewedAt = Date.now();
      } else if (Date.now() - renewedAt >= deadlineMs || this.heldByOther()) {
        return;
      }
    }
  }

  /** True when this replica holds the Lease afterwards. `until` bounds the calls (renew deadline). */
  private async tryAcquireOrRenew(listener: LeadershipListener, until?: number): Promise<boolean> {
    try {
      const call = this.acquireOrRenew(listener);
      if (until === undefined) return await call;
      return await Promise.race([call, delay(Math.max(0, until - Date.now())).then(() => false)]);
    } catch (error) {
      const failure = failureOf(error);
      if (failure.kind !== 'conflict') {
        this.options.logger?.warn(
          logEvent('lease.call_failed', {
            ...this.lease(),
            reason: failure.reason,
            error: failure.message,
          }),
        );
      }
      return false;
    }
  }

  /** The Lease as log fields. */
  private lease(): { namespace: string; lease: string } {
    return { namespace: this.options.namespace, lease: this.options.name };
  }

  private heldByOther(): boolean {
    return this.holder !== undefined && this.holder !== this.options.identity;
  }

  private async acquireOrRenew(listener: LeadershipListener): Promise<boolean> {
    const { namespace, name, identity, leaseDurationSeconds } = this.options;
    const now = microTime();
    let lease: Lease;
    try {
      lease = await this.api.readNamespacedLease({ namespace, name });
    } catch (error) {
      if (failureOf(error).kind !== 'not-found') throw error;
      const created = await this.api.createNamespacedLease({
        namespace,
        body: {
          metadata: { name, namespace, labels: this.options.labels },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds,
            acquireTime: now,
            renewTime: now,
            leaseTransitions: 0,
          },
        },
      });
      this.previousHolder = undefined;
      this.observe(created, listener);
      return true;
    }
    this.observe(lease, listener);
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity || undefined;
    const durationMs = (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000;
    if (holder && holder !== identity && Date.now() < this.observedAt + durationMs) return false;
    const replaced = await this.api.replaceNamespacedLease({
      namespace,
      name,
      body: {
        ...lease,
        spec: {
          ...spec,
          holderIdentity: identity,
          leaseDurationSeconds,
          renewTime: now,
          acquireTime: holder === identity ? spec.acquireTime : now,
          leaseTransitions: (spec.leaseTransitions ?? 0) + (holder === identity ? 0 : 1),
        },
      },
    });
    if (!this.leading) this.previousHolder = holder;
    this.observe(replaced, listener);
    return true;
  }

  /** Steps down on shutdown: an empty holder lets a standby acquire without waiting for expiry. */
  private async release(listener: LeadershipListener): Promise<void> {
    const { namespace, name, identity } = this.options;
    try {
      const lease = await this.api.readNamespacedLease({ namespace, name });
      if (lease.spec?.holderIdentity !== identity) return;
      const released = await this.api.replaceNamespacedLease({
        namespace,
        name,
        body: {
          ...lease,
          spec: {
            ...lease.spec,
            holderIdentity: '',
            leaseDurationSeconds: 1,
            renewTime: microTime(),
          },
        },
      });
      this.observe(released, listener);
      this.options.logger?.log(logEvent('lease.released', this.lease()));
    } catch (error) {
      const failure = failureOf(error);
      this.options.logger?.warn(
        logEvent('lease.release_failed', {
          ...this.lease(),
          reason: failure.reason,
          error: failure.message,
        }),
      );
    }
  }

  /** Expiry is measured from when this replica saw the record change, never from remote clocks. */
  private observe(lease: Lease, listener: LeadershipListener): void {
    const version = lease.metadata?.resourceVersion;
    if (version !== this.observedVersion) {
      this.observedVersion = version;
      this.observedAt = Date.now();
    }
    const holder = lease.spec?.holderIdentity || undefined;
    if (holder !== this.holder) {
      this.holder = holder;
      listener.leaderChanged?.(holder, holder === this.options.identity);
    }
  }
}
