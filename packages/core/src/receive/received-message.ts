import type { VerifiedSignature } from '../signature';

/** A delivered message as a handler sees it. `T` is the body type the destination's schema gives. */
export interface ReceivedMessage<T = unknown> {
  /** The parsed body: the schema's output, the parsed JSON, or the text for other content types. */
  body: T;
  /** The exact bytes received. */
  rawBody: Uint8Array;
  /** The body decoded as UTF-8. */
  text(): string;
  /** `<Prefix>-Message-Id`: stable across retries, so it is the key for idempotent handling. */
  messageId: string | undefined;
  /** `<Prefix>-Retried`: 0 on the first attempt. */
  retried: number;
  /** `<Prefix>-Topic-Name` when the message was sent to a URL group. */
  topicName: string | undefined;
  /** `<Prefix>-Schedule-Id` when the message came from a schedule. */
  scheduleId: string | undefined;
  /** `<Prefix>-Caller-Ip`: who published the message. */
  callerIp: string | undefined;
  /** `<Prefix>-Workflow-RunId` for workflow messages. */
  workflowRunId: string | undefined;
  /** `<Prefix>-Workflow-Url` for workflow messages. */
  workflowUrl: string | undefined;
  /** The headers the sender forwarded, under their own (lower-case) names; no service or transport headers. */
  forwardedHeaders: Record<string, string>;
  /** Every request header, lower-case names. */
  headers: Record<string, string>;
  method: string;
  url: string | undefined;
  contentType: string | undefined;
  /** The verified claims and which key matched; `undefined` only with `verify: false`. */
  signature: VerifiedSignature | undefined;
}
