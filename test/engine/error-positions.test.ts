import { describe, expect, it } from 'vitest';
import { positionToLineColumn } from '../../functions/local/engine/duckdb-errors';

describe('error positions', () => {
  const sql = "select 'é',\n  from_nowhere(";
  it('counts parser positions in characters and binder positions in UTF-8 bytes', () => {
    const characters = [...sql].indexOf('f');
    const bytes = Buffer.from(sql.slice(0, sql.indexOf('f')), 'utf8').length;
    expect(positionToLineColumn(sql, characters, 'characters')).toEqual({ line: 2, column: 3 });
    expect(positionToLineColumn(sql, bytes, 'bytes')).toEqual({ line: 2, column: 3 });
  });
});
