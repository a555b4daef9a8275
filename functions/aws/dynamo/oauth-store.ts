import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Account } from '../../core/accounts';
import { ConflictError, NotFoundError } from '../../core/errors';
import type {
  AuthorizationCode,
  BrowserSession,
  Consent,
  LoginRecord,
  OAuthClient,
  OAuthStore,
  TokenFamily,
} from '../../core/oauth';
import { isConditionFailure } from './client';
import { type Item, queryAll, withoutKeys } from './expressions';

/**
 * Item layout (single table, see docs/adr/0002):
 * - client:         pk OAUTHCLIENT#<clientId>   sk CLIENT
 * - login:          pk LOGIN#<email>            sk LOGIN       gsi1pk ACCOUNT#<id>  gsi1sk LOGIN#<email>
 * - login attempts: pk LOGINATTEMPTS#<key>      sk <window start>
 * - browser session pk OAUTHSESSION#<hash>      sk SESSION
 * - consent:        pk ACCOUNT#<id>             sk CONSENT#<clientId>
 * - code:           pk OAUTHCODE#<hash>         sk CODE
 * - token family:   pk OAUTHFAMILY#<familyId>   sk FAMILY      gsi1pk ACCOUNT#<id>  gsi1sk OAUTHFAMILY#<clientId>#<familyId>
 * Times are epoch milliseconds; `ttl` (epoch seconds) lets DynamoDB delete expired items in AWS,
 * and every read checks expiry itself because dynalite never deletes them.
 */
export class DynamoOAuthStore implements OAuthStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async putClient(client: OAuthClient): Promise<void> {
    await this.put({ pk: `OAUTHCLIENT#${client.clientId}`, sk: 'CLIENT', ...client }, true);
  }

  async getClient(clientId: string): Promise<OAuthClient | undefined> {
    const item = await this.get(`OAUTHCLIENT#${clientId}`, 'CLIENT');
    return item ? (withoutKeys(item) as unknown as OAuthClient) : undefined;
  }

  async deleteClient(clientId: string, deletedAt: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: `OAUTHCLIENT#${clientId}`, sk: 'CLIENT' },
          UpdateExpression: 'SET deletedAt = if_not_exists(deletedAt, :at)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': deletedAt },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new NotFoundError(`No registered client ${clientId}.`);
      throw error;
    }
  }

  async putLogin(login: LoginRecord): Promise<void> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: `LOGIN#${login.email}`,
            sk: 'LOGIN',
            gsi1pk: `ACCOUNT#${login.accountId}`,
            gsi1sk: `LOGIN#${login.email}`,
            ...login,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR accountId = :account',
          ExpressionAttributeValues: { ':account': login.accountId },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error))
        throw new ConflictError(`The email ${login.email} already signs in to another account.`);
      throw error;
    }
  }

  async getLogin(email: string): Promise<LoginRecord | undefined> {
    const item = await this.get(`LOGIN#${email}`, 'LOGIN');
    return item ? (withoutKeys(item) as unknown as LoginRecord) : undefined;
  }

  async loginFailures(key: string, windowStart: number): Promise<number> {
    const item = await this.get(`LOGINATTEMPTS#${key}`, String(windowStart));
    return Number(item?.attempts ?? 0);
  }

  async countLoginFailure(key: string, windowStart: number, expiresAt: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: `LOGINATTEMPTS#${key}`, sk: String(windowStart) },
        UpdateExpression: 'ADD attempts :one SET #ttl = :ttl',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':ttl': Math.ceil(expiresAt / 1000) },
      }),
    );
  }

  async putSession(session: BrowserSession): Promise<void> {
    await this.put(
      {
        pk: `OAUTHSESSION#${session.sessionHash}`,
        sk: 'SESSION',
        ttl: Math.ceil(session.expiresAt / 1000),
        ...session,
      },
      true,
    );
  }

  async getSession(sessionHash: string, now: number): Promise<BrowserSession | undefined> {
    const item = await this.get(`OAUTHSESSION#${sessionHash}`, 'SESSION');
    if (!item || Number(item.expiresAt) <= now) return undefined;
    return withoutKeys(item) as unknown as BrowserSession;
  }

  async putConsent(consent: Consent): Promise<void> {
    await this.put({ pk: `ACCOUNT#${consent.accountId}`, sk: `CONSENT#${consent.clientId}`, ...consent });
  }

  async getConsent(accountId: string, clientId: string): Promise<Consent | undefined> {
    const item = await this.get(`ACCOUNT#${accountId}`, `CONSENT#${clientId}`);
    return item ? (withoutKeys(item) as unknown as Consent) : undefined;
  }

  async listConsents(accountId: string): Promise<Consent[]> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':prefix': 'CONSENT#' },
    });
    return items.map((item) => withoutKeys(item) as unknown as Consent);
  }

  async deleteConsent(accountId: string, clientId: string): Promise<void> {
    await this.db.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: { pk: `ACCOUNT#${accountId}`, sk: `CONSENT#${clientId}` },
      }),
    );
  }

  async putCode(code: AuthorizationCode): Promise<void> {
    await this.put(
      { pk: `OAUTHCODE#${code.codeHash}`, sk: 'CODE', ttl: Math.ceil(code.expiresAt / 1000) + 3600, ...code },
      true,
    );
  }

  async getCode(codeHash: string): Promise<AuthorizationCode | undefined> {
    const item = await this.get(`OAUTHCODE#${codeHash}`, 'CODE');
    return item ? (withoutKeys(item) as unknown as AuthorizationCode) : undefined;
  }

  async redeemCode(codeHash: string, now: number): Promise<boolean> {
    return this.conditionalUpdate({
      Key: { pk: `OAUTHCODE#${codeHash}`, sk: 'CODE' },
      UpdateExpression: 'SET usedAt = :now',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usedAt) AND expiresAt > :now',
      ExpressionAttributeValues: { ':now': now },
    });
  }

  async putFamily(family: TokenFamily): Promise<void> {
    await this.put(
      {
        pk: `OAUTHFAMILY#${family.familyId}`,
        sk: 'FAMILY',
        gsi1pk: `ACCOUNT#${family.accountId}`,
        gsi1sk: `OAUTHFAMILY#${family.clientId}#${family.familyId}`,
        ttl: Math.ceil(family.expiresAt / 1000),
        ...family,
      },
      true,
    );
  }

  async getFamily(familyId: string): Promise<TokenFamily | undefined> {
    const item = await this.get(`OAUTHFAMILY#${familyId}`, 'FAMILY');
    return item ? toFamily(item) : undefined;
  }

  async rotateFamily(familyId: string, presentedHash: string, nextHash: string, now: number) {
    return this.conditionalUpdate({
      Key: { pk: `OAUTHFAMILY#${familyId}`, sk: 'FAMILY' },
      UpdateExpression:
        'SET currentHash = :next, previousHash = :presented, rotatedAt = :now REMOVE graceHash, graceHashes',
      ConditionExpression:
        '(currentHash = :presented OR graceHash = :presented OR contains(graceHashes, :presented)) AND attribute_not_exists(revokedAt) AND expiresAt > :now',
      ExpressionAttributeValues: { ':next': nextHash, ':presented': presentedHash, ':now': now },
    });
  }

  async addGraceToken(
    familyId: string,
    presentedHash: string,
    graceHash: string,
    graceStart: number,
    now: number,
  ) {
    return this.conditionalUpdate({
      Key: { pk: `OAUTHFAMILY#${familyId}`, sk: 'FAMILY' },
      // A string set: concurrent refreshes each add their own token, none replaces another's.
      UpdateExpression: 'ADD graceHashes :grace',
      ConditionExpression:
        'previousHash = :presented AND rotatedAt > :graceStart AND attribute_not_exists(revokedAt) AND expiresAt > :now',
      ExpressionAttributeValues: {
        ':grace': new Set([graceHash]),
        ':presented': presentedHash,
        ':graceStart': graceStart,
        ':now': now,
      },
    });
  }

  async revokeFamily(familyId: string, now: number): Promise<void> {
    await this.conditionalUpdate({
      Key: { pk: `OAUTHFAMILY#${familyId}`, sk: 'FAMILY' },
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':now': now },
    });
  }

  async listFamilies(accountId: string, clientId?: string): Promise<TokenFamily[]> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': `ACCOUNT#${accountId}`,
        ':prefix': clientId ? `OAUTHFAMILY#${clientId}#` : 'OAUTHFAMILY#',
      },
    });
    return items.map(toFamily);
  }

  private async get(pk: string, sk: string): Promise<Item | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: { pk, sk }, ConsistentRead: true }),
    );
    return Item;
  }

  private async put(item: Item, onlyNew = false): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: item,
        ...(onlyNew ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
      }),
    );
  }

  private async conditionalUpdate(
    input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>,
  ): Promise<boolean> {
    try {
      await this.db.send(new UpdateCommand({ TableName: this.tableName, ...input }));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

function toFamily(item: Item): TokenFamily {
  const { graceHashes, ...rest } = withoutKeys(item) as unknown as Omit<TokenFamily, 'graceHashes'> & {
    graceHashes?: Set<string>;
  };
  return {
    ...rest,
    ...(graceHashes ? { graceHashes: [...graceHashes] } : {}),
    account: rest.account as Account,
  };
}
