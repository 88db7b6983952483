import type { Reflector } from '@nestjs/core';
import type { DiscoveredWrapper } from './discover-routes';

// What `@Inject(token)` records, in Nest's words; unchanged since Nest 5 and the same in 11 and 12.
const CONSTRUCTOR_DEPENDENCIES = 'self:paramtypes';
const PROPERTY_DEPENDENCIES = 'self:properties_metadata';

/**
 * The names of the classes and factories that inject `token`: explicit `@Inject(token)` on a
 * constructor parameter or a property, or `inject: [token]` on a factory provider. Type-based
 * injection cannot name a string token, so nothing else can reach it.
 */
export function dependentsOf(
  reflector: Reflector,
  wrappers: readonly DiscoveredWrapper[],
  token: string,
  ignore: readonly Function[],
): string[] {
  const names = new Set<string>();
  for (const wrapper of wrappers) {
    const { metatype } = wrapper;
    if (typeof metatype !== 'function' || ignore.includes(metatype)) continue;
    // A factory's metatype is the factory function; its name says nothing, the provider token does.
    if (wrapper.inject) {
      if (wrapper.inject.some((dependency) => dependency === token || (dependency as { token?: unknown } | null)?.token === token)) {
        names.add(`provider ${describeToken(wrapper.name)}`);
      }
      continue;
    }
    const parameters = reflector.get<Array<{ param?: unknown }> | undefined>(CONSTRUCTOR_DEPENDENCIES, metatype) ?? [];
    const properties = reflector.get<Array<{ type?: unknown }> | undefined>(PROPERTY_DEPENDENCIES, metatype) ?? [];
    if (parameters.some((dependency) => dependency.param === token) || properties.some((dependency) => dependency.type === token)) {
      names.add(metatype.name);
    }
  }
  return [...names];
}

function describeToken(token: unknown): string {
  if (typeof token === 'function') return token.name;
  return typeof token === 'symbol' ? token.toString() : String(token);
}
