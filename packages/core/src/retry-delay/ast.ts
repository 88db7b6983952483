import type { RetryDelayFunctionName } from './functions';

/** The four binary operators of the language, all left-associative. */
export type RetryDelayBinaryOperator = '+' | '-' | '*' | '/';

/**
 * A node of a parsed retry-delay expression. `position` is the 0-based offset in the source of the
 * token that introduced the node (the operator for `binary`, the name for `call`), so evaluation
 * errors can point at the exact spot.
 */
export type RetryDelayNode =
  | { readonly kind: 'number'; readonly value: number; readonly position: number }
  | { readonly kind: 'retried'; readonly position: number }
  | { readonly kind: 'negate'; readonly operand: RetryDelayNode; readonly position: number }
  | {
      readonly kind: 'binary';
      readonly operator: RetryDelayBinaryOperator;
      readonly left: RetryDelayNode;
      readonly right: RetryDelayNode;
      readonly position: number;
    }
  | {
      readonly kind: 'call';
      readonly name: RetryDelayFunctionName;
      readonly args: readonly RetryDelayNode[];
      readonly position: number;
    };
