export { DUCKDB_GLOBAL_SETTINGS, DUCKDB_SESSION_SETUP, sessionMacrosFor } from './duckdb-target';
export { DuneSqlError, type DuneSqlErrorKind } from './errors';
export { type ListedTable, listedTables } from './information-schema';
export type { NestedOutput, TableSchema } from './nested-outputs';
export { loadPolyglot as preloadTranslator } from './polyglot';
export {
  type TextStoredRelation,
  type Translation,
  type TranslationTarget,
  translate,
  warmUpTranslator,
} from './translate';
