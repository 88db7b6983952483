/** What the dispatcher needs to know about a message. */
export interface DispatchInfo {
  seq: number;
  queue: string | undefined;
}

/**
 * Decides which due message is attempted next: queues deliver in acceptance order, one message at a
 * time, and a message keeps its queue from its first attempt until it settles (so a retrying message
 * holds back the ones behind it, as the service's queues do); across queues and for callbacks, at
 * most `maxInFlight` attempts run at once (the plan's `max_global_parallelism`).
 */
export interface Dispatcher {
  /** The message is due: attempt it as soon as its queue and the global limit allow. */
  ready(id: string): void;
  /** Its attempt ended. `settled`: delivered or failed for good, so its queue is free again. */
  finished(id: string, settled: boolean): void;
  /** After a restart: a message that had started keeps its queue. */
  hold(queue: string, id: string): void;
  /** Attempts running now. */
  inFlight(): number;
  /** Stops starting attempts (on close). */
  stop(): void;
}

export interface DispatcherOptions {
  maxInFlight: number;
  /** Looks a message up; `undefined` when it is no longer pending. */
  info(id: string): DispatchInfo | undefined;
  /** Starts one attempt; the dispatcher is told the end through `finished`. */
  start(id: string): void;
}

/** Creates a {@link Dispatcher}. */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  // Due messages, kept sorted by acceptance order; a dev server holds few enough for a plain array.
  const due: Array<{ id: string; seq: number }> = [];
  const holders = new Map<string, string>();
  const running = new Set<string>();
  let stopped = false;

  const pump = (): void => {
    for (let index = 0; index < due.length && running.size < options.maxInFlight && !stopped; ) {
      const candidate = due[index]!;
      const info = options.info(candidate.id);
      if (!info) {
        due.splice(index, 1);
        continue;
      }
      const holder = info.queue === undefined ? undefined : holders.get(info.queue);
      if ((holder !== undefined && holder !== candidate.id) || running.has(candidate.id)) {
        index += 1;
        continue;
      }
      due.splice(index, 1);
      if (info.queue !== undefined) holders.set(info.queue, candidate.id);
      running.add(candidate.id);
      options.start(candidate.id);
    }
  };

  return {
    ready(id) {
      const info = options.info(id);
      if (!info || due.some((entry) => entry.id === id)) return;
      let index = due.length;
      while (index > 0 && due[index - 1]!.seq > info.seq) index -= 1;
      due.splice(index, 0, { id, seq: info.seq });
      pump();
    },
    finished(id, settled) {
      running.delete(id);
      if (settled) {
        for (const [queue, holder] of holders) if (holder === id) holders.delete(queue);
      }
      pump();
    },
    hold(queue, id) {
      if (!holders.has(queue)) holders.set(queue, id);
    },
    inFlight: () => running.size,
    stop() {
      stopped = true;
    },
  };
}
