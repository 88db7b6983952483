import { captureRawBody, createMailroom, type MailroomRequestHandler } from '@mailroom/adapters/express';
import express5 from 'express';
import express4 from 'express4';
import type { RequestListener } from 'node:http';
import type { ConformanceTarget, TargetSetup } from '../target';
import { serveOnPort0 } from './node-server';

/**
 * What the app does before Mailroom's routes: nothing, a parser that skips deliveries (the documented
 * set-up), a parser that keeps raw bytes for Mailroom, or one that eats the body.
 */
type GlobalParser = 'none' | 'json-except-deliveries' | 'json-verify' | 'json';

/** The part of an Express app (4 or 5) a target uses, so one mount function serves both majors. */
interface ExpressApp extends RequestListener {
  use(handler: unknown): unknown;
  all(path: string, handler: MailroomRequestHandler): unknown;
}

interface ExpressModule {
  (): ExpressApp;
  json(options?: { verify?: typeof captureRawBody }): MailroomRequestHandler;
}

// Both majors' default exports fit the shape; the casts only erase their (mutually incompatible) types.
const EXPRESS_5 = express5 as unknown as ExpressModule;
const EXPRESS_4 = express4 as unknown as ExpressModule;

/**
 * An Express app serving the suite's three endpoints with `app.all`, so a wrong method still reaches
 * the pipeline (405 with `Allow`), over a real socket on port 0.
 */
function expressTarget(name: string, expressModule: ExpressModule, parser: GlobalParser = 'none'): ConformanceTarget {
  return {
    name,
    ...(parser === 'json' ? { quirks: { bodyConsumed: true } } : {}),
    ...(parser === 'json-verify' ? { quirks: { frameworkParsesJson: true } } : {}),
    start: async (setup) => {
      const app = expressModule();
      if (parser === 'json-except-deliveries') app.use(createMailroom(setup.options).exceptDeliveries(expressModule.json()));
      if (parser === 'json-verify') app.use(expressModule.json({ verify: captureRawBody }));
      if (parser === 'json') app.use(expressModule.json());
      mount(app, setup);
      return serveOnPort0(app);
    },
  };
}

function mount(app: ExpressApp, setup: TargetSetup): void {
  const mailroom = createMailroom(setup.options);
  app.all(setup.paths.destination, mailroom.destination(setup.destination.definition, setup.destination.handler));
  app.all(setup.paths.callback, mailroom.callback(setup.callback, setup.callbackOptions));
  app.all(setup.paths.failureCallback, mailroom.failureCallback(setup.failureCallback, setup.failureCallbackOptions));
}

export const express5Target = expressTarget('express 5', EXPRESS_5);
export const express4Target = expressTarget('express 4', EXPRESS_4);
/** A global `express.json()` that skips deliveries: the documented set-up for apps with a global parser. */
export const expressExceptDeliveriesTarget = expressTarget(
  'express 5 + global exceptDeliveries(express.json())',
  EXPRESS_5,
  'json-except-deliveries',
);
/** A global `express.json({ verify: captureRawBody })`: the older way out, which parses before verifying. */
export const expressJsonVerifyTarget = expressTarget(
  'express 5 + global express.json({ verify: captureRawBody })',
  EXPRESS_5,
  'json-verify',
);
/** A plain global `express.json()`: the bytes are gone, so every JSON request must get the fix-it 500. */
export const expressJsonConsumedTarget = expressTarget('express 5 + plain global express.json()', EXPRESS_5, 'json');
