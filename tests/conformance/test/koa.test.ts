import { runConformanceSuite } from '../src/run-suite';
import { koaTargetExceptDeliveries } from '../src/targets/koa';

runConformanceSuite(koaTargetExceptDeliveries);
