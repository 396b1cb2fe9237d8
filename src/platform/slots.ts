/**
 * A counting semaphore: at most `size` holders at once, the others wait in arrival order.
 * Used where a concurrency limit cannot come from a task queue's worker slots (an activity that
 * runs as a local activity inside a workflow task).
 */
export interface Slots {
  /** Runs `fn` once a slot is free and frees it when `fn` settles. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Holders now and waiting now (for tests and metrics). */
  readonly inUse: number;
  readonly waiting: number;
}

export function createSlots(size: number): Slots {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`slots need a size of at least 1, got ${size}`);
  let inUse = 0;
  const queue: Array<() => void> = [];
  const release = () => {
    const next = queue.shift();
    // The slot passes straight to the next waiter: inUse stays the same.
    if (next) next();
    else inUse -= 1;
  };
  return {
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (inUse < size) inUse += 1;
      else await new Promise<void>((resolve) => queue.push(resolve));
      try {
        return await fn();
      } finally {
        release();
      }
    },
    get inUse() {
      return inUse;
    },
    get waiting() {
      return queue.length;
    },
  };
}
