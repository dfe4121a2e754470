#!/usr/bin/env node
// `npx platform ...`: the CLI (cli/main.ts), run from its bundle (bin/cli-bundle.mjs), rebuilt first when its source
// changed, so nothing but `npm install` is needed and a call starts in a fraction of a second.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildBundle, isStale } from './cli-bundle.mjs';

// `platform ... | head` closes the pipe early: that is not an error worth a stack trace.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = fileURLToPath(new URL('../dist/platform-cli.mjs', import.meta.url));
const inputs = fileURLToPath(new URL('../dist/platform-cli.inputs.json', import.meta.url));
if (isStale(bundle, inputs)) await buildBundle(root, bundle, inputs);
const { main } = await import(pathToFileURL(bundle).href);
process.exitCode = await main(process.argv.slice(2));
