import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fileCycles,
  folderLoops,
  importsOf,
  importViolations,
  rulesOf,
  tenancyBreaches,
} from './layering.js';

const ROOT = join(import.meta.dirname, '..', '..');
const RULES = rulesOf(readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8'));

/** Every source file the rules cover (tests aside), by repository path. */
function repositorySources(): Map<string, string> {
  const files = globSync('{lib,events,functions,infra,cli,bench,console}/**/*.{ts,tsx}', {
    cwd: ROOT,
  });
  return new Map(
    files
      .filter((file) => !/\.test\.tsx?$/.test(file) && !file.endsWith('.d.ts'))
      .sort()
      .map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]),
  );
}

const DOMAIN_RULE = RULES.imports[0]!.rule;
const STORE_RULE = RULES.imports[1]!.rule;
const LOOP_RULE = RULES.loops[0]!.rule;

/**
 * Imports that break a row and are not removed yet, each with why: a new one fails, and so does a removed one
 * (its line goes with it).
 */
const KNOWN: string[] = [];

/** Import cycles between files not removed yet, each with why; the same bargain as KNOWN. None is left. */
const KNOWN_CYCLES: string[] = [];

describe('the layering rules of docs/architecture.md', () => {
  const edges = importsOf(repositorySources());

  it('hold for every import of the repository', () => {
    expect(importViolations(RULES, edges)).toEqual(KNOWN);
  });

  it('leave no loop between folders', () => {
    expect(folderLoops(RULES, edges)).toEqual([]);
  });

  it('leave no import cycle between files (type-only imports aside)', () => {
    expect(fileCycles(edges)).toEqual(KNOWN_CYCLES);
  });
});

/**
 * Each service's one function from an environment to its stores (docs/decisions/tenancy.md): the ledger's scope, the
 * ledger writer's (no token: an intent's environment) and the hold sweeper's (a due hold's environment), payments' and
 * webhooks'. A walk from a token to an item key
 * passes through it (test/integration/ledger/ledger-tenancy-channel.test.ts walks the ledger's at run time).
 */
const TENANCY_CHANNELS = new Set([
  'lib/ledger/scope.ts',
  'lib/ledger/write/writer-env.ts',
  'lib/ledger/worker/hold-sweep-deps.ts',
  'lib/payments/app.ts',
  'lib/webhooks/environment-stores.ts',
]);

describe('the tenancy channel', () => {
  it('each service opens its environments’ clients in one place, and nothing reads the async context', () => {
    const sources = repositorySources();
    expect(tenancyBreaches(sources, TENANCY_CHANNELS)).toEqual([]);
    for (const channel of TENANCY_CHANNELS)
      expect(sources.get(channel)).toContain('forEnvironment(');
  });

  it('names a planted breach of each kind', () => {
    const planted = new Map([
      ['lib/shop/app.ts', 'const doc = runtime.clients.forEnvironment(environment);\n'],
      ['lib/shop/scope.ts', 'const doc = clients.forEnvironment(environment);\n'],
      ['lib/cart/context.ts', "import { AsyncLocalStorage } from 'node:async_hooks';\n"],
      ['lib/dynamo/clients.ts', 'return clients.forEnvironment(environment);\n'],
    ]);
    expect(tenancyBreaches(planted, new Set(['lib/shop/scope.ts']))).toEqual([
      "lib/shop/app.ts: opens an environment's client outside its service's channel",
      'lib/cart/context.ts: imports async_hooks',
    ]);
  });
});

describe('the check itself, on a planted violation', () => {
  it('reads every row of the table', () => {
    expect(RULES.imports).toHaveLength(9);
    expect(RULES.loops).toHaveLength(1);
    expect(DOMAIN_RULE).toMatch(/^The domain is rules as plain values/);
  });

  // A small repository of its own: a domain that reads DynamoDB, a store that answers HTTP, and two folders that
  // import each other.
  const fixture = new Map([
    [
      'lib/shop/domain/price.ts',
      "import { GetCommand } from '@aws-sdk/lib-dynamodb';\nimport type { Row } from '../store/rows.js';\nimport { createHash } from 'node:crypto';\n",
    ],
    ['lib/shop/store/rows.ts', "import type { Hono } from 'hono';\nexport type Row = {};\n"],
    ['lib/shop/routes/prices.ts', "import { price } from '../domain/price.js';\n"],
    ['lib/cart/app.ts', "import { price } from '../shop/domain/price.js';\n"],
    ['lib/shop/app.ts', "import { cart } from '../cart/app.js';\n"],
    ['lib/shop/domain/tax.ts', "import { readFileSync } from 'fs';\n"],
  ]);
  const planted = importsOf(fixture);

  it('names each import that breaks a row, and only those', () => {
    expect(importViolations(RULES, planted)).toEqual([
      `${DOMAIN_RULE}: lib/shop/domain/price.ts -> @aws-sdk/lib-dynamodb`,
      `${DOMAIN_RULE}: lib/shop/domain/price.ts -> lib/shop/store/rows.ts`,
      `${DOMAIN_RULE}: lib/shop/domain/tax.ts -> node:fs`,
      `${STORE_RULE}: lib/shop/store/rows.ts -> hono`,
    ]);
  });

  it('names an import cycle between files once, and not one closed only by a type-only import', () => {
    const files = importsOf(
      new Map([
        ['lib/a/one.ts', "import { two } from './two.js';\n"],
        ['lib/a/two.ts', "export { three } from './three.js';\n"],
        [
          'lib/a/three.ts',
          "import { one } from './one.js';\nimport type { Four } from './four.js';\n",
        ],
        [
          'lib/a/four.ts',
          "import type { One } from './one.js';\nexport type { Two } from './two.js';\n",
        ],
        ['lib/a/five.ts', "import { type Six } from './six.js';\n"],
        ['lib/a/six.ts', "const five = await import('./five.js');\n"],
      ]),
    );
    expect(fileCycles(files)).toEqual([
      'lib/a/five.ts -> lib/a/six.ts -> lib/a/five.ts',
      'lib/a/one.ts -> lib/a/two.ts -> lib/a/three.ts -> lib/a/one.ts',
    ]);
  });

  it('names a loop between two folders from each side', () => {
    expect(folderLoops(RULES, planted)).toEqual([
      `${LOOP_RULE}: lib/cart -> lib/shop -> lib/cart`,
      `${LOOP_RULE}: lib/shop -> lib/cart -> lib/shop`,
    ]);
  });
});
