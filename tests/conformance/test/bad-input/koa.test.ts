import { runBadInputSuite } from '../../src/bad-input/run-bad-input-suite';
import { koaTargetExceptDeliveries } from '../../src/targets/koa';

runBadInputSuite(koaTargetExceptDeliveries);
