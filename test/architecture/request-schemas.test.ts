import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestSchemaOffences } from './request-schemas.js';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Request schemas still declared outside their service's routes, each with why: a new one fails, and so does a
 * removed one (its line goes with it). None is left: the ledger's write bodies and its limits body moved to its
 * routes (the limits' stored form has its own decoder, store/mapping-item.ts).
 */
const KNOWN: string[] = [];

describe('request schemas live in their service’s routes', () => {
  it('holds for every route file (the known ones aside)', () => {
    const files = globSync('lib/*/routes/**/*.ts', { cwd: ROOT })
      .filter((file) => !file.endsWith('.test.ts'))
      .sort();
    expect(files.length).toBeGreaterThan(80);
    const offences = files.flatMap((file) =>
      requestSchemaOffences(file, readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(offences.sort()).toEqual([...KNOWN].sort());
  });

  it('names a body, a read body, a validated query and a parse built elsewhere; lets the routes’ own pass', () => {
    const planted = [
      "import * as v from 'valibot';",
      "import { openapi } from '../../openapi/describe.js';",
      "import { readJsonBody } from '../../http/json-body.js';",
      "import { validate } from '../../validation/validate.js';",
      "import { metadataMap } from '../../validation/common.js';",
      "import { orderSchema, filterSchema } from '../domain/order.js';",
      "import { noteSchema } from '../commands/note.js';",
      "import { refundSchema } from './requests.js';",
      "import { tagSchema } from '../../auth/routes/requests.js';",
      'export function refundRoute(app) {',
      "  app.post('/refunds', openapi(OPENAPI_SPECS && { operationId: 'refund', body: v.array(orderSchema) }),",
      '    async (c) => {',
      '      const body = await readJsonBody(c, refundSchema);',
      "      const filter = validate(filterSchema, c.req.query(), 'query');",
      '      const note = v.parse(noteSchema, body.note);',
      "      const tags = validate(v.array(tagSchema), body.tags, 'body.tags');",
      "      const metadata = validate(metadataMap, body.metadata, 'body.metadata');",
      '      return c.json({ body, filter, note, tags, metadata });',
      '    });',
      '}',
    ].join('\n');
    expect(requestSchemaOffences('lib/shop/routes/refunds.ts', planted)).toEqual([
      'lib/shop/routes/refunds.ts: orderSchema from ../domain/order.js',
      'lib/shop/routes/refunds.ts: filterSchema from ../domain/order.js',
      'lib/shop/routes/refunds.ts: noteSchema from ../commands/note.js',
      'lib/shop/routes/refunds.ts: tagSchema from ../../auth/routes/requests.js',
    ]);
    expect(requestSchemaOffences('lib/shop/domain/order.ts', planted)).toEqual([]);
  });
});
