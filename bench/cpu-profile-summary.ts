import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SourceMapConsumer } from 'source-map-js';

/** The parts of a V8 CPU profile (`--cpu-prof`, the inspector's `Profiler.stop`) read here. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  }>;
  samples: number[];
  /** Microseconds before each sample since the previous one. */
  timeDeltas: number[];
  /** Microseconds on the machine's monotonic clock, which every process's profile shares. */
  startTime: number;
  endTime: number;
}

type Frame = CpuProfile['nodes'][number]['callFrame'];

/**
 * Where a frame's code lives, as a reader of the profile groups it: an npm package (`@smithy/core`), a folder of
 * the project two levels deep (`lib/ledger`), a Node.js module (`node:_http_client`), or V8's own entries
 * (`(garbage collector)`, `(native writev)`). Bundled code is traced back through its source map.
 */
export function placeOf(frame: Frame, maps: SourceMaps): string {
  if (!frame.url)
    return frame.functionName.startsWith('(')
      ? frame.functionName
      : `(native ${frame.functionName})`;
  if (frame.url.startsWith('node:'))
    return frame.url.replace(/^node:internal\/(deps\/)?/, 'node:').split('/')[0]!;
  const source = maps.original(frame) ?? frame.url;
  const npm = source.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (npm) return npm[1]!;
  const project = source.match(/(?:^|\/)((?:lib|infra|bench|functions|events)\/[^/]+)/);
  return project ? project[1]!.replace(/\.m?[jt]s$/, '') : source;
}

/** Source maps of bundled files (`<file>.map` beside each), read once per file. */
export class SourceMaps {
  private readonly consumers = new Map<string, SourceMapConsumer | undefined>();

  original(frame: Frame): string | undefined {
    if (!frame.url.startsWith('file://')) return undefined;
    const path = fileURLToPath(frame.url);
    if (!this.consumers.has(path))
      this.consumers.set(
        path,
        existsSync(`${path}.map`)
          ? new SourceMapConsumer(JSON.parse(readFileSync(`${path}.map`, 'utf8')))
          : undefined,
      );
    const consumer = this.consumers.get(path);
    return (
      consumer?.originalPositionFor({ line: frame.lineNumber + 1, column: frame.columnNumber })
        .source ?? undefined
    );
  }
}

/**
 * Milliseconds of samples by place (self time, not inclusive), idle left out; with `window`, only the samples taken
 * within it (the monotonic clock of `CpuProfile`).
 */
export function selfMsByPlace(
  profile: CpuProfile,
  maps: SourceMaps,
  window?: { fromUs: number; toUs: number },
): Map<string, number> {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const places = new Map<number, string>();
  const byPlace = new Map<string, number>();
  let atUs = profile.startTime;
  profile.samples.forEach((id, i) => {
    atUs += profile.timeDeltas[i] ?? 0;
    if (window && (atUs < window.fromUs || atUs > window.toUs)) return;
    let place = places.get(id);
    if (place === undefined) {
      place = placeOf(frames.get(id)!, maps);
      places.set(id, place);
    }
    if (place === '(idle)') return;
    byPlace.set(place, (byPlace.get(place) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return byPlace;
}

/** Adds `more` into `into`. */
export function addInto(into: Map<string, number>, more: Map<string, number>): void {
  for (const [place, ms] of more) into.set(place, (into.get(place) ?? 0) + ms);
}
