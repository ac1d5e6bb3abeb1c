/**
 * A small bounded map with approximately least-recently-used eviction. Parsed strings are cached by
 * text so that hot placeholders (the same `$1.city` on every tool call) are parsed once, while the
 * number of entries, and so the memory, stays bounded however many distinct strings go through.
 *
 * Two generations instead of a strict LRU list: a hit in the young generation is one `Map.get` (a
 * strict LRU would delete and re-insert on every hit). When the young generation is full it becomes
 * the old one and the previous old one is dropped; an old entry that is used again moves back to the
 * young generation. Invariant: `size <= maxEntries` at all times.
 */
export class BoundedCache<V> {
  #young = new Map<string, V>();
  #old = new Map<string, V>();
  #maxEntries = 0;
  /** The young generation is rotated when it reaches this size. */
  #generation = 0;

  constructor(maxEntries: number) {
    this.#setBound(maxEntries);
  }

  /** Entries held now (never more than `maxEntries`). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  get maxEntries(): number {
    return this.#maxEntries;
  }

  /** Change the bound; entries beyond it are dropped, least recently used first. */
  resize(maxEntries: number): void {
    this.#setBound(maxEntries);
    // Keep the most recent `generation` entries, as the old generation (so the invariant holds).
    const entries = [...this.#old, ...this.#young];
    this.#old = new Map(this.#generation === 0 ? [] : entries.slice(-this.#generation));
    this.#young = new Map();
  }

  get(key: string): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) {
      this.#old.delete(key);
      this.#insertYoung(key, old);
    }
    return old;
  }

  set(key: string, value: V): void {
    if (this.#maxEntries === 0) return;
    if (this.#young.has(key)) {
      this.#young.set(key, value);
      return;
    }
    this.#old.delete(key);
    this.#insertYoung(key, value);
  }

  clear(): void {
    this.#young.clear();
    this.#old.clear();
  }

  #insertYoung(key: string, value: V): void {
    this.#young.set(key, value);
    if (this.#young.size >= this.#generation) {
      this.#old = this.#young;
      this.#young = new Map();
    }
  }

  #setBound(maxEntries: number): void {
    this.#maxEntries = maxEntries;
    // old <= generation and young < generation, so size <= 2 * generation - 1 <= maxEntries.
    this.#generation = Math.ceil(maxEntries / 2);
  }
}
