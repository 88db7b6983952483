import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ValidationError } from '../errors/validation-error';

/** Turns Standard Schema issue paths into `items.0.sku`, the form our errors use everywhere. */
export function issuePath(issue: StandardSchemaV1.Issue): string {
  return (issue.path ?? []).map((segment) => String(typeof segment === 'object' && segment !== null ? segment.key : segment)).join('.');
}

/** A payload or a received body broke its destination's schema. `issues` keeps every problem found. */
export class SchemaValidationError extends ValidationError {
  override name = 'SchemaValidationError';
  readonly issues: ReadonlyArray<StandardSchemaV1.Issue>;

  constructor(subject: string, issues: ReadonlyArray<StandardSchemaV1.Issue>) {
    const listed = issues
      .slice(0, 5)
      .map((issue) => `${issuePath(issue) || '(root)'}: ${issue.message}`)
      .join('; ');
    const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
    super(subject, `does not match its schema: ${listed}${more}`, undefined, 'SCHEMA_VALIDATION');
    this.issues = issues;
  }
}
