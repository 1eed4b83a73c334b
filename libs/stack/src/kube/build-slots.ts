/** At most `size` tasks at once; the others start in the order they asked, as slots free up. */
export class BuildSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {}

  /** Runs `task` in a slot; `onQueued` is told once when it has to wait for one. */
  async run<T>(task: () => Promise<T>, onQueued: () => void = () => undefined): Promise<T> {
    if (this.running < this.size) {
      this.running += 1;
    } else {
      onQueued();
      // The slot is handed over by the task that ends: `running` stays as it is.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
