export { createMessagingClient, type CallOptions, type MessagingClient, type MessagingClientOptions } from './client';
export type {
  ApiDestination,
  BatchItem,
  BatchResult,
  EnqueueRequest,
  EnqueueResponse,
  EnqueueResult,
  PublishRequest,
  SendOptions,
  UrlDestination,
} from './sending';
export type { DlqPage, DlqSelection, WorkflowDlqFilter, WorkflowDlqPage } from './dlq';
export type { WorkflowRunFilter, WorkflowRunPage } from './workflows';
export type { NotifyResult, RestartedRun, Waiter, WorkflowRun } from '../schemas/resources';
export type { DlqFilter, LogFilter, MessageFilter, OneOrMany, PageOptions } from './listing';
export type { CancelResult, CancelSelection, LogPage } from './messages';
export type { PinnedLimits, QueueSettings, UnpinnedLimits } from './queues';
export type { ScheduleOptions, ScheduleRequest } from './schedules';
export type { EndpointRef, NewEndpoint } from './url-groups';
// The types of the `transport` client option, for anyone writing their own.
export type { HttpTransport, HttpTransportRequest, HttpTransportResponse } from '../http';
