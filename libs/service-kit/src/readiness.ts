interface PartState {
  ready: boolean;
  detail?: string;
  /** When the part last became not ready (ms since epoch); a repeated "not ready" keeps it. */
  notReadySince?: number;
}

/**
 * What `/readyz` reports: each part of a service (Kafka consumer, pod watch, …) says whether it
 * is ready; the service is ready when all registered parts are. A part may also carry a liveness
 * deadline: not ready for longer than that, it makes `/healthz` fail so Kubernetes restarts the
 * process (a watch that keeps failing is better restarted than left hanging, as kuryr does).
 */
export class Readiness {
  private readonly parts = new Map<string, PartState>();
  private readonly deadlinesMs = new Map<string, number>();

  /** Declares a part that starts not ready; `livenessDeadlineMs` as described above. */
  expect(part: string, livenessDeadlineMs?: number, now: number = Date.now()): void {
    if (!this.parts.has(part)) this.set(part, false, 'starting', now);
    if (livenessDeadlineMs !== undefined) this.deadlinesMs.set(part, livenessDeadlineMs);
  }

  set(part: string, ready: boolean, detail?: string, now: number = Date.now()): void {
    const previous = this.parts.get(part);
    const notReadySince = ready
      ? undefined
      : previous && !previous.ready
        ? previous.notReadySince
        : now;
    this.parts.set(part, { ready, detail, notReadySince });
  }

  get ready(): boolean {
    return [...this.parts.values()].every((part) => part.ready);
  }

  report(): Record<string, { ready: boolean; detail?: string }> {
    return Object.fromEntries(
      [...this.parts].map(([name, { ready, detail }]) => [name, { ready, detail }]),
    );
  }

  /** Parts not ready for longer than their liveness deadline, with how long (ms). */
  overdue(now: number = Date.now()): Record<string, { notReadyForMs: number; detail?: string }> {
    const overdue: Record<string, { notReadyForMs: number; detail?: string }> = {};
    for (const [name, deadlineMs] of this.deadlinesMs) {
      const part = this.parts.get(name);
      if (!part || part.ready || part.notReadySince === undefined) continue;
      const notReadyForMs = now - part.notReadySince;
      if (notReadyForMs > deadlineMs) overdue[name] = { notReadyForMs, detail: part.detail };
    }
    return overdue;
  }
}
