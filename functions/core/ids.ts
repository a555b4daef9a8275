import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

/** ULIDs: sortable by creation time, 26 chars, used for accounts, executions and pipeline runs. */
export function newId(now: number = Date.now()): string {
  return ulid(now);
}

const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function isUlid(value: string): boolean {
  return ULID_PATTERN.test(value);
}
