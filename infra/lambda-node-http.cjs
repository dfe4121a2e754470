// `node:http` in the Lambda bundles (swapped in by the `alias` in infra/bundling.ts): the CommonJS module, taken
// without an ESM `import`. Importing a built-in as ESM builds its namespace from every export, and node:http's
// exports include WebSocket, CloseEvent and MessageEvent as lazy getters: reading them loads undici, http2 and
// worker_threads, about 30 ms of CPU on every cold start of a function that posts webhooks, for classes nothing
// here uses. esbuild's interop reads an export only when the code does.
module.exports = process.getBuiltinModule('node:http');
