import { ValidationError } from '../../../errors/index.js';

/**
 * Query templates of a ledger schema (v2.4): a stored list query — its resource, default list parameters, a filter
 * `body` in the lists' query language, and declared variables — run by `POST /v2/<ledger>/queries/<id>/run` with
 * the caller's `vars`. A string value of the body that is exactly `${name}` takes the variable's typed value; any
 * other string has its `$name` / `${name}` references replaced by the values' text. What results is an ordinary
 * list query, planned and paged like the list's own.
 */
export const QUERY_RESOURCES = ['transactions', 'accounts', 'logs', 'volumes'] as const;
export type QueryResource = (typeof QUERY_RESOURCES)[number];

export const VARIABLE_TYPES = ['string', 'int', 'bool', 'date'] as const;
type VariableType = (typeof VARIABLE_TYPES)[number];
/** The reference's spellings of the same types. */
const TYPE_ALIASES: Record<string, VariableType> = {
  string: 'string',
  int: 'int',
  integer: 'int',
  numeric: 'int',
  bool: 'bool',
  boolean: 'bool',
  date: 'date',
};

export interface QueryTemplate {
  resource: QueryResource;
  description?: string;
  /** List parameters (pageSize, sort, pit, expand, …) the run uses unless the caller gives its own. */
  params: Record<string, string>;
  vars: Record<string, { type: VariableType; default?: unknown }>;
  body?: Record<string, unknown>;
}

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const PARAMS = [
  'pageSize',
  'sort',
  'pit',
  'expand',
  'order',
  'reverse',
  'groupBy',
  'insertionDate',
];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A stored template from its JSON (an insertSchema body's `queries.<id>`), or a 400 naming the field. */
export function parseQueryTemplate(raw: unknown, path: string): QueryTemplate {
  if (!isObject(raw)) throw new ValidationError(`${path}: must be an object`);
  const params = isObject(raw.params) ? raw.params : {};
  const resource = raw.resource ?? params.resource;
  if (!QUERY_RESOURCES.includes(resource as QueryResource))
    throw new ValidationError(`${path}.resource: must be one of ${QUERY_RESOURCES.join(', ')}`);
  if (raw.body !== undefined && !isObject(raw.body))
    throw new ValidationError(`${path}.body: must be a filter object`);
  if (raw.description !== undefined && typeof raw.description !== 'string')
    throw new ValidationError(`${path}.description: must be a string`);
  return {
    resource: resource as QueryResource,
    ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
    params: templateParams(params, `${path}.params`),
    vars: templateVars(raw.vars, `${path}.vars`),
    ...(isObject(raw.body) ? { body: raw.body } : {}),
  };
}

function templateParams(raw: Record<string, unknown>, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (name === 'resource' || name === 'cursor') continue;
    if (!PARAMS.includes(name)) throw new ValidationError(`${path}.${name}: unknown parameter`);
    if (!['string', 'number', 'boolean'].includes(typeof value))
      throw new ValidationError(`${path}.${name}: must be a string, number or boolean`);
    out[name] = String(value);
  }
  return out;
}

function templateVars(raw: unknown, path: string): QueryTemplate['vars'] {
  if (raw === undefined) return {};
  if (!isObject(raw)) throw new ValidationError(`${path}: must be an object`);
  const vars: QueryTemplate['vars'] = {};
  for (const [name, spec] of Object.entries(raw)) {
    if (!NAME.test(name))
      throw new ValidationError(
        `${path}.${name}: a variable name is lower-case letters, digits and _`,
      );
    const decl = typeof spec === 'string' ? { type: spec } : spec;
    const type =
      isObject(decl) && typeof decl.type === 'string' ? TYPE_ALIASES[decl.type] : undefined;
    if (!type)
      throw new ValidationError(
        `${path}.${name}.type: must be one of ${VARIABLE_TYPES.join(', ')}`,
      );
    const fallback = isObject(decl) ? decl.default : undefined;
    if (fallback !== undefined) typed(type, fallback, `${path}.${name}.default`);
    vars[name] = { type, ...(fallback !== undefined ? { default: fallback } : {}) };
  }
  return vars;
}

/** A variable's value in its type (the SDK sends every value as a string). */
function typed(type: VariableType, value: unknown, path: string): unknown {
  const text = typeof value === 'string' ? value : undefined;
  switch (type) {
    case 'string':
      if (text === undefined) throw new ValidationError(`${path}: must be a string`);
      return text;
    case 'int': {
      const digits =
        text ?? (typeof value === 'number' && Number.isInteger(value) ? String(value) : '');
      if (!/^-?\d{1,80}$/.test(digits)) throw new ValidationError(`${path}: must be an integer`);
      return BigInt(digits);
    }
    case 'bool':
      if (value === true || text === 'true') return true;
      if (value === false || text === 'false') return false;
      throw new ValidationError(`${path}: must be true or false`);
    case 'date':
      if (text === undefined || Number.isNaN(Date.parse(text)))
        throw new ValidationError(`${path}: must be an RFC 3339 date`);
      return text;
  }
}

const WHOLE = /^\$\{([a-z][a-z0-9_]*)\}$/;
const REFERENCE = /\$\{([a-z][a-z0-9_]*)\}|\$([a-z][a-z0-9_]*)/g;

/**
 * The template's filter with the run's variables (the caller's, else the declared defaults) put in, and the
 * template's parameters. A variable the body uses but nobody gave, or one the template does not declare, is a 400.
 */
export function resolveQueryTemplate(
  template: QueryTemplate,
  given: Record<string, unknown>,
): { resource: QueryResource; params: Record<string, string>; filter?: unknown } {
  for (const name of Object.keys(given))
    if (!Object.hasOwn(template.vars, name))
      throw new ValidationError(`vars.${name}: the query template declares no such variable`);
  const value = (name: string): unknown => {
    const decl = Object.hasOwn(template.vars, name) ? template.vars[name] : undefined;
    if (!decl) throw new ValidationError(`query template: variable "${name}" is not declared`);
    if (Object.hasOwn(given, name)) return typed(decl.type, given[name], `vars.${name}`);
    if (decl.default !== undefined) return typed(decl.type, decl.default, `vars.${name}`);
    throw new ValidationError(`vars.${name}: missing (the query template has no default for it)`);
  };
  const fill = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const whole = WHOLE.exec(node);
      if (whole) return value(whole[1]!);
      return node.replace(REFERENCE, (_m, braced: string | undefined, bare: string | undefined) =>
        String(value((braced ?? bare)!)),
      );
    }
    if (Array.isArray(node)) return node.map(fill);
    if (isObject(node))
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, fill(v)]));
    return node;
  };
  return {
    resource: template.resource,
    params: template.params,
    ...(template.body ? { filter: fill(template.body) } : {}),
  };
}
