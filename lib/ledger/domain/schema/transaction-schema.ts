import { ValidationError } from '../../../errors/index.js';
import {
  type Chart,
  chartAccount,
  checkPostingsAgainstChart,
  firstUseMetadata,
  parseChart,
} from './chart.js';
import { parseTransactionTemplate, type StoredSchema } from './schema-data.js';

/**
 * What a create-transaction write carries of its schema version, as plain data (a relayed write crosses processes):
 * the version's name, for messages, and its chart as stored.
 */
export interface WriteSchema {
  version: string;
  chart: Record<string, unknown>;
}

/** The parts of a create-transaction request a schema rules on. */
interface TemplatedInput {
  postings?: unknown[] | undefined;
  script?: { plain?: string | undefined; template?: string | undefined } | undefined;
  runtime?: 'experimental-interpreter' | 'machine' | undefined;
}

const refusal = (version: string, message: string) =>
  new ValidationError(`schema version [${version}]: ${message}`);

/**
 * A create-transaction request under the schema version it names (or none), as the reference rules: a version
 * with transaction templates takes only `script.template` writes, whose Numscript (and runtime, unless the write
 * names one) comes from the version; a template needs a version that has templates. Answers the request to run
 * (its script now the template's) and the schema whose chart the decided postings must fit.
 */
export function applyTransactionSchema<T extends TemplatedInput>(
  input: T,
  schema: StoredSchema | undefined,
): { input: T; schema?: WriteSchema } {
  const template = input.script?.template;
  if (template !== undefined && (input.script?.plain !== undefined || input.postings?.length))
    throw new ValidationError(
      `body: cannot pass ${input.postings?.length ? 'postings' : 'numscript'} and template in the same request`,
    );
  const version = schema?.version ?? '';
  const templates = schema?.transactions ?? {};
  if (Object.keys(templates).length === 0) {
    if (template !== undefined)
      throw refusal(version, 'can only use templates on a schema with transaction definitions');
    return schema ? { input, schema: { version, chart: schema.chart } } : { input };
  }
  if (template === undefined)
    throw refusal(version, 'transactions on this ledger must use a template');
  if (!Object.hasOwn(templates, template))
    throw refusal(version, `failed to find transaction template \`${template}\``);
  const found = parseTransactionTemplate(templates[template], `transactions.${template}`);
  const runtime = input.runtime ?? found.runtime;
  return {
    input: {
      ...input,
      script: { ...input.script, plain: found.script },
      ...(runtime !== undefined ? { runtime } : {}),
    },
    schema: { version, chart: schema!.chart },
  };
}

const charts = new WeakMap<Record<string, unknown>, Chart>();
function chartOf(schema: WriteSchema): Chart {
  let chart = charts.get(schema.chart);
  if (!chart) {
    chart = parseChart(schema.chart);
    charts.set(schema.chart, chart);
  }
  return chart;
}

/**
 * The account metadata a transaction writes under its schema: every posting's source and destination must be an
 * account of the chart (else the version's 400), and an account used for the first time (`isNew`) gets the
 * chart's default metadata under what the write itself sets. Accounts the write names only in `accountMetadata`
 * get their defaults too when the chart knows them (the reference checks postings only).
 */
export function accountMetadataUnderSchema(
  schema: WriteSchema,
  postings: ReadonlyArray<{ source: string; destination: string }>,
  accountMetadata: Record<string, Record<string, string>>,
  isNew: (address: string) => boolean,
): Record<string, Record<string, string>> {
  const chart = chartOf(schema);
  let defaults: Map<string, Record<string, string>>;
  try {
    defaults = checkPostingsAgainstChart(chart, postings);
  } catch (err) {
    if (err instanceof ValidationError) throw refusal(schema.version, err.message);
    throw err;
  }
  for (const address of Object.keys(accountMetadata))
    if (!defaults.has(address)) {
      try {
        defaults.set(address, chartAccount(chart, address).defaults);
      } catch {
        // Not an account of the chart: the reference gives it no defaults and does not refuse it.
      }
    }
  const merged = { ...accountMetadata };
  for (const [address, values] of defaults)
    if (Object.keys(values).length > 0 && isNew(address))
      merged[address] = firstUseMetadata(values, accountMetadata[address]);
  return merged;
}

/**
 * The chart's default metadata for an account a metadata write creates, as the reference applies them (an address
 * the chart does not know gets none, and is not refused: the chart rules on postings only).
 */
export function accountDefaultsUnderSchema(
  schema: WriteSchema,
  address: string,
): Record<string, string> {
  try {
    return chartAccount(chartOf(schema), address).defaults;
  } catch (err) {
    if (err instanceof ValidationError) return {};
    throw err;
  }
}
