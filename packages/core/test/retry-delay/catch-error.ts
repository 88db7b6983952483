/** Runs `action` and returns what it threw, failing the test when it throws nothing. */
export function catchError(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw, but it returned');
}
