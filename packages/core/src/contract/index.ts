export { defineDestination, isDestinationDefinition, type BodyOf, type DestinationDefinition, type PayloadOf } from './define-destination';
export { validateWithSchema, isStandardSchema } from './validate-with-schema';
export { SchemaValidationError, issuePath } from './schema-issues-error';
