export type { MessageHandler, Receiver } from './create-receiver';
export type { InboundRequest, OutboundResponse } from './options';
export type { ReceivedMessage } from './messages';
export type { ReceiverOptions, ReceiveStage } from './options';
export type { CallbackMessage, CallbackOptions, DecodedBody, FailureCallbackMessage, SchemaOutput } from './messages';
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from './options';
