import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ExporterStore } from './store/exporter-store.js';
import { PipelineStore } from './store/pipeline-store.js';

/** An environment's exporter and pipeline stores. */
export type ExportStores = (environment: string) => {
  exporters: ExporterStore;
  pipelines: PipelineStore;
};

/** Exporters and pipelines live in the default ledger table, beside the ledgers' registry. */
export function exportStores(doc: DynamoDBDocumentClient, table: string): ExportStores {
  return (environment) => ({
    exporters: new ExporterStore(doc, table, environment),
    pipelines: new PipelineStore(doc, table, environment),
  });
}
