/**
 * A small bounded LRU map. Parsed strings are cached by text so that hot placeholders (the same
 * `$1.city` resolved on every tool call) are parsed once, while memory stays bounded.
 */
export class BoundedCache<V> {
  #entries = new Map<string, V>();
  #maxEntries: number;

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  get maxEntries(): number {
    return this.#maxEntries;
  }

  /** Change the bound; entries beyond it are dropped, oldest first. */
  resize(maxEntries: number): void {
    this.#maxEntries = maxEntries;
    this.#evict();
  }

  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      // Move to the most recent end. Cheap: Map keeps insertion order.
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    if (this.#maxEntries === 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#evict();
  }

  clear(): void {
    this.#entries.clear();
  }

  #evict(): void {
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) return;
      this.#entries.delete(oldest.value);
    }
  }
}
