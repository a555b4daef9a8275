import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type NodeChanges,
  type NodeState,
  type PipelineChanges,
  type PipelineExecution,
  type PipelineNodeRun,
  type PipelineState,
  type PipelineStore,
  TERMINAL_PIPELINE_STATES,
} from '../../core/pipelines';
import { isConditionFailure } from './client';
import { batchPutAll, queryAll, setChanges, stateIn, withoutKeys } from './expressions';

const ACTIVE_PARTITION = 'ACTIVE_PIPELINES';

/**
 * Item layout, one partition per pipeline execution:
 * - header: pk PIPELINE#<ulid>  sk HEADER   (gsi1 ACTIVE_PIPELINES while not finished)
 * - nodes:  pk PIPELINE#<ulid>  sk NODE#<id, zero-padded>
 * Every status write is a single-item conditional update.
 */
export class DynamoPipelineStore implements PipelineStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(execution: PipelineExecution, nodes: readonly PipelineNodeRun[]): Promise<void> {
    // The nodes first, 25 per request; the header last, so a pipeline whose creation failed midway
    // has no header and is not a pipeline (`get`).
    await batchPutAll(
      this.db,
      this.tableName,
      nodes.map((node) => ({ ...nodeKeys(node.pipelineExecutionId, node.nodeId), ...node })),
    );
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...headerKeys(execution.pipelineExecutionId),
          gsi1pk: ACTIVE_PARTITION,
          gsi1sk: execution.pipelineExecutionId,
          ...execution,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async get(pipelineExecutionId: string) {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `PIPELINE#${pipelineExecutionId}` },
      ConsistentRead: true,
    });
    const header = items.find((item) => item.sk === 'HEADER');
    // Nodes without a header belong to a creation that never committed: not a pipeline.
    if (!header) return undefined;
    return {
      execution: withoutKeys(header) as unknown as PipelineExecution,
      nodes: items
        .filter((item) => String(item.sk).startsWith('NODE#'))
        .map((item) => withoutKeys(item) as unknown as PipelineNodeRun),
    };
  }

  async getNode(pipelineExecutionId: string, nodeId: number): Promise<PipelineNodeRun | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: nodeKeys(pipelineExecutionId, nodeId),
        ConsistentRead: true,
      }),
    );
    return Item ? (withoutKeys(Item) as unknown as PipelineNodeRun) : undefined;
  }

  async transition(
    pipelineExecutionId: string,
    from: readonly PipelineState[],
    changes: PipelineChanges,
  ): Promise<PipelineExecution | undefined> {
    const leaves = changes.state !== undefined && TERMINAL_PIPELINE_STATES.includes(changes.state);
    const item = await this.conditionalUpdate(
      headerKeys(pipelineExecutionId),
      from,
      changes,
      leaves ? ' REMOVE gsi1pk, gsi1sk' : '',
    );
    return item as unknown as PipelineExecution | undefined;
  }

  async transitionNode(
    pipelineExecutionId: string,
    nodeId: number,
    from: readonly NodeState[],
    changes: NodeChanges,
  ): Promise<PipelineNodeRun | undefined> {
    const item = await this.conditionalUpdate(nodeKeys(pipelineExecutionId, nodeId), from, changes, '');
    return item as unknown as PipelineNodeRun | undefined;
  }

  async listActive(): Promise<PipelineExecution[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': ACTIVE_PARTITION },
      }),
    );
    return (Items ?? []).map((item) => withoutKeys(item) as unknown as PipelineExecution);
  }

  private async conditionalUpdate(
    key: Record<string, string>,
    from: readonly string[],
    changes: Record<string, unknown>,
    suffix: string,
  ): Promise<Record<string, unknown> | undefined> {
    const update = setChanges(changes);
    const guard = stateIn(from);
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: `${update.expression}${suffix}`,
          ConditionExpression: `attribute_exists(pk) AND ${guard.condition}`,
          ExpressionAttributeNames: { ...update.names, ...guard.names },
          ExpressionAttributeValues: { ...update.values, ...guard.values },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? withoutKeys(Attributes) : undefined;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }
}

function headerKeys(id: string) {
  return { pk: `PIPELINE#${id}`, sk: 'HEADER' };
}

function nodeKeys(id: string, nodeId: number) {
  return { pk: `PIPELINE#${id}`, sk: `NODE#${String(nodeId).padStart(6, '0')}` };
}
