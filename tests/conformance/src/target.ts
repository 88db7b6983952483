import type {
  CallbackMessage,
  CallbackOptions,
  DestinationDefinition,
  FailureCallbackMessage,
  ReceivedMessage,
  ReceiverOptions,
} from '@mailroom/core';

/**
 * What the behaviour suite asks of an adapter: an app that serves one typed destination, one callback
 * and one failure callback through that adapter, configured with the given receiver options. The
 * suite then talks to it only through raw HTTP-shaped requests, so every adapter is judged alike.
 */
export interface ConformanceTarget {
  /** Shown in test names, e.g. `express 5`. */
  name: string;
  start(setup: TargetSetup): Promise<RunningTarget>;
  /** Stops what the target's starts shared (one app process for every profile), after the file. */
  close?(): Promise<void>;
  /** How this target is expected to behave where adapters legitimately differ. */
  quirks?: TargetQuirks;
}

export interface TargetQuirks {
  /**
   * The app's global JSON parser ate the body (a plain `express.json()`): every JSON request must
   * answer 500 with a fix-it message and never reach a handler. The suite runs a reduced set of cases.
   */
  bodyConsumed?: boolean;
  /**
   * With `bodyConsumed`: the parser reads every content type, not only JSON (an Elysia `onParse` hook
   * falls back to Elysia's own parser), so a text delivery must get the fix-it 500 too.
   */
  parsesEveryBody?: boolean;
  /**
   * The framework routes by method itself (e.g. a Nest `@Post()` or an Express `app.post`), so a wrong
   * method never reaches Mailroom and gets the framework's 404/405. Prefer mounting for every method
   * (`app.all`, `@All()`) so the pipeline answers 405 with `Allow`; set this only when that is impossible.
   */
  frameworkRoutesMethods?: boolean;
  /**
   * A global JSON parser runs before the route and refuses malformed JSON itself (Express's
   * `express.json({ verify })` answers 400). The message never reaches Mailroom or a handler, and 400
   * still tells the service the request failed; the suite accepts 400 for invalid JSON then.
   */
  frameworkParsesJson?: boolean;
  /**
   * The adapter checks its configuration at start-up (NestJS's module init) and refuses to start
   * without a signing key instead of answering 500 per request. `start()` must then reject with a
   * message naming MAILROOM_CURRENT_SIGNING_KEY: just as closed, and found earlier.
   */
  failsAtStartupWithoutKeys?: boolean;
  /**
   * The framework hands the app no body for a request without `Content-Type` (SvelteKit's Node
   * adapter). Such a delivery must be refused (its body no longer matches the signature), never
   * accepted as an empty one.
   */
  dropsBodyWithoutContentType?: boolean;
}

export interface TargetSetup {
  /** Receiver settings every endpoint gets (keys, headerPrefix, publicUrl, maxBodyBytes, now, onError). */
  options: ReceiverOptions;
  destination: {
    definition: DestinationDefinition;
    handler: (message: ReceivedMessage<unknown>) => unknown;
  };
  callback: (message: CallbackMessage) => unknown;
  failureCallback: (message: FailureCallbackMessage) => unknown;
  /**
   * Options for the callback endpoint, to pass as the adapter's `callback(handler, options)`. The suite
   * always sets both of these (added after the first targets were written, hence optional in the type).
   */
  callbackOptions?: CallbackOptions<DestinationDefinition | undefined>;
  /** Options for the failure-callback endpoint: the suite gives `{ source: definition }`, so `sourceBody.data` is validated. */
  failureCallbackOptions?: CallbackOptions<DestinationDefinition | undefined>;
  /** Paths to serve them at; the suite signs for `origin + path` (or `options.publicUrl + path` when set). */
  paths: { destination: string; callback: string; failureCallback: string };
}

/**
 * One request as the service would send it. `send` must transmit exactly these headers (names in the
 * letter case given) and bytes: no added Content-Type, no re-encoding of the body.
 */
export interface TargetRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

export interface TargetResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

export interface RunningTarget {
  /** The origin the app is reached at, e.g. `http://127.0.0.1:4321` (used as the signed URL's origin). */
  origin: string;
  /**
   * What the path a client calls has before the suite's paths, when the app sees it too (a REST
   * API's stage: `/prod`). `origin` ends with it; a token for another host must name it as well.
   */
  pathPrefix?: string;
  send(request: TargetRequest): Promise<TargetResponse>;
  close(): Promise<void>;
}
