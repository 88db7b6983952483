import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * An Express route handler, typed by its shape instead of by `express`'s own types.
 *
 * Why: the `@types/express` majors are mutually incompatible (a v5 `RequestHandler` is not assignable
 * to a v4 app's `post`, their `app.get` overloads differ), so a type imported from `express` only
 * fits the one copy it resolves to. In a monorepo with Express 4 and 5 side by side, or when this
 * package's `express` resolves elsewhere than the app's, that breaks the user's build. This shape is
 * what both majors pass a handler (their `Request` extends `IncomingMessage`, `Response` extends
 * `ServerResponse`), so it is assignable to `RequestHandler` of either and needs no `@types/express`.
 */
export type MailroomRequestHandler = (
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;
