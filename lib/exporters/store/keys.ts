import {
  environmentOfKey,
  inEnvironment,
  withoutEnvironment,
} from '../../environments/key-scope.js';
import { ledgerKeys } from '../../ledger/store/keys.js';

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

/** What a ledger-table item's keys say about pipelines: a ledger's new log, or a pipeline that changed. */
export type KeyedWake =
  | { environment: string; ledger: string }
  | { environment: string; ledger: string; id: string };

/**
 * The wake a changed item's keys stand for, if any: a log item of a ledger (`ledgerKeys.logPartition`), or a
 * pipeline item. Each is checked by building its key again, so only keys of those two kinds match.
 */
export function wakeOfKeys(pk: string, sk: string): KeyedWake | undefined {
  const environment = environmentOfKey(pk);
  if (environment === undefined) return undefined;
  const rest = withoutEnvironment(pk);
  const log = /^L#([0-9a-zA-Z_-]{1,63})#LOG$/.exec(rest);
  if (log && ledgerKeys.logPartition({ environment, name: log[1]! }) === pk)
    return { environment, ledger: log[1]! };
  const pipeline = /^PIPELINES#([0-9a-zA-Z_-]{1,63})$/.exec(rest);
  if (pipeline && sk.startsWith(PIPELINE_PREFIX))
    return { environment, ledger: pipeline[1]!, id: sk.slice(PIPELINE_PREFIX.length) };
  return undefined;
}
