/**
 * polyglot's WebAssembly (the DuneSQL translator and the lineage parser run on it). Its loader
 * looks for `polyglot_sql.wasm` beside the module that loads it, which in a Lambda bundle is
 * index.mjs: the stack copies the file there for the functions that translate or parse SQL
 * (lib/constructs/service-function.ts).
 */
export const POLYGLOT_WASM = {
  from: 'node_modules/@polyglot-sql/sdk/dist/polyglot_sql.wasm',
  to: 'polyglot_sql.wasm',
} as const;
