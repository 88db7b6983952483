import { captureRawBody } from '@mailroom/core';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { probeRawBody } from '../src/guard';

// The probe on its own, over plain Express 5 apps (the version @nestjs/platform-express 11 and 12 use).
describe('probeRawBody', () => {
  it('finds nothing to check in an app without body parsers', async () => {
    expect(await probeRawBody(express())).toEqual({ lost: [], inconclusive: [] });
  });

  it('reports each content type a global parser consumes without keeping the bytes', async () => {
    const app = express();
    app.use(express.json());
    app.use(express.text());
    expect((await probeRawBody(app)).lost).toEqual(['application/json', 'text/plain']);
  });

  it('accepts parsers that keep the bytes on req.rawBody', async () => {
    const app = express();
    app.use(express.json({ verify: captureRawBody }));
    app.use(express.urlencoded({ extended: false, verify: captureRawBody }));
    expect((await probeRawBody(app)).lost).toEqual([]);
  });

  it('accepts express.raw(), whose Buffer body is the bytes themselves', async () => {
    const app = express();
    app.use(express.raw({ type: () => true }));
    expect((await probeRawBody(app)).lost).toEqual([]);
  });

  it('judges only the first parser that reads a content type, as requests would meet them', async () => {
    const app = express();
    app.use(express.json({ verify: captureRawBody }));
    app.use(express.json());
    expect((await probeRawBody(app)).lost).toEqual([]);
  });

  it('ignores parsers mounted on a path, which may not cover the Mailroom routes', async () => {
    const app = express();
    app.use('/legacy', express.json());
    expect((await probeRawBody(app)).lost).toEqual([]);
  });

  it('treats anything that is not an Express app as having no parsers', async () => {
    expect(await probeRawBody(undefined)).toEqual({ lost: [], inconclusive: [] });
    expect(await probeRawBody({ router: { stack: 'nope' } })).toEqual({ lost: [], inconclusive: [] });
  });
});
