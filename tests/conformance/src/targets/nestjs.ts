import 'reflect-metadata';
import type { CallbackMessage, FailureCallbackMessage } from '@mailroom/core';
import { MailroomModule, OnCallback, OnFailureCallback, OnMessage, ReceivedMessage } from '@mailroom/nestjs';
import { All, Controller, type NestApplicationOptions, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { RequestListener } from 'node:http';
import type { ConformanceTarget, TargetSetup } from '../target';
import { serveOnPort0 } from './node-server';

/**
 * A Nest app built with `@nestjs/testing`, serving the suite's three endpoints as one controller
 * whose methods carry `@OnMessage` / `@OnCallback` / `@OnFailureCallback`. `@All` rather than
 * `@Post`, so a wrong method still reaches the pipeline and gets its 405 with `Allow`. Served over
 * port 0 by the suite's own client, which sends exactly the suite's bytes and headers.
 */
function nestTarget(name: string, appOptions: NestApplicationOptions, quirks: ConformanceTarget['quirks'] = {}): ConformanceTarget {
  return {
    name,
    // The module checks its keys at start-up (module init), as the issue asks of the Nest adapter.
    quirks: { failsAtStartupWithoutKeys: true, ...quirks },
    start: async (setup) => {
      const moduleRef = await Test.createTestingModule({
        imports: [MailroomModule.forRoot(setup.options)],
        controllers: [conformanceController(setup)],
      }).compile();
      // Nest 12's one-argument form: `createNestApplication(undefined, options)` would drop the options.
      const app = moduleRef.createNestApplication({ logger: false, ...appOptions });
      await app.init();
      const running = await serveOnPort0(app.getHttpAdapter().getInstance() as RequestListener);
      return {
        ...running,
        close: async () => {
          await running.close();
          await app.close();
        },
      };
    },
  };
}

/** One controller per start: the paths, schemas and handlers come from the suite's setup. */
function conformanceController(setup: TargetSetup): Type {
  @Controller()
  class ConformanceController {
    @All(setup.paths.destination)
    @OnMessage(setup.destination.definition)
    destination(@ReceivedMessage() message: ReceivedMessage) {
      return setup.destination.handler(message);
    }

    @All(setup.paths.callback)
    @OnCallback(setup.callbackOptions)
    callback(@ReceivedMessage() message: CallbackMessage) {
      return setup.callback(message);
    }

    @All(setup.paths.failureCallback)
    @OnFailureCallback(setup.failureCallbackOptions)
    failureCallback(@ReceivedMessage() message: FailureCallbackMessage) {
      return setup.failureCallback(message);
    }
  }
  return ConformanceController;
}

/**
 * `rawBody: true`, as the docs tell users. Nest's global JSON parser then runs before any route and
 * refuses malformed JSON with its own 400, which Mailroom never sees.
 */
export const nestRawBodyTarget = nestTarget('nestjs (rawBody: true)', { rawBody: true }, { frameworkParsesJson: true });

/** `bodyParser: false`: no parser at all, so the guard reads the unparsed stream itself. */
export const nestNoBodyParserTarget = nestTarget('nestjs (bodyParser: false)', { bodyParser: false });
