import { afterAll, describe } from 'vitest';
import { bodyCases } from './cases/bodies';
import { bodyConsumedCases } from './cases/body-consumed';
import { callbackCases } from './cases/callbacks';
import { headerCases } from './cases/headers';
import { idempotencyCases } from './cases/idempotency';
import { limitCases } from './cases/limits';
import { schemaAndHandlerCases } from './cases/schema-and-handler';
import { signatureCases } from './cases/signature';
import { useTarget, type Harness } from './cases/support/harness';
import type { ConformanceTarget } from './target';

/** The groups of cases, by theme; each is one file in `src/cases`. */
export const CASE_THEMES = ['signature', 'bodies', 'limits', 'schema-and-handler', 'headers', 'callbacks', 'idempotency'] as const;
export type CaseTheme = (typeof CASE_THEMES)[number];

export interface SuiteOptions {
  /** Run only these themes (default: all). For narrowing down a failure, not for hiding one. */
  themes?: readonly CaseTheme[];
}

const THEMES: Record<CaseTheme, (main: Harness, target: ConformanceTarget) => void> = {
  signature: signatureCases,
  bodies: bodyCases,
  limits: limitCases,
  'schema-and-handler': schemaAndHandlerCases,
  headers: headerCases,
  callbacks: callbackCases,
  idempotency: idempotencyCases,
};

/**
 * Registers the behaviour suite for one target as vitest `describe`/`it` blocks, so an adapter's test
 * file is two lines:
 *
 * @example
 * import { runConformanceSuite } from '../src/run-suite';
 * import { express5Target } from '../src/targets/express';
 * runConformanceSuite(express5Target);
 *
 * The target is started once per receiver profile (default, publicUrl, headerPrefix Upstash, no keys),
 * with a fixed clock; every case gets fresh handler spies. A target with `quirks.bodyConsumed` runs
 * the reduced "fix-it 500" suite instead.
 */
export function runConformanceSuite(target: ConformanceTarget, options: SuiteOptions = {}): void {
  if (target.close) afterAll(() => target.close?.());
  if (target.quirks?.bodyConsumed) {
    describe(`conformance: ${target.name} (body consumed by a global parser: reduced suite)`, () => {
      bodyConsumedCases(useTarget(target, { name: 'default' }), target);
    });
    return;
  }
  const themes = options.themes ?? CASE_THEMES;
  describe(`conformance: ${target.name}`, () => {
    const main = useTarget(target, { name: 'default' });
    for (const theme of themes) THEMES[theme](main, target);
  });
}
