/**
 * Long synchronous work (replaying a history, a large batch of records) cut into slices of at
 * most `sliceMs`, with a turn of the event loop between them: timers, heartbeats, liveness
 * probes and HTTP requests wait one slice at most, not the whole work.
 */
export class EventLoopSlices {
  private sliceStart = Date.now();

  constructor(readonly sliceMs = 20) {}

  /** Call after each unit of work: gives the event loop a turn when the slice is used up. */
  async next(): Promise<boolean> {
    if (Date.now() - this.sliceStart < this.sliceMs) return false;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = Date.now();
    return true;
  }
}
