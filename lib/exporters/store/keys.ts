import { inEnvironment } from '../../environments/key-scope.js';

/**
 * Keys of exporter and pipeline items, in the default ledger table (docs/data-model.md, "Exporters and
 * pipelines"). Exporters belong to an environment, pipelines to one of its ledgers.
 */
export const exportKeys = {
  /** The environment's exporters (`X#<id>`) and which ledgers use each (`U#<exporter id>#<ledger>`). */
  exportersPartition: (environment: string) => inEnvironment(environment, 'EXPORTERS'),
  exporter: (environment: string, id: string) => ({
    pk: exportKeys.exportersPartition(environment),
    sk: `X#${id}`,
  }),
  /** One per pipeline: the reference allows one pipeline per ledger and exporter, and a delete finds them here. */
  usage: (environment: string, exporterId: string, ledger: string) => ({
    pk: exportKeys.exportersPartition(environment),
    sk: `U#${exporterId}#${ledger}`,
  }),
  usagePrefix: (exporterId: string) => `U#${exporterId}#`,
  /** A ledger's pipelines. */
  pipelinesPartition: (environment: string, ledger: string) =>
    inEnvironment(environment, `PIPELINES#${ledger}`),
  pipeline: (environment: string, ledger: string, id: string) => ({
    pk: exportKeys.pipelinesPartition(environment, ledger),
    sk: `P#${id}`,
  }),
};

export const EXPORTER_PREFIX = 'X#';
export const PIPELINE_PREFIX = 'P#';
export const EXPORTERS_LIST = 'ledger.exporters';
export const pipelinesList = (ledger: string) => `ledger.pipelines.${ledger}`;
