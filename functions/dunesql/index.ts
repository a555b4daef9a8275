export { DUCKDB_SESSION_SETUP } from './duckdb-target';
export { DuneSqlError } from './errors';
export { loadPolyglot as preloadTranslator } from './polyglot';
export { type Translation, type TranslationTarget, translate } from './translate';
