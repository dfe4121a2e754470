/**
 * Exporters and pipelines (docs/api.md §3.5) through the official SDK, in-process: the reference's twelve
 * operations with its shapes, states and errors, in one environment and not another.
 */
import type { SDK } from '@formance/formance-sdk';
import { ErrorsV2ErrorResponse } from '@formance/formance-sdk/sdk/models/ledger/errorsv2errorresponse.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceRuntime } from '../../../lib/runtime/runtime.js';
import { ledgerClient } from '../../support/ledger.js';
import { inProcessSdk } from '../../support/ledger-sdk.js';
import { testTables } from '../../support/tables.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
let runtime: ServiceRuntime;
let sdk: SDK;
let call: Awaited<ReturnType<typeof ledgerClient>>['call'];
const L = () => sdk.ledger.v2;

/** The error the SDK threw for a call, with its contract code and message. */
async function refusal(
  promise: Promise<unknown>,
): Promise<{ status: number; code: string; message: string }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ErrorsV2ErrorResponse);
  const e = err as ErrorsV2ErrorResponse;
  return { status: e.rawResponse.status, code: e.errorCode, message: e.errorMessage };
}

beforeAll(async () => {
  ({ runtime } = await testTables());
  const client = await ledgerClient(runtime, { now: () => T0 });
  call = client.call;
  sdk = inProcessSdk(runtime, client.app);
  expect((await call('POST', '/v2/main')).status).toBe(204);
  expect((await call('POST', '/v2/other')).status).toBe(204);
});

describe('exporters', () => {
  it('creates, reads, lists, replaces and deletes an exporter; header values are never echoed', async () => {
    const created = await L().createExporter({
      driver: 'http',
      config: { url: 'http://127.0.0.1:9/sink', headers: { Authorization: 'Bearer s3cret' } },
    });
    expect(created.statusCode).toBe(201);
    const exporter = created.v2CreateExporterResponse!.data;
    expect(exporter).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      createdAt: new Date(T0),
      driver: 'http',
      config: { url: 'http://127.0.0.1:9/sink', headers: { Authorization: '********' } },
    });

    const read = await L().getExporterState({ exporterID: exporter.id });
    expect(read.v2GetExporterStateResponse!.data).toEqual(exporter);
    const raw = await call('GET', `/v2/_/exporters/${exporter.id}`);
    expect(raw.text).not.toContain('s3cret');

    const replaced = await L().updateExporter({
      exporterID: exporter.id,
      v2ExporterConfiguration: { driver: 'stdout', config: { batching: { maxItems: 10 } } },
    });
    expect(replaced.statusCode).toBe(204);
    const after = await L().getExporterState({ exporterID: exporter.id });
    expect(after.v2GetExporterStateResponse!.data).toEqual({
      id: exporter.id,
      createdAt: new Date(T0),
      driver: 'stdout',
      config: { batching: { maxItems: 10 } },
    });

    const listed = await L().listExporters();
    expect(listed.v2ExportersCursorResponse!.cursor.data.map((e) => e.id)).toContain(exporter.id);
    expect(listed.v2ExportersCursorResponse!.cursor.hasMore).toBe(false);

    expect((await L().deleteExporter({ exporterID: exporter.id })).statusCode).toBe(204);
    expect(await refusal(L().getExporterState({ exporterID: exporter.id }))).toEqual({
      status: 404,
      code: 'NOT_FOUND',
      message: `exporter '${exporter.id}' not found`,
    });
    expect((await refusal(L().deleteExporter({ exporterID: exporter.id }))).status).toBe(404);
  });

  it('refuses a bad driver configuration with a 400 naming what is wrong, and stores nothing', async () => {
    const before = (await call('GET', '/v2/_/exporters?pageSize=1000')).body.cursor.data.length;
    const cases: Array<[unknown, string]> = [
      [
        { driver: 'clickhouse', config: {} },
        'driver: unknown driver "clickhouse" (known: http, s3, kinesis, stdout)',
      ],
      [
        { driver: 'http', config: {} },
        'config.url: Invalid key: Expected "url" but received undefined',
      ],
      [
        { driver: 'http', config: { url: 'ftp://x.example' } },
        'config.url: must be an http(s) URL',
      ],
      [
        { driver: 'http', config: { url: 'http://169.254.169.254/latest' } },
        expect.stringMatching(
          /^config\.url: must not target a non-public address/,
        ) as unknown as string,
      ],
      [{ driver: 'stdout', config: { colour: true } }, 'config.colour: unknown field'],
      [
        { driver: 'http', config: { url: 'http://127.0.0.1:9/', batching: { maxItems: 5000 } } },
        'config.batching.maxItems: must be at most 1000',
      ],
      [
        {
          driver: 'http',
          config: { url: 'http://127.0.0.1:9/', headers: { 'Content-Type': 'x' } },
        },
        'config.headers.Content-Type: this header is set by the driver',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await call('POST', '/v2/_/exporters', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ errorCode: 'VALIDATION', errorMessage: message });
    }
    expect((await call('GET', '/v2/_/exporters?pageSize=1000')).body.cursor.data.length).toBe(
      before,
    );
  });

  it('answers 404 for an unknown or malformed exporter id, on every exporter route', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const id of [unknown, 'not-an-id']) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { driver: 'stdout', config: {} }],
        ['DELETE', undefined],
      ] as const) {
        const res = await call(method, `/v2/_/exporters/${id}`, body);
        expect(res.status, `${method} ${id}`).toBe(404);
        expect(res.body).toEqual({
          errorCode: 'NOT_FOUND',
          errorMessage: `exporter '${id}' not found`,
        });
      }
    }
  });
});

describe('SDK 7.0.1 and these operations', () => {
  it('sends them without a token (its document declares none): refused, until the hook adds the bearer', async () => {
    const bare = inProcessSdk(runtime, (await ledgerClient(runtime)).app, {
      withExporterHook: false,
    });
    const err = await bare.ledger.v2.listExporters().then(
      () => undefined,
      (e: unknown) => e as { rawResponse?: Response; statusCode?: number },
    );
    expect(err?.rawResponse?.status).toBe(401);
    // The same SDK sends the bearer on the ledger's other operations.
    expect((await bare.ledger.v2.listLedgers({})).statusCode).toBe(200);
    expect((await L().listExporters()).statusCode).toBe(200);
  });
});

describe('pipelines', () => {
  it('creates a running pipeline, refuses a second for the same ledger and exporter, and walks start/stop/reset', async () => {
    const exporterID = (await L().createExporter({ driver: 'stdout', config: {} }))
      .v2CreateExporterResponse!.data.id;
    const created = await L().createPipeline({
      ledger: 'main',
      v2CreatePipelineRequest: { exporterID },
    });
    expect(created.statusCode).toBe(201);
    const pipeline = created.v2CreatePipelineResponse!.data;
    expect(pipeline).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      ledger: 'main',
      exporterID,
      createdAt: new Date(T0),
      enabled: true,
    });
    const ref = { ledger: 'main', pipelineID: pipeline.id };

    expect(
      await refusal(
        L().createPipeline({ ledger: 'main', v2CreatePipelineRequest: { exporterID } }),
      ),
    ).toEqual({
      status: 400,
      code: 'VALIDATION',
      message: `pipeline 'main/${exporterID}' already exists`,
    });
    // Another ledger may use the same exporter.
    const other = await L().createPipeline({
      ledger: 'other',
      v2CreatePipelineRequest: { exporterID },
    });
    expect(other.v2CreatePipelineResponse!.data.ledger).toBe('other');

    expect(await refusal(L().startPipeline(ref))).toEqual({
      status: 400,
      code: 'VALIDATION',
      message: `pipeline '${pipeline.id}' already started`,
    });
    expect((await L().stopPipeline(ref)).statusCode).toBe(202);
    expect((await L().getPipelineState(ref)).v2GetPipelineStateResponse!.data.enabled).toBe(false);
    expect((await L().stopPipeline(ref)).statusCode).toBe(202);
    expect((await L().startPipeline(ref)).statusCode).toBe(202);
    expect((await L().getPipelineState(ref)).v2GetPipelineStateResponse!.data).toEqual(pipeline);
    expect((await L().stopPipeline(ref)).statusCode).toBe(202);
    expect((await L().resetPipeline(ref)).statusCode).toBe(202);
    expect((await L().getPipelineState(ref)).v2GetPipelineStateResponse!.data).toEqual(pipeline);

    const listed = await L().listPipelines({ ledger: 'main' });
    expect(listed.v2PipelinesCursorResponse!.cursor).toEqual({
      pageSize: 15,
      hasMore: false,
      data: [pipeline],
    });

    expect((await L().deletePipeline(ref)).statusCode).toBe(204);
    for (const op of [
      () => L().getPipelineState(ref),
      () => L().startPipeline(ref),
      () => L().stopPipeline(ref),
      () => L().resetPipeline(ref),
      () => L().deletePipeline(ref),
    ]) {
      expect(await refusal(op())).toEqual({
        status: 404,
        code: 'NOT_FOUND',
        message: `pipeline '${pipeline.id}' not found`,
      });
    }
    // The pair is free again.
    expect(
      (await L().createPipeline({ ledger: 'main', v2CreatePipelineRequest: { exporterID } }))
        .statusCode,
    ).toBe(201);
  });

  it('refuses a pipeline on a missing exporter (400) or ledger (404)', async () => {
    const missing = '00000000-0000-4000-8000-000000000001';
    expect(
      await refusal(
        L().createPipeline({ ledger: 'main', v2CreatePipelineRequest: { exporterID: missing } }),
      ),
    ).toEqual({
      status: 400,
      code: 'VALIDATION',
      message: `exporter '${missing}' not found`,
    });
    expect((await refusal(L().listPipelines({ ledger: 'nope' }))).code).toBe('LEDGER_NOT_FOUND');
    expect(
      (await L().listPipelines({ ledger: 'main' })).v2PipelinesCursorResponse!.cursor.data.every(
        (p) => p.exporterID !== missing,
      ),
    ).toBe(true);
  });

  it('deletes an exporter’s pipelines with it', async () => {
    const exporterID = (await L().createExporter({ driver: 'stdout', config: {} }))
      .v2CreateExporterResponse!.data.id;
    const a = (
      await L().createPipeline({ ledger: 'main', v2CreatePipelineRequest: { exporterID } })
    ).v2CreatePipelineResponse!.data;
    const b = (
      await L().createPipeline({ ledger: 'other', v2CreatePipelineRequest: { exporterID } })
    ).v2CreatePipelineResponse!.data;
    await L().deleteExporter({ exporterID });
    expect((await refusal(L().getPipelineState({ ledger: 'main', pipelineID: a.id }))).status).toBe(
      404,
    );
    expect(
      (await refusal(L().getPipelineState({ ledger: 'other', pipelineID: b.id }))).status,
    ).toBe(404);
  });

  it('keeps environments apart: another environment sees none of these exporters or pipelines', async () => {
    const exporterID = (await L().createExporter({ driver: 'stdout', config: {} }))
      .v2CreateExporterResponse!.data.id;
    const pipeline = (
      await L().createPipeline({ ledger: 'main', v2CreatePipelineRequest: { exporterID } })
    ).v2CreatePipelineResponse!.data;
    const elsewhere = await ledgerClient(runtime, { environment: 'acme' });
    const theirs = inProcessSdk(runtime, elsewhere.app, {
      token: async () => elsewhere.token,
    }).ledger.v2;
    expect((await theirs.listExporters()).v2ExportersCursorResponse!.cursor.data).toEqual([]);
    expect((await refusal(theirs.getExporterState({ exporterID }))).status).toBe(404);
    expect((await elsewhere.call('POST', '/v2/main')).status).toBe(204);
    expect(
      (await theirs.listPipelines({ ledger: 'main' })).v2PipelinesCursorResponse!.cursor.data,
    ).toEqual([]);
    expect(
      (await refusal(theirs.stopPipeline({ ledger: 'main', pipelineID: pipeline.id }))).status,
    ).toBe(404);
    expect(
      await refusal(
        theirs.createPipeline({ ledger: 'main', v2CreatePipelineRequest: { exporterID } }),
      ),
    ).toMatchObject({
      status: 400,
      message: `exporter '${exporterID}' not found`,
    });
  });
});
