import { getRequestListener } from '@hono/node-server';
import type { ConformanceTarget } from '../target';
import { honoApp } from './hono-app';
import { serveOnPort0 } from './node-server';

/** Hono on Node through `@hono/node-server`, over a real socket on port 0. */
export const honoNodeTarget: ConformanceTarget = {
  name: 'hono on node (@hono/node-server)',
  start: async (setup) => serveOnPort0(getRequestListener(honoApp(setup).fetch)),
};
