/**
 * Reads back the CloudWatch Embedded Metric Format lines a function writes (Powertools Metrics, through
 * lib/observability/emf-sink.ts): the samples they hold, named as the catalog names them. Locally, the ledger's
 * worker processes send these lines to the platform's process, where they join its own figures.
 */
import { isMetricName, metricDefinition } from '../../../lib/observability/catalog.js';
import type { MetricSample } from '../../../lib/observability/metrics.js';

interface EmfDirective {
  Dimensions?: unknown;
  Metrics?: unknown;
}

/**
 * The samples of one EMF line, with the dimensions of its fullest dimension set (the rollups are CloudWatch's
 * concern). Metrics the catalog does not know are skipped; a line that is not EMF holds none.
 */
export function samplesOfEmf(line: string): MetricSample[] {
  let document: Record<string, unknown>;
  try {
    document = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return [];
  }
  const directives = (document._aws as { CloudWatchMetrics?: unknown } | undefined)
    ?.CloudWatchMetrics;
  if (!Array.isArray(directives)) return [];
  const samples: MetricSample[] = [];
  for (const directive of directives as EmfDirective[]) {
    const sets = Array.isArray(directive.Dimensions) ? (directive.Dimensions as unknown[]) : [];
    const keys = new Set(sets.flatMap((set) => (Array.isArray(set) ? set : [])).map(String));
    const dimensions: Record<string, string> = {};
    for (const key of keys) if (typeof document[key] === 'string') dimensions[key] = document[key];
    for (const metric of Array.isArray(directive.Metrics) ? directive.Metrics : []) {
      const name = String((metric as { Name?: unknown }).Name);
      if (!isMetricName(name)) continue;
      const values = [document[name]].flat().filter((v): v is number => typeof v === 'number');
      for (const value of values)
        samples.push({ name, unit: metricDefinition(name).unit, value, dimensions });
    }
  }
  return samples;
}

/** Whether a line of a function's stdout is an EMF document (cheap: no parse for ordinary log lines). */
export function isEmfLine(line: string): boolean {
  return line.startsWith('{"_aws":') && line.includes('"CloudWatchMetrics"');
}
