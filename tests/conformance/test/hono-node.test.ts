import { runConformanceSuite } from '../src/run-suite';
import { honoNodeTarget } from '../src/targets/hono';

runConformanceSuite(honoNodeTarget);
