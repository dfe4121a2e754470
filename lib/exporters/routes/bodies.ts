import * as v from 'valibot';

/**
 * The request bodies, as functions: the routes' `describe()` lines (dropped from Lambda bundles) and the handlers,
 * loaded at the first request, make them; nothing builds them at a cold start.
 */

/** What createExporter and updateExporter take: the reference's `V2ExporterConfiguration`. */
export const exporterConfigurationSchema = () =>
  v.strictObject({
    driver: v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty')),
    config: v.record(v.string(), v.unknown(), 'must be an object'),
  });

export const createPipelineSchema = () =>
  v.strictObject({
    exporterID: v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty')),
  });
