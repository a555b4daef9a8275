import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoAccountStore } from './aws/dynamo/account-store';
import { DynamoCatalogStatsStore } from './aws/dynamo/catalog-stats-store';
import type { AccountStore } from './core/accounts';
import type { CatalogStatsStore } from './core/catalog-ports';
import { BASE_TABLES } from './datasets/base-tables';
import { CatalogService } from './datasets/catalog-service';

/**
 * The ports and services a handler needs. Each host builds them once: the local host calls
 * `configureServices` with local adapters at boot; in Lambda the first request builds the AWS
 * adapters from the environment (a dynamic import, so local-only code is never bundled).
 */
export interface Services {
  accounts: AccountStore;
  catalogStats: CatalogStatsStore;
  catalog: CatalogService;
}

/** What both hosts share: everything that talks to DynamoDB (dynalite locally). */
export function createDynamoServices(db: DynamoDBDocumentClient, tableName: string): Services {
  const catalogStats = new DynamoCatalogStatsStore(db, tableName);
  return {
    accounts: new DynamoAccountStore(db, tableName),
    catalogStats,
    catalog: new CatalogService(catalogStats, BASE_TABLES),
  };
}

let current: Promise<Services> | undefined;

export function configureServices(services: Services): void {
  current = Promise.resolve(services);
}

export function resetServices(): void {
  current = undefined;
}

export function getServices(): Promise<Services> {
  if (!current) {
    current = import('./aws/services').then((module) => module.createAwsServices());
    // A failed cold start must not poison every later request of this Lambda instance.
    current.catch(() => {
      current = undefined;
    });
  }
  return current;
}
