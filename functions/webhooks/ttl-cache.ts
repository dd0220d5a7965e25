import { env } from '../platform/env';

/**
 * A container-lifetime cache of webhook configuration and signing keys, for WEBHOOK_CONFIG_CACHE_SECONDS
 * (Mailgun too says webhook changes take a while to apply). Entries are keyed with the table name:
 * local mode runs both regions in one process, each with its own table. A zero setting reads
 * every time, which is what tests use to see changes at once.
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>();

  constructor(private readonly maxEntries = 10_000) {}

  get(key: string, load: () => Promise<T>, now = Date.now()): Promise<T> {
    const ttlMs = env().WEBHOOK_CONFIG_CACHE_SECONDS * 1000;
    if (ttlMs === 0) return load();
    const scoped = `${env().TABLE_NAME}|${key}`;
    const hit = this.entries.get(scoped);
    if (hit && now - hit.at < ttlMs) return hit.value;
    // The oldest entry goes first when full: Map iterates in insertion order.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    const value = load();
    this.entries.set(scoped, { at: now, value });
    // A failed read is not remembered.
    value.catch(() => this.entries.delete(scoped));
    return value;
  }

  /** Forgets a key, so this container's own writes show at once. */
  forget(key: string): void {
    this.entries.delete(`${env().TABLE_NAME}|${key}`);
  }
}
