// @mailroom/dev-server: a local emulator of the service's messaging and management interfaces, with
// real signed deliveries. `startDevServer` for code and tests; the `mailroom dev` CLI for people.
//
// Where the spec and service-facts are silent, the dev server decides (and these are its rules):
// - `failureCallbackInfo` is absent from a DLQ entry whose message had no failure callback (nothing
//   to report or re-trigger); CALLBACK_CANCELED is never produced.
// - Every message that fails for good gets a DLQ entry and a `dlqId`; the workflow listing shows the
//   ones carrying `<P>-Workflow-RunId`, `GET /v2/dlq` without `source` shows all of them.
// - Callbacks and failure callbacks are messages of their own (own id, signed for their URL, retried
//   with their own settings, else the source's retries); they are never queued, never get callbacks,
//   and a callback that fails for good is logged and counted but not kept in the DLQ.
// - `fromDate`/`toDate` filter on the time an entry entered the DLQ.
// - `timeScale` scales waits only: timeouts, the 10-minute deduplication window and DLQ retention
//   are real time (inject `now` to move through them).
// - Not emulated: `api/...` destinations (400), rate limits (429), and the plan limits
//   `max_dlq_size` and `max_requests_per_*` across requests (docs/service-interface.md says why).

export { startDevServer, type DevServer } from './start-dev-server';
export { DEFAULT_PORT, type DevServerOptions } from './settings';
export type { DevServerEvent, DevServerEventListener } from './events';
export type { LogOption } from './events';
export { formatEvent } from './events';
export { PLANS, type PlanLimits, type PlanName } from './settings';
export {
  DEFAULT_CREDENTIALS,
  DEV_CURRENT_SIGNING_KEY,
  DEV_MANAGEMENT_PASSWORD,
  DEV_MANAGEMENT_USER,
  DEV_NEXT_SIGNING_KEY,
  DEV_READ_ONLY_TOKEN,
  DEV_TOKEN,
  DEV_USER_ID,
  type DevCredentials,
} from './credentials';
export { environmentLines } from './start-dev-server';
