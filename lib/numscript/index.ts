/**
 * Numscript, the reference platform's transaction language: parser, checker and interpreter, pure (no I/O, no
 * AWS, no HTTP). The ledger gives `execute` a ScriptLedger over its snapshot and turns the result into a
 * transaction. See docs/numscript.md.
 */

export { NumscriptError } from './errors.js';
export type { ScriptLedger, ScriptResult } from './interpreter.js';
export { execute } from './interpreter.js';
export { mergeTxMetadata } from './metadata.js';
export type { Program } from './program.js';
export { compile } from './program.js';
export { varsFromRequest } from './request-vars.js';
