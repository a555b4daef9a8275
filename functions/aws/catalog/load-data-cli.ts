/**
 * npm run load-data -- --aws --bucket <DataBucketName output> --table-name <ServiceTableName output>
 *   [--data-dir .data] [--prefix tables/] [--region …]
 *
 * Uploads the local sample warehouse (built by `npm start`) to a deployed stack's data bucket,
 * and its table statistics to the stack's table (getTableSize), so a fresh deployment answers at
 * once. Uses the default AWS credential chain.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoCatalogStatsStore } from '../dynamo/catalog-stats-store';
import { createDocumentClient } from '../dynamo/client';
import { publishCatalogStats } from './catalog-stats';
import { loadData } from './load-data';

const { values } = parseArgs({
  options: {
    aws: { type: 'boolean', default: false },
    bucket: { type: 'string' },
    'table-name': { type: 'string' },
    'data-dir': { type: 'string', default: process.env.DATA_DIR ?? '.data' },
    prefix: { type: 'string', default: 'tables/' },
    region: { type: 'string' },
  },
});

if (!values.aws || !values.bucket || !values['table-name']) {
  console.error(
    'Usage: npm run load-data -- --aws --bucket <DataBucketName> --table-name <ServiceTableName> (stack outputs) [--data-dir .data] [--region us-east-1]',
  );
  process.exit(2);
}

const loaded = await loadData({
  warehousePath: join(values['data-dir']!, 'warehouse.duckdb'),
  s3: new S3Client(values.region ? { region: values.region } : {}),
  bucket: values.bucket,
  prefix: values.prefix!,
  log: (message) => console.log(message),
});
const files = loaded.reduce((sum, table) => sum + table.files, 0);
console.log(`Loaded ${loaded.length} tables (${files} files) into s3://${values.bucket}/${values.prefix}`);
const clientConfig = values.region ? { region: values.region } : {};
const stats = await publishCatalogStats(
  values['data-dir']!,
  new DynamoCatalogStatsStore(createDocumentClient(clientConfig), values['table-name']!),
);
console.log(`Published statistics of ${stats.length} tables to ${values['table-name']} (getTableSize)`);
