/** An entry of a {@link SeqHeap}: whatever the caller keys by `seq`. */
export interface SeqEntry {
  seq: number;
}

/** A binary min-heap by `seq`: the lowest acceptance number first, in O(log n) per push and pop. */
export interface SeqHeap<T extends SeqEntry> {
  push(entry: T): void;
  /** Removes and returns the entry with the lowest `seq`, or `undefined` when empty. */
  pop(): T | undefined;
  readonly size: number;
}

/**
 * Creates a {@link SeqHeap}. Equal `seq`s come out in no particular order; the dispatcher never
 * pushes two live entries with the same `seq` (one message has one `seq`).
 */
export function createSeqHeap<T extends SeqEntry>(): SeqHeap<T> {
  const items: T[] = [];
  return {
    push(entry) {
      items.push(entry);
      let index = items.length - 1;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (items[parent]!.seq <= entry.seq) break;
        items[index] = items[parent]!;
        index = parent;
      }
      items[index] = entry;
    },
    pop() {
      const top = items[0];
      const last = items.pop();
      if (top === undefined || last === undefined || items.length === 0) return top;
      // Sift the last entry down from the root.
      let index = 0;
      for (;;) {
        const left = 2 * index + 1;
        if (left >= items.length) break;
        const right = left + 1;
        const child = right < items.length && items[right]!.seq < items[left]!.seq ? right : left;
        if (items[child]!.seq >= last.seq) break;
        items[index] = items[child]!;
        index = child;
      }
      items[index] = last;
      return top;
    },
    get size() {
      return items.length;
    },
  };
}
