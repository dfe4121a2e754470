import type { Stage } from '../../config/env.js';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import type { ListQuery, Page } from '../../pagination/cursor.js';
import { formatInstant, instantFromMs } from '../../time/instant.js';
import type { ExporterConfiguration } from '../domain/exporter.js';
import {
  checkedConfiguration,
  exporterView,
  isExporterId,
  newExporter,
} from '../domain/exporter.js';
import {
  isPipelineId,
  newPipeline,
  type Pipeline,
  pipelineView,
  reset,
  started,
  stopped,
} from '../domain/pipeline.js';
import type { ExportStores } from '../stores.js';

export type PipelineTransition = 'start' | 'stop' | 'reset';
const TRANSITIONS: Record<PipelineTransition, (p: Pipeline) => Pipeline> = {
  start: started,
  stop: stopped,
  reset,
};

const exporterNotFound = (id: string) =>
  new NotFoundError(`exporter '${id.slice(0, 64)}' not found`);
const pipelineNotFound = (id: string) =>
  new NotFoundError(`pipeline '${id.slice(0, 64)}' not found`);
const mapPage = <T, U>(page: Page<T>, f: (t: T) => U): Page<U> => ({
  ...page,
  data: page.data.map(f),
});

/**
 * The exporter and pipeline operations (docs/api.md §3.5), each in one environment: what the routes call once
 * they have parsed a request. Loaded at the first such request, so the ledger's cold start does not carry them.
 * An id that cannot be one is as unknown as one never created.
 */
export class ExportCommands {
  constructor(
    private readonly stores: ExportStores,
    private readonly stage: Stage,
    private readonly now: () => number,
  ) {}

  async createExporter(environment: string, body: ExporterConfiguration) {
    const exporter = newExporter(checkedConfiguration(body, this.stage), this.instant());
    await this.stores(environment).exporters.create(exporter);
    return exporterView(exporter);
  }

  async listExporters(environment: string, query: ListQuery) {
    return mapPage(await this.stores(environment).exporters.list(query), exporterView);
  }

  async getExporter(environment: string, id: string) {
    const exporter = isExporterId(id)
      ? await this.stores(environment).exporters.get(id)
      : undefined;
    if (!exporter) throw exporterNotFound(id);
    return exporterView(exporter);
  }

  async replaceExporter(environment: string, id: string, body: ExporterConfiguration) {
    if (!isExporterId(id)) throw exporterNotFound(id);
    const configuration = checkedConfiguration(body, this.stage);
    const { exporters } = this.stores(environment);
    const current = await exporters.get(id);
    if (!current || !(await exporters.replace({ ...current, ...configuration })))
      throw exporterNotFound(id);
  }

  /** The exporter first: from then on no pipeline can be created on it, so the sweep that follows misses none. */
  async deleteExporter(environment: string, id: string) {
    const { exporters, pipelines } = this.stores(environment);
    if (!isExporterId(id) || !(await exporters.delete(id))) throw exporterNotFound(id);
    for (const usage of await exporters.usages(id))
      await pipelines.delete(usage.ledger, usage.pipelineId);
  }

  async createPipeline(environment: string, ledger: string, exporterId: string) {
    const pipeline = newPipeline(ledger, exporterId, this.instant());
    const outcome = await this.stores(environment).pipelines.create(pipeline);
    if (outcome === 'no-exporter')
      throw new ValidationError(`exporter '${exporterId.slice(0, 64)}' not found`);
    if (outcome === 'exists')
      throw new ValidationError(`pipeline '${ledger}/${exporterId.slice(0, 64)}' already exists`);
    return pipelineView(pipeline);
  }

  async listPipelines(environment: string, ledger: string, query: ListQuery) {
    return mapPage(await this.stores(environment).pipelines.list(ledger, query), pipelineView);
  }

  async getPipeline(environment: string, ledger: string, id: string) {
    const stored = isPipelineId(id)
      ? await this.stores(environment).pipelines.get(ledger, id)
      : undefined;
    if (!stored) throw pipelineNotFound(id);
    return pipelineView(stored.pipeline);
  }

  async changePipeline(environment: string, ledger: string, id: string, to: PipelineTransition) {
    const changed = isPipelineId(id)
      ? await this.stores(environment).pipelines.change(ledger, id, TRANSITIONS[to])
      : undefined;
    if (!changed) throw pipelineNotFound(id);
  }

  async deletePipeline(environment: string, ledger: string, id: string) {
    if (!isPipelineId(id) || !(await this.stores(environment).pipelines.delete(ledger, id)))
      throw pipelineNotFound(id);
  }

  private instant(): string {
    return formatInstant(instantFromMs(this.now()));
  }
}
