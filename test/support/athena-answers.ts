import type { GetQueryResultsOutput } from '@aws-sdk/client-athena';

/**
 * GetQueryResults as the engine asks it (`MaxResults: 1`, for the columns): the result's column
 * metadata (API reference: ResultSetMetadata, ColumnInfo), names and Athena type names.
 */
export function resultColumnsAnswer(columns: [name: string, type: string][]): GetQueryResultsOutput {
  return {
    ResultSet: {
      Rows: [],
      ResultSetMetadata: {
        ColumnInfo: columns.map(([name, type]) => ({ Name: name, Label: name, Type: type })),
      },
    },
  };
}
