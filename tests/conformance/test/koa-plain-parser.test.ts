import { runConformanceSuite } from '../src/run-suite';
import { koaTargetPlainParser } from '../src/targets/koa';

runConformanceSuite(koaTargetPlainParser);
