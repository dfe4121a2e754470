import { ValidationError } from '../../../errors/index.js';

/**
 * The chart of accounts of a ledger schema (v2.4): a tree of address segments. A key is a fixed segment
 * (`users`), a variable one (`$id`, optionally constrained by `.pattern`, at most one per level, never at the
 * root), or a property: `.self` (this node is an account although it has sub-segments), `.metadata` (default
 * account metadata, `{key: {default?}}`) and `.rules` (reserved: no rule is defined yet). A node without
 * sub-segments is an account. Pure values: parsed once from the stored JSON, then asked about addresses.
 */
export interface ChartAccount {
  /** Metadata an account gets when first used, unless the write sets the key itself. */
  defaults: Record<string, string>;
}

export interface ChartNode {
  fixed: Map<string, ChartNode>;
  variable?: { label: string; pattern?: RegExp; node: ChartNode };
  account?: ChartAccount;
}

export type Chart = Map<string, ChartNode>;

const SEGMENT = /^[a-zA-Z0-9_-]+$/;
const PROPERTIES = new Set(['.self', '.metadata', '.rules', '.pattern']);
const MAX_DEPTH = 16;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The chart from its JSON, or a 400 naming the path of what is wrong. */
export function parseChart(raw: unknown): Chart {
  if (!isObject(raw)) throw new ValidationError('chart: must be an object of segments');
  const chart: Chart = new Map();
  for (const [key, value] of Object.entries(raw)) {
    if (key.startsWith('$'))
      throw new ValidationError(`chart.${key}: the root cannot have a variable segment`);
    if (key.startsWith('.'))
      throw new ValidationError(`chart.${key}: the root cannot be an account`);
    if (!SEGMENT.test(key)) throw new ValidationError(`chart.${key}: invalid segment name`);
    if (isObject(value) && '.pattern' in value)
      throw new ValidationError(`chart.${key}: a fixed segment cannot have a .pattern`);
    chart.set(key, parseNode(value, `chart.${key}`, 1));
  }
  return chart;
}

function parseNode(raw: unknown, path: string, depth: number): ChartNode {
  if (!isObject(raw)) throw new ValidationError(`${path}: must be an object`);
  if (depth > MAX_DEPTH)
    throw new ValidationError(`${path}: a chart is at most ${MAX_DEPTH} segments deep`);
  const node: ChartNode = { fixed: new Map() };
  for (const [key, value] of Object.entries(raw)) {
    if (key.startsWith('.')) {
      if (!PROPERTIES.has(key)) throw new ValidationError(`${path}.${key}: unknown property`);
      continue;
    }
    const name = key.startsWith('$') ? key.slice(1) : key;
    if (!SEGMENT.test(name)) throw new ValidationError(`${path}.${key}: invalid segment name`);
    const child = parseNode(value, `${path}.${key}`, depth + 1);
    if (!key.startsWith('$')) {
      if (isObject(value) && '.pattern' in value)
        throw new ValidationError(`${path}.${key}: a fixed segment cannot have a .pattern`);
      node.fixed.set(key, child);
      continue;
    }
    if (node.variable)
      throw new ValidationError(`${path}.${key}: two variable segments at the same level`);
    node.variable = { label: name, node: child, ...patternOf(value, `${path}.${key}`) };
  }
  const leaf = node.fixed.size === 0 && node.variable === undefined;
  if (leaf || raw['.self'] !== undefined) {
    if (
      raw['.self'] !== undefined &&
      !(isObject(raw['.self']) && Object.keys(raw['.self']).length === 0)
    )
      throw new ValidationError(`${path}..self: must be an empty object`);
    node.account = { defaults: defaultsOf(raw['.metadata'], path) };
  } else {
    for (const property of ['.metadata', '.rules'])
      if (raw[property] !== undefined)
        throw new ValidationError(`${path}.${property}: only an account segment has ${property}`);
  }
  if (raw['.rules'] !== undefined && !isObject(raw['.rules']))
    throw new ValidationError(`${path}..rules: must be an object`);
  return node;
}

function patternOf(raw: unknown, path: string): { pattern?: RegExp } {
  const pattern = isObject(raw) ? raw['.pattern'] : undefined;
  if (pattern === undefined) return {};
  if (typeof pattern !== 'string' || pattern.length > 256)
    throw new ValidationError(
      `${path}..pattern: must be a regular expression of at most 256 characters`,
    );
  try {
    // As the reference reads it: found anywhere in the segment unless the pattern anchors itself (`^…$`).
    return { pattern: new RegExp(pattern, 'u') };
  } catch {
    throw new ValidationError(`${path}..pattern: not a valid regular expression`);
  }
}

function defaultsOf(raw: unknown, path: string): Record<string, string> {
  if (raw === undefined) return {};
  if (!isObject(raw)) throw new ValidationError(`${path}..metadata: must be an object`);
  const defaults: Record<string, string> = {};
  for (const [key, spec] of Object.entries(raw)) {
    if (!isObject(spec) || (spec.default !== undefined && typeof spec.default !== 'string'))
      throw new ValidationError(`${path}..metadata.${key}: must be {"default"?: string}`);
    if (spec.default !== undefined) defaults[key] = spec.default;
  }
  return defaults;
}

/**
 * The chart's account for an address, or a 400 saying where the address leaves the chart: a fixed segment is
 * tried first, then the level's variable segment (its pattern must be found in the segment).
 */
export function chartAccount(chart: Chart, address: string): ChartAccount {
  const segments = address.split(':');
  let level: { fixed: Map<string, ChartNode>; variable?: ChartNode['variable'] } = { fixed: chart };
  for (const [i, segment] of segments.entries()) {
    const node = level.fixed.get(segment) ?? variableMatch(level.variable, segment);
    const path = segments.slice(0, i).join(':');
    if (!node)
      throw new ValidationError(
        `account "${address}" is not in the chart of accounts: segment "${segment}"${path ? ` after "${path}"` : ''} ${level.variable ? 'does not match the pattern of' : 'is not one of'} the chart's segments`,
      );
    if (i === segments.length - 1) {
      if (!node.account)
        throw new ValidationError(
          `account "${address}" is not in the chart of accounts: "${address}" is a segment of the chart, not an account`,
        );
      return node.account;
    }
    level = node;
  }
  throw new ValidationError(`account "${address}" is not in the chart of accounts`);
}

function variableMatch(variable: ChartNode['variable'], segment: string): ChartNode | undefined {
  if (!variable) return undefined;
  return !variable.pattern || variable.pattern.test(segment) ? variable.node : undefined;
}

/**
 * What the chart says about a write's postings: every source and destination must be an account of the chart
 * (else the 400 of `chartAccount`), and the default metadata of each address, to apply on the accounts' first use.
 * To be called by the write path on ledgers with a schema (the reference checks every posting, scripts included).
 */
export function checkPostingsAgainstChart(
  chart: Chart,
  postings: ReadonlyArray<{ source: string; destination: string }>,
): Map<string, Record<string, string>> {
  const defaults = new Map<string, Record<string, string>>();
  for (const { source, destination } of postings)
    for (const address of [source, destination])
      if (!defaults.has(address)) defaults.set(address, chartAccount(chart, address).defaults);
  return defaults;
}

/**
 * The metadata an account gets on its first use: the chart's defaults under what the write itself sets (a write's
 * own value wins). Accounts already in use keep theirs: defaults apply once.
 */
export function firstUseMetadata(
  defaults: Record<string, string>,
  written: Record<string, string> | undefined,
): Record<string, string> {
  return { ...defaults, ...(written ?? {}) };
}
