import { ValidationError } from './validation-error';

/** A retry-delay expression could not be parsed or evaluated; `position` is the 0-based offset of the fault. */
export class RetryDelaySyntaxError extends ValidationError {
  override name = 'RetryDelaySyntaxError';
  readonly expression: string;
  readonly position: number;

  constructor(expression: string, position: number, reason: string) {
    const shown = expression.length > 120 ? `${expression.slice(0, 117)}...` : expression;
    const caret = position <= 120 ? `\n  ${shown}\n  ${' '.repeat(position)}^` : '';
    super('retryDelay', `${reason} at position ${position} of "${shown}"${caret}`);
    this.expression = expression;
    this.position = position;
  }
}
