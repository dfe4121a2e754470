#!/usr/bin/env node
// `npx platform ...`: the CLI (cli/main.ts) run from its TypeScript source through tsx, so nothing but
// `npm install` is needed (no build step). tsx is registered for this process only.
import { register } from 'tsx/esm/api';

// `platform ... | head` closes the pipe early: that is not an error worth a stack trace.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
