/**
 * polyglot-sql (a WebAssembly port of sqlglot) is 24 MB of WASM and takes ~240 ms to load, so it is
 * imported once per process, on first use, never per request.
 */
type Polyglot = typeof import('@polyglot-sql/sdk');

let loading: Promise<Polyglot> | undefined;

export function loadPolyglot(): Promise<Polyglot> {
  loading ??= import('@polyglot-sql/sdk');
  return loading;
}

/** A parsed polyglot AST node: plain JSON with one key naming the node type. */
// biome-ignore lint/suspicious/noExplicitAny: polyglot's AST is serde JSON; rewrites read it structurally
export type AstNode = any;
