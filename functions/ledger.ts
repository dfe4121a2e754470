import { handle } from 'hono/aws-lambda';
import { createLedgerApp } from '../lib/ledger/app.js';
import { createRuntime } from '../lib/platform/runtime.js';

export const handler = handle(createLedgerApp(createRuntime(process.env)));
