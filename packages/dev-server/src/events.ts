import type { DelaySource, MessageKind } from './state/records';

/**
 * What the dev server did, one object per event. Logs are printed from these, and tests wait on them
 * (`server.subscribe`) instead of sleeping. No event ever carries a token or a signing key.
 */
export type DevServerEvent =
  | { type: 'listening'; url: string; managementUrl: string; dataDir: string | undefined; recovered: number }
  | {
      type: 'accepted';
      messageId: string;
      kind: MessageKind;
      url: string;
      queue?: string;
      topicName?: string;
      sourceMessageId?: string;
      delayMs: number;
    }
  | { type: 'deduplicated'; messageId: string; url: string }
  | { type: 'delivered'; messageId: string; kind: MessageKind; url: string; status: number; retried: number }
  | {
      type: 'retry';
      messageId: string;
      kind: MessageKind;
      url: string;
      retried: number;
      status?: number;
      error?: string;
      /** The delay as the service would wait it, before the time scale. */
      delayMs: number;
      /** What the dev server really waits: `delayMs * timeScale`. */
      scaledDelayMs: number;
      /** Where the delay came from. */
      delaySource: DelaySource;
    }
  | {
      type: 'failed';
      messageId: string;
      kind: MessageKind;
      url: string;
      retried: number;
      status?: number;
      error?: string;
      reason: 'retries-exhausted' | 'non-retryable';
    }
  | { type: 'dlq'; dlqId: string; messageId: string; workflowRunId?: string }
  | { type: 'callback'; messageId: string; kind: 'callback' | 'failure-callback'; url: string; sourceMessageId: string; retried?: number }
  | { type: 'failure-callback-state'; dlqId: string; state: string }
  | {
      /** Opening `--data-dir` dropped a torn last line (a crash mid-write) or skipped damaged records. */
      type: 'journal-recovered';
      file: string;
      tornBytesDropped: number;
      damagedRecordsSkipped: number;
      damagedBytesSkipped: number;
      damagedFile?: string;
    }
  /** A workflow run ended: its route returned, it was cancelled, or a step failed for good. */
  | { type: 'workflow-run'; runId: string; state: 'RUN_SUCCESS' | 'RUN_CANCELED' | 'RUN_FAILED' }
  | { type: 'error'; message: string };

/** Receives every event. */
export type DevServerEventListener = (event: DevServerEvent) => void;

/** A tiny synchronous event bus: a listener that throws never breaks delivery. */
export interface EventBus {
  emit(event: DevServerEvent): void;
  subscribe(listener: DevServerEventListener): () => void;
}

/** Creates an {@link EventBus}. */
export function createEventBus(): EventBus {
  const listeners = new Set<DevServerEventListener>();
  return {
    emit(event) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // A broken log sink or test hook must not stop the engine.
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
