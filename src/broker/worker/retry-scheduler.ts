// Timers for entries waiting out their backoff. The entry stays pending under this worker's
// name meanwhile; when the timer fires the worker re-takes it with XCLAIM min-idle=delay, so the
// server's clock, not ours, decides the backoff has passed. Because the delay is capped below
// claimIdleMs, no other worker's claim takes it first: the backoff holds on every backend.
export class RetryScheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly onDue: (id: string) => void) {}

  schedule(id: string, delayMs: number): void {
    this.cancel(id);
    const timer = setTimeout(() => {
      this.timers.delete(id);
      this.onDue(id);
    }, delayMs);
    this.timers.set(id, timer);
  }

  cancel(id: string): void {
    const timer = this.timers.get(id);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(id);
  }

  /** Stops every timer; returns the ids that were waiting. */
  cancelAll(): string[] {
    const ids = [...this.timers.keys()];
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    return ids;
  }

  get size(): number {
    return this.timers.size;
  }
}
