import { describe, expect, it } from 'vitest';
import { parseQueryTemplate, resolveQueryTemplate } from './query-template.js';
import { parseSchemaInput, readSchemaVersion } from './schema-data.js';
import { accountMetadataUnderSchema, applyTransactionSchema } from './transaction-schema.js';

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('query templates', () => {
  const template = parseQueryTemplate(
    {
      resource: 'accounts',
      params: { pageSize: 2, sort: 'address:asc' },
      vars: { tier: 'string', min: { type: 'int', default: '10' }, who: { type: 'string' } },
      body: {
        $and: [
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a query template's own ${var} placeholder, not JavaScript's
          { $match: { 'metadata[tier]': '${tier}' } },
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a query template's own ${var} placeholder, not JavaScript's
          { $gte: { 'balance[USD]': '${min}' } },
          { $match: { address: 'users:$who' } },
        ],
      },
    },
    'queries.q',
  );

  it('puts typed values where a whole string names a variable, text elsewhere, defaults for the rest', () => {
    expect(template.params).toEqual({ pageSize: '2', sort: 'address:asc' });
    expect(resolveQueryTemplate(template, { tier: 'gold', who: '7' })).toEqual({
      resource: 'accounts',
      params: { pageSize: '2', sort: 'address:asc' },
      filter: {
        $and: [
          { $match: { 'metadata[tier]': 'gold' } },
          { $gte: { 'balance[USD]': 10n } },
          { $match: { address: 'users:7' } },
        ],
      },
    });
    expect(
      (
        resolveQueryTemplate(template, { tier: 'x', who: '1', min: '99' }).filter as {
          $and: unknown[];
        }
      ).$and[1],
    ).toEqual({ $gte: { 'balance[USD]': 99n } });
  });

  it('refuses missing, undeclared and mistyped variables, and bad templates', () => {
    expect(refusal(() => resolveQueryTemplate(template, { who: '1' }))).toBe(
      'vars.tier: missing (the query template has no default for it)',
    );
    expect(refusal(() => resolveQueryTemplate(template, { tier: 'a', who: '1', x: 'y' }))).toBe(
      'vars.x: the query template declares no such variable',
    );
    expect(refusal(() => resolveQueryTemplate(template, { tier: 'a', who: '1', min: '1.5' }))).toBe(
      'vars.min: must be an integer',
    );
    expect(refusal(() => parseQueryTemplate({ resource: 'ledgers' }, 'queries.q'))).toBe(
      'queries.q.resource: must be one of transactions, accounts, logs, volumes',
    );
    expect(
      refusal(() => parseQueryTemplate({ resource: 'logs', vars: { a: 'float' } }, 'queries.q')),
    ).toBe('queries.q.vars.a.type: must be one of string, int, bool, date');
    expect(
      refusal(() =>
        parseQueryTemplate({ resource: 'logs', vars: { a: { type: 'int', default: 'x' } } }, 'q'),
      ),
    ).toBe('q.vars.a.default: must be an integer');
  });
});

describe('schema input', () => {
  it('checks the chart, the query templates and the transaction templates before anything is stored', () => {
    const input = parseSchemaInput({
      chart: { world: {}, users: { $id: {} } },
      queries: { q: { resource: 'transactions' } },
      transactions: { pay: { script: 'send [USD 1] (source = @world destination = @users:1)' } },
    });
    expect(Object.keys(input)).toEqual(['chart', 'queries', 'transactions']);
    expect(refusal(() => parseSchemaInput({ queries: {} }))).toBe('body.chart: required');
    expect(refusal(() => parseSchemaInput({ chart: { $x: {} } }))).toBe(
      'chart.$x: the root cannot have a variable segment',
    );
    expect(
      refusal(() => parseSchemaInput({ chart: {}, transactions: { t: { script: '' } } })),
    ).toBe('transactions.t.script: must be a Numscript of at most 64 KiB');
    expect(refusal(() => parseSchemaInput({ chart: {}, extra: 1 }))).toBe(
      'body.extra: unknown field',
    );
    expect(refusal(() => readSchemaVersion('v 1'))).toBe(
      'version: must be 1-64 characters of A-Z a-z 0-9 . _ -',
    );
  });

  it("runs a version's template in place of the write's script, with its runtime unless the write names one", () => {
    const stored = {
      version: 'v1',
      createdAt: '2026-01-01T00:00:00Z',
      chart: { world: {} },
      transactions: { pay: { script: 'vars { account $a }', runtime: 'machine' } },
    };
    const input = { script: { template: 'pay', vars: { a: 'world' } } };
    expect(applyTransactionSchema(input, stored)).toEqual({
      input: {
        script: { template: 'pay', vars: { a: 'world' }, plain: 'vars { account $a }' },
        runtime: 'machine',
      },
      schema: { version: 'v1', chart: { world: {} } },
    });
    expect(
      applyTransactionSchema({ ...input, runtime: 'experimental-interpreter' as const }, stored)
        .input.runtime,
    ).toBe('experimental-interpreter');
    expect(refusal(() => applyTransactionSchema({ script: { template: 'refund' } }, stored))).toBe(
      'schema version [v1]: failed to find transaction template `refund`',
    );
    expect(refusal(() => applyTransactionSchema({ postings: [{}] }, stored))).toBe(
      'schema version [v1]: transactions on this ledger must use a template',
    );
    expect(
      refusal(() =>
        applyTransactionSchema({ postings: [{}], script: { template: 'pay' } }, stored),
      ),
    ).toBe('body: cannot pass postings and template in the same request');
    // Without templates: the write as it came, with the chart to check.
    const plain = { postings: [{}] };
    expect(applyTransactionSchema(plain, { ...stored, transactions: {} })).toEqual({
      input: plain,
      schema: { version: 'v1', chart: { world: {} } },
    });
    expect(applyTransactionSchema(plain, undefined)).toEqual({ input: plain });
  });

  it('checks postings on the chart and gives new accounts their defaults, the write winning', () => {
    const schema = {
      version: 'v2',
      chart: { world: {}, users: { $id: { '.metadata': { tier: { default: 'basic' } } } } },
    };
    const isNew = (a: string) => a !== 'users:old';
    expect(
      accountMetadataUnderSchema(
        schema,
        [
          { source: 'world', destination: 'users:1' },
          { source: 'world', destination: 'users:old' },
        ],
        { 'users:2': { tier: 'gold' }, elsewhere: { x: 'y' } },
        isNew,
      ),
    ).toEqual({ 'users:1': { tier: 'basic' }, 'users:2': { tier: 'gold' }, elsewhere: { x: 'y' } });
    expect(
      refusal(() =>
        accountMetadataUnderSchema(schema, [{ source: 'world', destination: 'shop' }], {}, isNew),
      ),
    ).toMatch(/^schema version \[v2\]: account "shop" is not in the chart of accounts/);
  });
});
