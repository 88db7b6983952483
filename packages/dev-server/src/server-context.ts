import type { DevCredentials } from './credentials';
import type { Engine } from './engine/create-engine';
import type { EngineConfig } from './engine/engine-config';
import type { Scheduler } from './engine/scheduler';
import type { EventBus } from './events';
import type { PlanLimits } from './plans';
import type { Store } from './state/store';

/** What every HTTP handler works with: one object, built once by `startDevServer`. */
export interface ServerContext {
  store: Store;
  engine: Engine;
  scheduler: Scheduler;
  events: EventBus;
  credentials: DevCredentials;
  plan: PlanLimits;
  config: EngineConfig;
}
