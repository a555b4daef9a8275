/** Small selection helpers for streaming over results with bounded memory. */

/** Keeps the `capacity` smallest items seen (a max-heap on `compare`). */
export class BoundedHeap<T> {
  private readonly items: T[] = [];

  constructor(
    private readonly capacity: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  /** Whether `offer(item)` would keep it (lets callers skip building what would be dropped). */
  accepts(item: T): boolean {
    if (this.capacity <= 0) return false;
    return this.items.length < this.capacity || this.compare(item, this.items[0]!) < 0;
  }

  offer(item: T): void {
    if (this.capacity <= 0) return;
    const { items } = this;
    if (items.length < this.capacity) {
      items.push(item);
      this.siftUp(items.length - 1);
    } else if (this.compare(item, items[0]!) < 0) {
      items[0] = item;
      this.siftDown(0);
    }
  }

  /** The kept items, smallest first. */
  sorted(): T[] {
    return [...this.items].sort(this.compare);
  }

  private siftUp(index: number): void {
    const { items } = this;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (this.compare(items[index]!, items[parent]!) <= 0) return;
      [items[index], items[parent]] = [items[parent]!, items[index]!];
      index = parent;
    }
  }

  private siftDown(index: number): void {
    const { items } = this;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let largest = index;
      if (left < items.length && this.compare(items[left]!, items[largest]!) > 0) largest = left;
      if (right < items.length && this.compare(items[right]!, items[largest]!) > 0) largest = right;
      if (largest === index) return;
      [items[index], items[largest]] = [items[largest]!, items[index]!];
      index = largest;
    }
  }
}

/** A 32-bit hash of a row position and a seed (murmur3's finaliser over both halves). */
export function rowHash(row: number, seed: number): number {
  let h = Math.imul(row | 0, 0x9e3779b1) ^ Math.imul(Math.floor(row / 2 ** 32), 0x85ebca6b) ^ seed;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A deterministic PRNG in [0, 1) (mulberry32), so the same request reads the same sample. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
