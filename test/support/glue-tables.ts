import {
  AlreadyExistsException,
  CreateTableCommand,
  DeleteTableCommand,
  EntityNotFoundException,
  GetTablesCommand,
  GlueClient,
  type Table,
  type TableInput,
} from '@aws-sdk/client-glue';
import { mockClient } from 'aws-sdk-client-mock';

/**
 * A mocked Glue client over an in-memory catalog, answering as Glue does: CreateTable stamps
 * CreateTime and refuses an existing name (AlreadyExistsException), DeleteTable of a missing table
 * is EntityNotFoundException, GetTables filters names by the `Expression` regular expression and
 * pages with NextToken (`pageSize` tables per page).
 */
export function mockGlueTables(now: () => Date = () => new Date(), pageSize = 2) {
  const tables = new Map<string, Table>();
  const mock = mockClient(GlueClient);
  const key = (database: string | undefined, name: string | undefined) => `${database}/${name}`;
  mock.on(CreateTableCommand).callsFake(async (input: { DatabaseName?: string; TableInput?: TableInput }) => {
    const id = key(input.DatabaseName, input.TableInput?.Name);
    if (tables.has(id)) {
      throw new AlreadyExistsException({ message: 'Table already exists.', $metadata: {} });
    }
    tables.set(id, {
      ...input.TableInput,
      Name: input.TableInput!.Name!,
      DatabaseName: input.DatabaseName,
      CreateTime: now(),
    });
    return {};
  });
  mock.on(DeleteTableCommand).callsFake(async (input: { DatabaseName?: string; Name?: string }) => {
    if (!tables.delete(key(input.DatabaseName, input.Name))) {
      throw new EntityNotFoundException({ message: 'Table not found.', $metadata: {} });
    }
    return {};
  });
  mock
    .on(GetTablesCommand)
    .callsFake(async (input: { DatabaseName?: string; Expression?: string; NextToken?: string }) => {
      const pattern = input.Expression ? new RegExp(`^(?:${input.Expression})$`) : undefined;
      const matching = [...tables.values()].filter(
        (table) => table.DatabaseName === input.DatabaseName && (!pattern || pattern.test(table.Name ?? '')),
      );
      const start = Number(input.NextToken ?? 0);
      const next = start + pageSize;
      return {
        TableList: matching.slice(start, next),
        ...(next < matching.length ? { NextToken: String(next) } : {}),
      };
    });
  return {
    mock,
    client: new GlueClient({ region: 'us-east-1' }),
    tables,
    /** Adds a table as if created at `createdAt`. */
    add(database: string, name: string, createdAt: Date, input: Partial<TableInput> = {}) {
      tables.set(key(database, name), {
        ...input,
        Name: name,
        DatabaseName: database,
        CreateTime: createdAt,
      });
    },
    names(database: string): string[] {
      return [...tables.values()].filter((t) => t.DatabaseName === database).map((t) => t.Name!);
    },
  };
}
