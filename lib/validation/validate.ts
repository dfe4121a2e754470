import * as v from 'valibot';
import { ValidationError } from '../errors/index.js';

/** Runs a valibot schema and turns the first issue into a ValidationError that names the field. */
export function validate<TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
  what: string,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = v.getDotPath(issue);
  const field = path ? `${what}.${path}` : what;
  throw new ValidationError(`${field}: ${issue.message}`);
}
