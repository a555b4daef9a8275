import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type CountedClass, RATE_WINDOW_MS, type RequestCounter } from '../../core/rate-limits';
import { isConditionFailure } from './client';

/**
 * Requests per account, class and one-minute window, shared by every function of the deployment:
 * pk RATE#<account id>  sk <class>#<window start, epoch ms>  requests, ttl (and OAuth client
 * registrations per client address and hour: pk RATE#addr:<address>  sk registration#<start>).
 * One conditional atomic ADD per request: the condition and the increment are one write, so
 * concurrent requests never count past the limit, and a refused request writes nothing
 * (docs/aws.md, "Request rate limits"). A partition of its own per account, apart from its
 * SLOTS/USAGE/LIMITS items, so a burst of requests does not contend with its executions'
 * bookkeeping. The items expire through the table's TTL a window after theirs ends.
 */
export class DynamoRequestCounter implements RequestCounter {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async count(
    subject: string,
    counted: CountedClass,
    windowStart: number,
    limit: number,
    windowMs = RATE_WINDOW_MS,
  ): Promise<number | undefined> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `RATE#${subject}`, sk: `${counted}#${windowStart}` },
          UpdateExpression: 'ADD requests :one SET #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':one': 1,
            ':limit': limit,
            ':ttl': Math.ceil((windowStart + 2 * windowMs) / 1000),
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.requests ?? 1);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }
}
