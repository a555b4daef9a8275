/**
 * Files the PNG rasterizer reads at run time (functions/visualizations/render.ts): resvg's
 * WebAssembly build (one binary for every platform, so Lambda on ARM renders exactly what the local
 * host renders) and the fonts the charts name. Relative to the repository root; a Lambda bundle has
 * them beside index.mjs (the stack copies them there, lib/constructs/service-function.ts).
 */
export const RASTERIZER_FILES = [
  'node_modules/@resvg/resvg-wasm/index_bg.wasm',
  'node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf',
  'node_modules/dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf',
] as const;
