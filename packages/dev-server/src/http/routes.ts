import { managementRoutes } from '../management/routes';
import { workflowDlqRoutes } from '../workflows/dlq-actions';
import { runLogRoutes } from '../workflows/run-logs';
import { workflowRunRoutes } from '../workflows/routes';
import { waiterRoutes } from '../workflows/waiters';
import { signingKeyRoutes } from './auth';
import { dlqRoutes } from './dlq';
import { messageRoutes } from './messages';
import { queueRoutes } from './queues';
import type { Route, ServerContext } from './router';
import { scheduleRoutes } from './schedules';
import { sendingRoutes } from './sending';
import { topicRoutes } from './topics';
import { workbenchRoutes } from './workbench';

/** Every route the dev server answers: the messaging interface, the workflow endpoints, management, and its own `/dev/` ones. */
export function allRoutes(ctx: ServerContext): Route[] {
  return [
    ...topicRoutes(ctx),
    ...sendingRoutes(ctx),
    ...messageRoutes(ctx),
    ...queueRoutes(ctx),
    ...scheduleRoutes(ctx),
    ...dlqRoutes(ctx),
    ...signingKeyRoutes(ctx),
    ...workflowRunRoutes(ctx),
    ...waiterRoutes(ctx),
    ...runLogRoutes(ctx),
    ...workflowDlqRoutes(ctx),
    ...managementRoutes(ctx),
    ...workbenchRoutes(ctx),
  ];
}
