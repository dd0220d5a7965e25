/**
 * What a client's transform did to an email, as the result's `applied` list shows it: each kind
 * of change once, with how often it happened, so a user can see why their email looks different.
 */
export class TransformLog {
  private readonly changes = new Map<string, number>();
  private readonly notes = new Set<string>();

  removed(what: string, times = 1): void {
    this.changes.set(what, (this.changes.get(what) ?? 0) + times);
  }

  note(what: string): void {
    this.notes.add(what);
  }

  /** Changes first (with their counts), then notes on partial support, in the order first seen. */
  entries(): string[] {
    return [...[...this.changes].map(([what, times]) => (times > 1 ? `${what} x${times}` : what)), ...this.notes];
  }
}
