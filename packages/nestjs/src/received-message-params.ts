// Which methods declare a `@ReceivedMessage()` parameter, recorded by the decorator itself, so the
// start-up checks need neither Nest's private route-argument metadata nor `reflect-metadata`.
const methodsByClass = new WeakMap<Function, Set<string | symbol>>();

/** The parameter decorator's enhancer: remembers `Class.method` as a user of the message. */
export const recordReceivedMessageParam: ParameterDecorator = (target, key) => {
  if (key === undefined) return; // a constructor parameter: not a route argument, Nest rejects it itself
  const type = (target as { constructor: Function }).constructor;
  const methods = methodsByClass.get(type) ?? new Set<string | symbol>();
  methods.add(key);
  methodsByClass.set(type, methods);
};

/** True when `type.method` (or the method it inherits) has a `@ReceivedMessage()` parameter. */
export function usesReceivedMessage(type: Function, method: string): boolean {
  for (
    let current: unknown = type;
    typeof current === 'function' && current !== Function.prototype;
    current = Object.getPrototypeOf(current)
  ) {
    if (methodsByClass.get(current)?.has(method) === true) return true;
  }
  return false;
}
