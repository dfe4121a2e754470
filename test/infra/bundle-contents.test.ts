import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BUNDLE_BYTES } from '../../bench/cold-start.js';
import { startupFiles } from '../../infra/bundle-size.js';
import type { FunctionName } from '../../infra/stacks/functions.js';
import { bundleFunction, PROJECT_ROOT } from '../support/bundled-function.js';

/**
 * What each Lambda bundle holds, bundled as `npm run build` and the stack bundle it (infra/bundling.ts): the
 * OpenAPI generator and its JSON Schema converter never (the functions serve documents written beside them at
 * bundling time, lib/openapi/document-source.ts), nor the routes' specs (`OPENAPI_SPECS` is false there: dead code);
 * node:http required rather than imported (infra/lambda-node-http.cjs); what a cold start loads within the bench's
 * size target; the modules a request may never need in chunks loaded at their first use.
 */

const FUNCTIONS = readdirSync(join(PROJECT_ROOT, 'functions'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, '') as FunctionName)
  .sort();

/** Modules that only generate documents: reachable from a function, they would be in its bundle. */
const GENERATOR_INPUTS = [
  /node_modules\/@valibot\/to-json-schema\//,
  /lib\/openapi\/(document|json-schema|generated-documents|platform-document)\.ts$/,
];

/**
 * The ledger, the largest bundle, without the generator (−18 kB): 573,195 bytes on 2026-11-26. Then 575,754 with
 * the environments groundwork, 579,599 with the isolation guard (+3.8 kB: lib/dynamo/environment-credentials.ts
 * and the SigV4 signer's entry points; @aws-sdk/client-sts would have added 38 kB, past the bench's 600,000), and
 * 563,265 without the routes' OpenAPI specs (−16.6 kB, their `openapi:` statements dropped). Split into chunks,
 * its cold start loads 474,559 (Numscript, the SQS client and the SDK's event streams in chunks loaded at first
 * use). Its import time is at the edge of the bench's target (≤ 1.5× the reference), and grows with those bytes.
 * 2026-11-27: 504,750 with the write engine's embedded group commit, the exporters' routes (their handlers load at
 * first use) and schemas / query templates: the guard moves to 510,000 while the bench reports the import ratio
 * (accepted up to 1.6×); the schema routes and the embedded engine are the next to leave the start-up path.
 * 2026-11-28: 510,628 with amounts of any size (their encoding, the longer balance keys) and writes bound to a schema
 * (schemaVersion, the chart on postings, templates), 512,255 on its own with balance preconditions (`expect`) and
 * limits (#31), which every write checks; 522,014 together: the guard moves to 523,000 until the schema code leaves
 * the start-up path (a chunk loaded by the first write that names a version). Then 525,629 with asset scaling's
 * plan reads, v1 and metadata writes under a schema and per-element bulk refusals (#29, third part); the log import
 * (its command and chain check, 5 kB) loads at the first import: 521,866.
 * Then the webhooks' endpoint
 * health (#33: its setting read once in lib/config/env.ts, which every function loads; the two operator event
 * kinds in the catalogue) and the JSON limit on a list's query: the guard moves to 524,000.
 * Then the exporters' pipelines function, of which the ledger carries only the shared tables: the
 * pipeline-wakes queue's definition (lib/resources/definitions.ts) and the two pipeline metrics of the catalog
 * (no exporter driver, SDK client or Parquet writer): about 0.5 KB more; the guard moves to 525,000.
 * Then each environment's checked client (#34: lib/dynamo/environment-clients.ts, prefix-guard.ts, +2.3 kB,
 * built by every runtime though the ledger's stores still use the async scope). All of session 37 together:
 * 525,221; the guard moves to 526,000 (the import stays near 1.4x the reference, under the accepted 1.6x).
 * Then balance monitors (#31, helper h4-pending): every write decides its crossings and every log item may carry
 * them (domain/monitors.ts, the log item's events, the mapping item's monitors), while the monitors' handlers
 * and command load at the first monitors request: 528,562; the guard moves to 529,000. Then the reply channel of
 * group commit (#28): the relay waits on replies, the channel itself loads at the first relayed write: 529,280;
 * the guard moves to 530,000. Then pending transfers (#31): the available check on every write, the hold and held
 * items' layout, the routes and request shapes at start-up (their handlers, commands and reads load at a ledger's
 * first pending request): 535,179; the guard moves to 536,000. Then transactions over several partition keys
 * (#28): the ledger's recorded layout, the key functions and the partition walk of lists by id at start-up (the
 * merge of time shards loads at the first list by time): 538,784; the guard moves to 540,000. Then holds' expiry
 * and monitors on `available` (#31): the hold's `due` entry on every hold write, the crossing decision over held
 * volumes on every write's path: 540,349; the guard moves to 541,000. Then transaction pages (#28): the page codec,
 * the lookup of an id's item, the lists' record-by-record reading of pages and the fold of a commit's new
 * transactions, all on the paths every write and read takes: 544,727; the guard moves to 545,000. Then the token
 * verifier's cache of verified tokens (#28: a signature checked once per token, not per request): 545,102; the
 * guard moves to 546,000.
 */
const MAX_LEDGER_BYTES = 546_000;

const dir = mkdtempSync(join(tmpdir(), 'bundle-contents-'));
/** A bundle: every input, the code a cold start loads (its text, its inputs), and the inputs of later chunks. */
interface Bundle {
  metafile: Metafile;
  inputs: string[];
  text: string;
  startupInputs: Set<string>;
  laterInputs: Set<string>;
}
const bundles = new Map<FunctionName, Bundle>();

beforeAll(async () => {
  for (const name of FUNCTIONS) {
    const metafile: Metafile = await bundleFunction(name, join(dir, name));
    const atStart = startupFiles(metafile);
    const inputsOf = (files: string[]) =>
      new Set(files.flatMap((file) => Object.keys(metafile.outputs[file]!.inputs)));
    const js = Object.keys(metafile.outputs).filter((file) => file.endsWith('.mjs'));
    bundles.set(name, {
      metafile,
      inputs: Object.keys(metafile.inputs),
      // Metafile paths are relative to the working directory, the project's root.
      text: [...atStart].map((file) => readFileSync(file, 'utf8')).join('\n'),
      startupInputs: inputsOf([...atStart]),
      laterInputs: inputsOf(js.filter((file) => !atStart.has(file))),
    });
  }
});

const bytesOf = (name: FunctionName) => Buffer.byteLength(bundles.get(name)!.text);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Lambda bundles', () => {
  it('bundles every function in functions/', () => {
    expect([...bundles.keys()]).toEqual(FUNCTIONS);
    expect(FUNCTIONS).toEqual(expect.arrayContaining(['auth', 'ledger', 'payments', 'webhooks']));
  });

  it.each(FUNCTIONS)('%s: nothing of the OpenAPI generator', (name) => {
    const { inputs } = bundles.get(name)!;
    expect(inputs.filter((input) => GENERATOR_INPUTS.some((re) => re.test(input)))).toEqual([]);
  });

  it.each(FUNCTIONS)(
    `%s: under the bench's ${MAX_BUNDLE_BYTES.toLocaleString('en-US')} bytes`,
    (name) => {
      expect(bytesOf(name)).toBeLessThan(MAX_BUNDLE_BYTES);
    },
  );

  it(`ledger: under ${MAX_LEDGER_BYTES.toLocaleString('en-US')} bytes at start-up`, () => {
    expect(bytesOf('ledger')).toBeLessThan(MAX_LEDGER_BYTES);
  });

  // Most requests send no script and never relay: these load at the first that does (the bench's cold start).
  it("ledger: Numscript, the SQS client, the monitors' and pending transfers' handlers in chunks loaded at first use, not at start-up", () => {
    const { startupInputs, laterInputs } = bundles.get('ledger')!;
    const lazy = [
      /^lib\/numscript\//,
      /node_modules\/@aws-sdk\/client-sqs\//,
      /event-streams/,
      // The balance monitors' handlers and command: the first monitors request loads them.
      /^lib\/ledger\/routes\/monitor-handlers\.ts$/,
      /^lib\/ledger\/commands\/monitors\.ts$/,
      // Pending transfers' handlers, commands and reads: a ledger's first pending request loads them.
      /^lib\/ledger\/routes\/pending-handlers\.ts$/,
      /^lib\/ledger\/commands\/pending\.ts$/,
      /^lib\/ledger\/store\/pending-reads\.ts$/,
      /^lib\/ledger\/domain\/pending\.ts$/,
    ];
    for (const re of lazy) {
      expect([...startupInputs].filter((input) => re.test(input))).toEqual([]);
      expect([...laterInputs].some((input) => re.test(input))).toBe(true);
    }
  });

  it('auth: the KMS client in a chunk loaded at the first signing key it opens or seals', () => {
    const kms = (input: string) => input.includes('node_modules/@aws-sdk/client-kms/');
    expect([...bundles.get('auth')!.startupInputs].some(kms)).toBe(false);
    expect([...bundles.get('auth')!.laterInputs].some(kms)).toBe(true);
  });

  it('the webhooks API loads the SQS client at its first replay; dispatch and deliver, which always send, at start-up', () => {
    const sqs = (input: string) => input.includes('node_modules/@aws-sdk/client-sqs/');
    expect([...bundles.get('webhooks')!.startupInputs].some(sqs)).toBe(false);
    expect([...bundles.get('webhooks')!.laterInputs].some(sqs)).toBe(true);
    for (const name of ['dispatch', 'deliver'] as const)
      expect([...bundles.get(name)!.startupInputs].some(sqs)).toBe(true);
  });

  // Every spec names its operation (lib/openapi/describe.ts): one left in a bundle is a describe() without its label.
  it.each(FUNCTIONS)("%s: none of the routes' OpenAPI specs", (name) => {
    expect(bundles.get(name)!.text).not.toContain('operationId');
  });

  it.each(FUNCTIONS)('%s: node:http never imported as an ES module', (name) => {
    const { metafile } = bundles.get(name)!;
    const imports = Object.values(metafile.inputs).flatMap((input) => input.imports);
    expect(imports.filter((i) => i.path === 'node:http' || i.path === 'http')).toEqual([]);
  });

  it.each(FUNCTIONS)('%s: no YAML parser (the auth configuration arrives as JSON)', (name) => {
    expect(
      bundles.get(name)!.inputs.filter((input) => input.includes('node_modules/yaml/')),
    ).toEqual([]);
  });

  it('the specs are dropped, not lost: the service documents still describe every route', async () => {
    const { offlineServiceDocument } = await import('../../infra/openapi-assets.js');
    const document = await offlineServiceDocument('ledger');
    expect(document.paths['/api/ledger/v2/{ledger}/accounts'].get.operationId).toBe(
      'v2ListAccounts',
    );
    expect(bundles.get('ledger')!.text).not.toContain('v2ListAccounts');
  });

  it('the service functions serve documents from files; inputs are named as the checks above expect', () => {
    for (const name of ['auth', 'ledger', 'payments', 'webhooks'] as const) {
      const { inputs } = bundles.get(name)!;
      expect(inputs).toContain('lib/openapi/document-source.ts');
      expect(inputs).toContain('lib/openapi/describe.ts'); // imported; its registrations dropped
      expect(inputs.some((input) => /node_modules\/valibot\//.test(input))).toBe(true);
    }
  });
});
