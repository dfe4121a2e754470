import * as v from 'valibot';
import { cursorOf, dataOf, dateTime } from '../../openapi/schemas.js';

const exporterSchema = () =>
  v.strictObject({
    id: v.string(),
    createdAt: dateTime,
    driver: v.pipe(v.string(), v.description('`http` or `stdout`.')),
    config: v.pipe(
      v.record(v.string(), v.unknown()),
      v.description('The driver configuration; header values are shown as `********`.'),
    ),
  });

const pipelineSchema = () =>
  v.strictObject({
    id: v.string(),
    ledger: v.string(),
    exporterID: v.string(),
    createdAt: dateTime,
    enabled: v.boolean(),
    lastLogID: v.optional(
      v.pipe(v.number(), v.integer(), v.description('The last log id the exporter accepted.')),
    ),
    error: v.optional(
      v.pipe(v.string(), v.description('The last failure, until a batch succeeds.')),
    ),
  });

/**
 * Response schemas of the routes' `describe()` lines only: made when the document is, so that a Lambda bundle,
 * which drops those lines, loads none of them (a module-level schema would be built at every cold start).
 */
export const exporterData = () => dataOf(exporterSchema());
export const exporterPage = () => cursorOf(exporterSchema());
export const pipelineData = () => dataOf(pipelineSchema());
export const pipelinePage = () => cursorOf(pipelineSchema());
