import { bodyFields, type ConsoleEvent } from './api';

// A message as the console lists it: its log events folded into one summary (state, next delivery,
// the run and step it carries, what it was resent from).

/** A message as the list shows it: its events, oldest first, folded into a summary. */
export interface MessageSummary {
  id: string;
  events: ConsoleEvent[];
  state: string;
  url: string;
  queue: string | undefined;
  group: string | undefined;
  label: string | undefined;
  createdAt: number;
  next: number | undefined;
  kind: string;
  sourceMessageId: string | undefined;
  /** The message this one was resent from (Replay, Edit and resend). */
  resentFrom: string | undefined;
  /** A workflow run's message: the run, and the step it carries (its name, from the body the SDK published). */
  run: { id: string; step: string } | undefined;
}

export function summarise(events: readonly ConsoleEvent[]): MessageSummary[] {
  const byId = new Map<string, ConsoleEvent[]>();
  // Events come newest first; a message's list is built oldest first.
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index]!;
    const list = byId.get(event.messageId) ?? [];
    list.push(event);
    byId.set(event.messageId, list);
  }
  return [...byId.entries()]
    .map(([id, list]) => {
      const last = list.at(-1)!;
      const first = list[0]!;
      const retry = [...list].reverse().find((event) => event.state === 'RETRY');
      return {
        id,
        events: list,
        state: last.state,
        url: last.url ?? '',
        queue: last.queueName,
        group: last.topicName,
        label: last.labels?.join(',') ?? last.label,
        createdAt: first.time,
        // A retry's next attempt, or a delayed message's first one.
        next: last.state === 'RETRY' ? retry?.nextDeliveryTime : last.state === 'CREATED' ? first.notBefore : undefined,
        kind: last.kind ?? 'message',
        sourceMessageId: last.sourceMessageId,
        resentFrom: first.resentFrom,
        run: first.workflowRunId ? { id: first.workflowRunId, step: stepName(first.body) } : undefined,
      };
    })
    .sort((a, b) => b.createdAt - a.createdAt);
}

/** The step a run's message carries, as the SDK published it (`{ stepName, stepType, ... }`), else what it is. */
function stepName(body: string | undefined): string {
  // Not a step: the trigger's own body.
  const { stepName, stepType } = bodyFields(body);
  if (typeof stepName !== 'string') return 'trigger';
  return `${stepName}${typeof stepType === 'string' ? ` (${stepType})` : ''}`;
}
