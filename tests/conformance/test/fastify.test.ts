import { runConformanceSuite } from '../src/run-suite';
import { fastifyTarget } from '../src/targets/fastify';

runConformanceSuite(fastifyTarget);
