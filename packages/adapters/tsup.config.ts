import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared';

// One entry per framework: an app loads only its own framework's adapter, and no framework is
// required to install the package (each is an optional peer).
export default defineConfig(
  packageBuild({
    cloudflare: 'src/cloudflare.ts',
    express: 'src/express.ts',
    fastify: 'src/fastify.ts',
    h3: 'src/h3.ts',
    hono: 'src/hono.ts',
    koa: 'src/koa.ts',
    lambda: 'src/lambda.ts',
    next: 'src/next.ts',
    'next-pages': 'src/next-pages.ts',
    sveltekit: 'src/sveltekit.ts',
  }),
);
