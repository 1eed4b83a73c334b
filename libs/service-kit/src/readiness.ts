/**
 * What `/readyz` reports: each part of a service (Kafka consumer, pod watch, …) says whether it
 * is ready; the service is ready when all registered parts are.
 */
export class Readiness {
  private readonly parts = new Map<string, { ready: boolean; detail?: string }>();

  /** Declares a part that starts not ready. */
  expect(part: string): void {
    if (!this.parts.has(part)) this.parts.set(part, { ready: false, detail: 'starting' });
  }

  set(part: string, ready: boolean, detail?: string): void {
    this.parts.set(part, { ready, detail });
  }

  get ready(): boolean {
    return [...this.parts.values()].every((part) => part.ready);
  }

  report(): Record<string, { ready: boolean; detail?: string }> {
    return Object.fromEntries(this.parts);
  }
}
