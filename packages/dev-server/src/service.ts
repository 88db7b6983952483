import { type DevCredentials, keysInForce } from './credentials';
import { type Actions, createActions } from './engine/actions';
import { type Acceptance, createAcceptance } from './engine/acceptance';
import { createEngine, type Engine, type EngineDeps } from './engine/create-engine';
import { createFaults, type Faults } from './engine/faults';
import { createScheduler, type Scheduler } from './engine/scheduler';
import { createWaits, type Waits } from './engine/waits';
import type { EventBus } from './events';
import type { EngineConfig, PlanLimits } from './settings';
import type { Store } from './state/store';

/**
 * The emulated service, whole: the state and its journal, the engine that delivers, how requests are
 * accepted, schedules, workflow waits and the actions users take. Every route handler, the dev
 * server's HTTP layer and an in-process test service work with this one object; nothing in it knows
 * about HTTP.
 */
export interface Service {
  store: Store;
  engine: Engine;
  acceptance: Acceptance;
  scheduler: Scheduler;
  waits: Waits;
  actions: Actions;
  /** Faults on demand in force: the engine and the sending routes apply them. */
  faults: Faults;
  events: EventBus;
  credentials: DevCredentials;
  plan: PlanLimits;
  config: EngineConfig;
}

/** What a service is made of; `engine` chooses its clock and how attempts are sent (defaults: real time, undici). */
export interface ServiceParts {
  store: Store;
  events: EventBus;
  credentials: DevCredentials;
  plan: PlanLimits;
  config: EngineConfig;
  engine?: EngineDeps;
}

/** Wires a service over an open store. Nothing is delivered or fired until {@link startService}. */
export function createService(parts: ServiceParts): Service {
  const { store, events, config, plan } = parts;
  const faults = createFaults(store, config.now);
  const engine = createEngine(store, config, events, { ...parts.engine, faults });
  const acceptance = createAcceptance({ store, engine, events, plan, config });
  const scheduler = createScheduler({ store, engine, config, events, fire: acceptance.fireSchedule });
  const waits = createWaits({ store, engine, events, config, acceptance });
  const actions = createActions({ store, engine, events, config, waits, acceptance });
  return { ...parts, engine, acceptance, scheduler, waits, actions, faults };
}

/** Starts delivering what the state holds (after a restart: what was pending), firing schedules, timing out waits. */
export function startService(service: Service): void {
  service.engine.start();
  service.scheduler.start();
  service.waits.start();
}

/** Stops delivering (running attempts are made again after a restart) and makes the state durable. */
export async function closeService(service: Service): Promise<void> {
  service.waits.stop();
  await service.engine.close();
  await service.store.close();
}

/**
 * After a write to the journal failed (a full disk), while the store refuses every change and shows
 * what the journal really holds: stops delivering, and once the disk takes writes again starts
 * everything anew on that state. Resolves then, or when the store was closed meanwhile. Call it
 * synchronously when the store starts refusing: no attempt starts after that.
 */
export async function recoverStorage(service: Service, parts: ServiceParts): Promise<void> {
  service.waits.stop();
  await service.engine.close();
  if (!(await parts.store.writable())) return;
  Object.assign(service, createService(parts));
  startService(service);
  parts.events.emit({ type: 'storage', state: 'resumed', reason: 'a probe write was synced' });
}

/**
 * The secrets the service knows by value, which answers to the read-only token never show: every
 * webhook event id a run issued (the whole credential of its public URL), the signing keys in force,
 * the full token and the management password.
 */
export function secretValues(service: Service): string[] {
  const { credentials } = service;
  const keys = keysInForce(service.store.state, credentials);
  const secrets = [
    credentials.token,
    credentials.managementPassword,
    credentials.currentSigningKey,
    credentials.nextSigningKey,
    keys.current,
    keys.next,
  ];
  for (const run of service.store.state.runs.values()) if (run.webhooks) secrets.push(...run.webhooks);
  return secrets;
}
