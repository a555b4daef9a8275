import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AccountUsage, UsageStore } from '../../core/credits';
import type { ConcurrencyLimiter } from '../../core/executions';
import type { PerMinute, RateClass, RateLimitSettings, RateLimits } from '../../core/rate-limits';
import { isConditionFailure } from './client';

/** The LIMITS item's attribute for each class's own rate limit. */
const RATE_ATTRIBUTE: Record<RateClass, string> = { read: 'readsPerMinute', write: 'writesPerMinute' };

/**
 * Per-account counters, each one item updated with atomic ADD (no transactions needed):
 * - running executions: pk ACCOUNT#<id>  sk SLOTS        running
 * - credits per period: pk ACCOUNT#<id>  sk USAGE#<yyyy-mm>  credits
 * - storage and limits: pk ACCOUNT#<id>  sk LIMITS       storageBytes, creditLimit, readsPerMinute,
 *   writesPerMinute (a number or "unlimited"; absent: the deployment's default)
 */
export class DynamoAccountCounters implements ConcurrencyLimiter, UsageStore, RateLimitSettings {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async tryAcquire(accountId: string, limit: number): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `ACCOUNT#${accountId}`, sk: 'SLOTS' },
          UpdateExpression: 'ADD running :one',
          ConditionExpression: 'attribute_not_exists(running) OR running < :limit',
          ExpressionAttributeValues: { ':one': 1, ':limit': limit },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async release(accountId: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `ACCOUNT#${accountId}`, sk: 'SLOTS' },
          UpdateExpression: 'ADD running :minus',
          ConditionExpression: 'running > :zero',
          ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async running(accountId: string): Promise<number> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: slotsKey(accountId), ConsistentRead: true }),
    );
    return Number(Item?.running ?? 0);
  }

  async correctRunning(accountId: string, from: number, to: number): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: slotsKey(accountId),
          UpdateExpression: 'SET running = :to',
          ConditionExpression: 'running = :from',
          ExpressionAttributeValues: { ':from': from, ':to': to },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async reset(accountId: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: `ACCOUNT#${accountId}`, sk: 'SLOTS' },
        UpdateExpression: 'SET running = :zero',
        ExpressionAttributeValues: { ':zero': 0 },
      }),
    );
  }

  async addCredits(accountId: string, period: string, credits: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: `ACCOUNT#${accountId}`, sk: `USAGE#${period}` },
        UpdateExpression: 'ADD credits :credits',
        ExpressionAttributeValues: { ':credits': credits },
      }),
    );
  }

  async getCredits(accountId: string, periods: readonly string[]): Promise<AccountUsage[]> {
    if (periods.length === 0) return [];
    const found = new Map<string, number>();
    for (let i = 0; i < periods.length; i += 100) {
      const batch = periods.slice(i, i + 100);
      const { Responses } = await this.db.send(
        new BatchGetCommand({
          RequestItems: {
            [this.tableName]: {
              Keys: batch.map((period) => ({ pk: `ACCOUNT#${accountId}`, sk: `USAGE#${period}` })),
              ConsistentRead: true,
            },
          },
        }),
      );
      for (const item of Responses?.[this.tableName] ?? []) {
        found.set(String(item.sk).slice('USAGE#'.length), Number(item.credits ?? 0));
      }
    }
    return periods.map((period) => ({ period, creditsUsed: found.get(period) ?? 0 }));
  }

  async addStorageBytes(accountId: string, bytes: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: `ACCOUNT#${accountId}`, sk: 'LIMITS' },
        UpdateExpression: 'ADD storageBytes :bytes',
        ExpressionAttributeValues: { ':bytes': bytes },
      }),
    );
  }

  async getStorageBytes(accountId: string): Promise<number> {
    const item = await this.limitsItem(accountId);
    return Math.max(0, Number(item?.storageBytes ?? 0));
  }

  async getCreditLimit(accountId: string): Promise<number | undefined> {
    const item = await this.limitsItem(accountId);
    return item?.creditLimit === undefined ? undefined : Number(item.creditLimit);
  }

  async getCreditStanding(accountId: string, period: string) {
    const usageKey = { pk: `ACCOUNT#${accountId}`, sk: `USAGE#${period}` };
    const limitsKey = { pk: `ACCOUNT#${accountId}`, sk: 'LIMITS' };
    const { Responses } = await this.db.send(
      new BatchGetCommand({
        RequestItems: { [this.tableName]: { Keys: [usageKey, limitsKey], ConsistentRead: true } },
      }),
    );
    const items = Responses?.[this.tableName] ?? [];
    const usage = items.find((item) => item.sk === usageKey.sk);
    const limits = items.find((item) => item.sk === limitsKey.sk);
    return {
      creditsUsed: Number(usage?.credits ?? 0),
      ...(limits?.creditLimit === undefined ? {} : { creditLimit: Number(limits.creditLimit) }),
    };
  }

  async setCreditLimit(accountId: string, credits: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: `ACCOUNT#${accountId}`, sk: 'LIMITS' },
        UpdateExpression: 'SET creditLimit = :credits',
        ExpressionAttributeValues: { ':credits': credits },
      }),
    );
  }

  async getRateLimits(accountId: string): Promise<Partial<RateLimits>> {
    const item = await this.limitsItem(accountId);
    const limits: Partial<RateLimits> = {};
    for (const rateClass of ['read', 'write'] as const) {
      const value = item?.[RATE_ATTRIBUTE[rateClass]];
      if (value === 'unlimited' || typeof value === 'number') limits[rateClass] = value;
    }
    return limits;
  }

  async setRateLimits(
    accountId: string,
    limits: Partial<Record<RateClass, PerMinute | 'default'>>,
  ): Promise<void> {
    const set: string[] = [];
    const remove: string[] = [];
    const names: Record<string, string> = {};
    const values: Record<string, PerMinute> = {};
    for (const [rateClass, limit] of Object.entries(limits) as [RateClass, PerMinute | 'default'][]) {
      names[`#${rateClass}`] = RATE_ATTRIBUTE[rateClass];
      if (limit === 'default') remove.push(`#${rateClass}`);
      else {
        set.push(`#${rateClass} = :${rateClass}`);
        values[`:${rateClass}`] = limit;
      }
    }
    if (!set.length && !remove.length) return;
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: `ACCOUNT#${accountId}`, sk: 'LIMITS' },
        UpdateExpression: [
          set.length ? `SET ${set.join(', ')}` : '',
          remove.length ? `REMOVE ${remove.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join(' '),
        ExpressionAttributeNames: names,
        ...(set.length ? { ExpressionAttributeValues: values } : {}),
      }),
    );
  }

  private async limitsItem(accountId: string) {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: `ACCOUNT#${accountId}`, sk: 'LIMITS' },
        ConsistentRead: true,
      }),
    );
    return Item;
  }
}

function slotsKey(accountId: string) {
  return { pk: `ACCOUNT#${accountId}`, sk: 'SLOTS' };
}
