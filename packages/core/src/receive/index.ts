export type { EndpointOptions, MessageHandler, Receiver } from './create-receiver';
export type { InboundRequest, OutboundResponse } from './receiver-options';
export type { ReceivedMessage } from './received-messages';
export type { ReceiverOptions, ReceiveStage } from './receiver-options';
export type { CallbackMessage, CallbackOptions, DecodedBody, FailureCallbackMessage, SchemaOutput } from './received-messages';
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from './receiver-options';
