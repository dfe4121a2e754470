import * as v from 'valibot';
import { cursorOf, dataOf, dateTime } from '../../openapi/schemas.js';

export const exporterSchema = v.strictObject({
  id: v.string(),
  createdAt: dateTime,
  driver: v.pipe(v.string(), v.description('`http` or `stdout`.')),
  config: v.pipe(
    v.record(v.string(), v.unknown()),
    v.description('The driver configuration; header values are shown as `********`.'),
  ),
});

export const pipelineSchema = v.strictObject({
  id: v.string(),
  ledger: v.string(),
  exporterID: v.string(),
  createdAt: dateTime,
  enabled: v.boolean(),
  lastLogID: v.optional(
    v.pipe(v.number(), v.integer(), v.description('The last log id the exporter accepted.')),
  ),
  error: v.optional(v.pipe(v.string(), v.description('The last failure, until a batch succeeds.'))),
});

export const createPipelineSchema = v.strictObject({
  exporterID: v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty')),
});

export const exporterData = dataOf(exporterSchema);
export const exporterPage = cursorOf(exporterSchema);
export const pipelineData = dataOf(pipelineSchema);
export const pipelinePage = cursorOf(pipelineSchema);

/** Named schemas of the ledger's document. */
export const exportSchemas = { Exporter: exporterSchema, Pipeline: pipelineSchema };
