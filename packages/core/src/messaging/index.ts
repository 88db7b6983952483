export { createMessagingClient, type MessagingClient, type MessagingClientOptions } from './client';
export type { EnqueueRequest, EnqueueResponse, EnqueueResult } from './enqueue';
export type { ApiDestination, UrlDestination } from './enqueue';
export type { SendOptions } from './enqueue';
export type { EndpointRef, NewEndpoint } from './resources';
export type { WorkflowDlqFilter, WorkflowDlqPage } from './resources';
// The types of the `transport` client option, for anyone writing their own.
export type { HttpTransport, HttpTransportRequest, HttpTransportResponse } from '../http';
