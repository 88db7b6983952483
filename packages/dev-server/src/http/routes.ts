import { managementRoutes } from '../management/routes';
import type { Service } from '../service';
import { runLogRoutes } from '../workflows/run-logs';
import { workflowDlqRoutes, workflowRunRoutes } from '../workflows/run-routes';
import { waiterRoutes } from '../workflows/waiters';
import { dlqRoutes } from './dlq';
import { signingKeyRoutes } from './keys';
import { messageListRoutes } from './message-list';
import { messageRoutes } from './messages';
import { queueRoutes } from './queues';
import type { Route } from './router';
import { scheduleRoutes } from './schedules';
import { sendingRoutes } from './sending';
import { urlGroupRoutes } from './url-groups';
import { workbenchRoutes } from './workbench';
import { fixtureRoutes } from './fixtures';

/** Every route the dev server answers: the messaging interface, the workflow endpoints, management, and its own `/dev/` ones. */
export function allRoutes(service: Service): Route[] {
  return [
    ...urlGroupRoutes(service),
    ...sendingRoutes(service),
    ...messageRoutes(service),
    ...queueRoutes(service),
    ...scheduleRoutes(service),
    ...dlqRoutes(service),
    ...signingKeyRoutes(service),
    ...workflowRunRoutes(service),
    ...waiterRoutes(service),
    ...runLogRoutes(service),
    ...workflowDlqRoutes(service),
    ...managementRoutes(service),
    ...workbenchRoutes(service),
    ...fixtureRoutes(service),
    ...messageListRoutes(service),
  ];
}
