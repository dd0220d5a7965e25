/**
 * Bounds work at once, overall and per key (a host): a check of 200 links runs several at a time
 * without sending more than a couple of requests to any one site, which would read as an attack.
 */
export class ConcurrencyGate {
  private active = 0;
  private readonly perKey = new Map<string, number>();
  private readonly waiting: Array<{ key: string; start: () => void }> = [];

  constructor(
    private readonly limit: number,
    private readonly perKeyLimit: number,
  ) {}

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    await new Promise<void>((start) => {
      this.waiting.push({ key, start });
      this.pump();
    });
    try {
      return await work();
    } finally {
      this.active--;
      const left = (this.perKey.get(key) ?? 1) - 1;
      if (left) this.perKey.set(key, left);
      else this.perKey.delete(key);
      this.pump();
    }
  }

  private pump(): void {
    for (let i = 0; i < this.waiting.length && this.active < this.limit; ) {
      const next = this.waiting[i]!;
      const used = this.perKey.get(next.key) ?? 0;
      if (used >= this.perKeyLimit) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.active++;
      this.perKey.set(next.key, used + 1);
      next.start();
    }
  }
}
