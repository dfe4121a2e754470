import { ValidationError } from '../../../errors/index.js';
import { parseChart } from './chart.js';
import { parseQueryTemplate, type QueryTemplate } from './query-template.js';

/**
 * A ledger schema version (v2.4): its chart of accounts, query templates and transaction templates, stored as
 * inserted under a version name and never changed (a new version is a new insert). The JSON as given is what
 * getSchema and listSchemas answer; the parsed forms are what reads and writes use.
 */
export interface SchemaInput {
  chart: Record<string, unknown>;
  queries?: Record<string, unknown>;
  transactions?: Record<string, unknown>;
}

export interface StoredSchema extends SchemaInput {
  version: string;
  createdAt: string;
}

/** A transaction template: a Numscript run by `script.template` with the write's vars. */
export interface TransactionTemplate {
  script: string;
  description?: string;
  runtime?: 'experimental-interpreter' | 'machine';
}

const VERSION = /^[0-9A-Za-z._-]{1,64}$/;
const TEMPLATE_ID = /^[0-9A-Za-z_-]{1,128}$/;
const MAX_SCRIPT_LENGTH = 64 * 1024;
const RUNTIMES = ['experimental-interpreter', 'machine'];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function readSchemaVersion(raw: string): string {
  if (!VERSION.test(raw))
    throw new ValidationError('version: must be 1-64 characters of A-Z a-z 0-9 . _ -');
  return raw;
}

/** An insertSchema body checked whole: nothing is stored unless all of it is valid. */
export function parseSchemaInput(raw: unknown): SchemaInput {
  if (!isObject(raw)) throw new ValidationError('body: must be a JSON object');
  for (const key of Object.keys(raw))
    if (!['chart', 'queries', 'transactions'].includes(key))
      throw new ValidationError(`body.${key}: unknown field`);
  if (raw.chart === undefined) throw new ValidationError('body.chart: required');
  parseChart(raw.chart);
  const queries = templates(raw.queries, 'queries');
  for (const [id, template] of Object.entries(queries ?? {}))
    parseQueryTemplate(template, `queries.${id}`);
  const transactions = templates(raw.transactions, 'transactions');
  for (const [id, template] of Object.entries(transactions ?? {}))
    parseTransactionTemplate(template, `transactions.${id}`);
  return {
    chart: raw.chart as Record<string, unknown>,
    ...(queries ? { queries } : {}),
    ...(transactions ? { transactions } : {}),
  };
}

function templates(raw: unknown, field: string): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  if (!isObject(raw)) throw new ValidationError(`${field}: must be an object of templates by id`);
  for (const id of Object.keys(raw))
    if (!TEMPLATE_ID.test(id)) throw new ValidationError(`${field}.${id}: invalid template id`);
  return raw;
}

export function parseTransactionTemplate(raw: unknown, path: string): TransactionTemplate {
  if (!isObject(raw)) throw new ValidationError(`${path}: must be an object`);
  const { script, description, runtime } = raw;
  if (typeof script !== 'string' || script.trim() === '' || script.length > MAX_SCRIPT_LENGTH)
    throw new ValidationError(`${path}.script: must be a Numscript of at most 64 KiB`);
  if (description !== undefined && typeof description !== 'string')
    throw new ValidationError(`${path}.description: must be a string`);
  if (runtime !== undefined && !RUNTIMES.includes(runtime as string))
    throw new ValidationError(`${path}.runtime: must be one of ${RUNTIMES.join(', ')}`);
  return {
    script,
    ...(description !== undefined ? { description: description as string } : {}),
    ...(runtime !== undefined ? { runtime: runtime as TransactionTemplate['runtime'] } : {}),
  };
}

/** A stored schema's query template, or a 404 naming it. */
export function schemaQuery(schema: StoredSchema, id: string): QueryTemplate | undefined {
  const raw = schema.queries && Object.hasOwn(schema.queries, id) ? schema.queries[id] : undefined;
  return raw === undefined ? undefined : parseQueryTemplate(raw, `queries.${id}`);
}
