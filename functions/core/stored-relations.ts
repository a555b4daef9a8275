import { createHash } from 'node:crypto';
import { didYouMean } from './name-suggestions';

/**
 * Names of the stored versions SQL reads as tables: a materialized view's refreshes and an uploaded
 * table's generations. On Athena each version is a Glue table (and its objects sit under a prefix
 * of the same name); locally an upload generation is a directory of that name.
 */

/** `v_<16 hex of the relation's full name>_<version>`: a relation's versions share a prefix, Glue-safe. */
export function versionTableName(fullName: string, version: string): string {
  return `${versionTablePrefix(fullName)}${version.toLowerCase()}`;
}

/** What every version table of a relation starts with. */
export function versionTablePrefix(fullName: string): string {
  return `v_${createHash('sha256').update(fullName).digest('hex').slice(0, 16)}_`;
}

/** The catalogs of stored relations, and what each holds. */
export const STORED_RELATION_CATALOGS: Readonly<Record<string, string>> = {
  mv: 'materialized view',
  dune: 'uploaded table',
};

/**
 * Why SQL naming a stored relation the account may not read (or that does not exist) fails, with
 * the closest of those it may read (`readable`: full names of the same catalog), the same name
 * under another owner first.
 */
export function missingRelationMessage(
  name: string,
  holds: string,
  readable: readonly string[] = [],
): string {
  const bare = name.split('.').at(-1)!.toLowerCase();
  const sameName = readable.filter((candidate) => candidate.split('.').at(-1)!.toLowerCase() === bare);
  return `Table ${name} does not exist: no ${holds} of that name is readable by this account.${didYouMean(name, sameName, readable)}${duneViewHint(name)}`;
}

/**
 * Dune names a materialized view `dune.<team>.result_<name>`; here it is `mv.<owner>.result_<name>`
 * (`dune.` holds uploaded tables): a hint for queries brought over from Dune.
 */
function duneViewHint(name: string): string {
  const [catalog, owner, table] = name.split('.');
  if (catalog?.toLowerCase() !== 'dune' || !owner || !table?.toLowerCase().startsWith('result_')) return '';
  return ` Materialized views are named mv.<owner>.result_<name> here, not dune.<owner>.result_<name> as on Dune: did you mean mv.${owner.toLowerCase()}.${table.toLowerCase()}?`;
}

/** Why SQL reading a materialized view that has not completed a refresh yet fails: nothing to read. */
export function unrefreshedViewMessage(fullName: string, own: boolean): string {
  const then = own
    ? `refresh it with POST /v1/materialized-views/${fullName}/refresh and run this once the refresh completed (GET /v1/materialized-views/${fullName} shows its last_execution_ids)`
    : 'its owner refreshes it; run this once a refresh completed';
  return `Table ${fullName} has not completed a refresh yet, so it has no rows to read: ${then}.`;
}

/**
 * Whether SQL may name a table of one of the catalogs: `mv.`, `"mv".` or `MV .` anywhere (comments
 * and strings included: a false match only costs a read or a parse).
 */
export function mayNameCatalog(sql: string, catalogs: readonly string[]): boolean {
  return new RegExp(`(^|[^\\w"])"?(${catalogs.join('|')})"?\\s*\\.`, 'i').test(sql);
}

/**
 * Whether SQL may list the stored relations rather than read them: it names information_schema, or
 * is a SHOW or DESCRIBE statement (functions/dunesql/information-schema.ts).
 */
export function mayListRelations(sql: string): boolean {
  return (
    /\binformation_schema\b/i.test(sql) ||
    /^(?:\s|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*(?:SHOW|DESCRIBE|DESC)\b/i.test(sql)
  );
}
