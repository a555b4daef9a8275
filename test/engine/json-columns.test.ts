import { describe, expect, it } from 'vitest';
import { duneSqlTypeName } from '../../functions/core/sql-types';
import { engineForTheseTests, runRequest } from './fixture';

describe('JSON result columns', () => {
  const setup = engineForTheseTests();

  // DuckDB's JSON is VARCHAR under an alias its type name leaves out: the results labelled such a
  // column varchar while typeof() said json. Trino types json_parse, json_extract and a cast to json
  // as json (https://trino.io/docs/current/functions/json.html#json-functions).
  it('are typed json, their values the JSON text', async () => {
    const request = runRequest(
      `SELECT json_parse('{"a": 1}') AS parsed, json_extract('{"a": [1, 2]}', '$.a') AS extracted,
        cast('[1]' AS json) AS cast_json, typeof(json_parse('1')) AS type_name, 'x' AS text`,
    );
    const result = await setup.engine.run(request);
    expect(result.columns.map((column) => duneSqlTypeName(column.type))).toEqual([
      'json',
      'json',
      'json',
      'varchar',
      'varchar',
    ]);
    const page = await setup.store.readPage({ executionId: request.executionId, limit: 1, offset: 0 });
    expect(page.columns.map((column) => column.type)).toEqual(['JSON', 'JSON', 'JSON', 'VARCHAR', 'VARCHAR']);
    expect(page.rows[0]).toEqual({
      parsed: '{"a":1}',
      extracted: '[1,2]',
      cast_json: '[1]',
      type_name: 'json',
      text: 'x',
    });
  });
});
