import { describe, expect, it } from 'vitest';
import { glueTableInput, glueType, partitionKey } from '../../functions/aws/catalog/glue-tables';
import { BASE_TABLES } from '../../functions/datasets/base-tables';

describe('DuneSQL types → Glue types', () => {
  it.each([
    ['varbinary', 'binary'],
    ['uint256', 'decimal(38,0)'],
    ['int256', 'decimal(38,0)'],
    ['bigint', 'bigint'],
    ['integer', 'int'],
    ['double', 'double'],
    ['boolean', 'boolean'],
    ['varchar', 'string'],
    ['timestamp', 'timestamp'],
    ['date', 'date'],
    ['decimal(18, 8)', 'decimal(18,8)'],
    ['array(varbinary)', 'array<binary>'],
    [
      'array(row(index integer, value decimal(18,8), address varchar))',
      'array<struct<index:int,value:decimal(18,8),address:string>>',
    ],
    [
      'row(a bigint, b row(c uint256, d array(varchar)))',
      'struct<a:bigint,b:struct<c:decimal(38,0),d:array<string>>>',
    ],
    // The registry's current engine names.
    ['UHUGEINT', 'decimal(38,0)'],
    ['HUGEINT', 'decimal(38,0)'],
    ['BLOB', 'binary'],
    ['VARCHAR[]', 'array<string>'],
    [
      'STRUCT("index" INTEGER, "value" DECIMAL(18,8), address VARCHAR, "type" VARCHAR)[]',
      'array<struct<index:int,value:decimal(18,8),address:string,type:string>>',
    ],
  ])('%s → %s', (dune, glue) => {
    expect(glueType(dune)).toBe(glue);
  });

  it('refuses a type it cannot map, naming it', () => {
    expect(() => glueType('geometry')).toThrow('No Glue type for column type "geometry"');
  });
});

describe('Glue tables from the registry', () => {
  it('maps every base table, partitioned by its date column with projection', () => {
    for (const table of BASE_TABLES) {
      const input = glueTableInput(table, 'svc-data');
      const key = partitionKey(table);
      const columns = [...input.partitionKeys, ...input.storageDescriptor.columns].map(
        (column) => column.name,
      );
      expect(columns.sort()).toEqual(table.columns.map((column) => column.name.toLowerCase()).sort());
      if (key) {
        expect(input.partitionKeys).toEqual([
          expect.objectContaining({ name: key.name.toLowerCase(), type: 'date' }),
        ]);
        expect(input.parameters[`projection.${key.name.toLowerCase()}.type`]).toBe('date');
      }
    }
    expect(BASE_TABLES.filter((table) => partitionKey(table)).length).toBeGreaterThan(BASE_TABLES.length / 2);
  });

  it('lays ethereum.transactions out as the loader writes it', () => {
    const table = BASE_TABLES.find((candidate) => candidate.fullName === 'ethereum.transactions')!;
    const input = glueTableInput(table, 'svc-data');
    expect(input).toMatchObject({
      name: 'transactions',
      tableType: 'EXTERNAL_TABLE',
      partitionKeys: [{ name: 'block_date', type: 'date' }],
      parameters: {
        classification: 'parquet',
        'projection.enabled': 'true',
        'projection.block_date.format': 'yyyy-MM-dd',
        'projection.block_date.range': '2009-01-03,NOW',
        // Athena's placeholder syntax, not a JS template.
        'storage.location.template': `s3://svc-data/tables/ethereum/transactions/block_date=\${block_date}/`,
      },
      storageDescriptor: {
        location: 's3://svc-data/tables/ethereum/transactions/',
        serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
      },
    });
    expect(input.storageDescriptor.columns).toContainEqual(
      expect.objectContaining({ name: 'value', type: 'decimal(38,0)' }),
    );
  });
});
