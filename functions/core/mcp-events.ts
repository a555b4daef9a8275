/** One persisted SSE event of an MCP response stream (kept for stream resumption). */
export interface McpStreamEvent {
  streamId: string;
  sequence: number;
  accountId: string;
  /** The JSON-RPC message as sent. */
  message: Record<string, unknown>;
  /** Epoch seconds after which the event is gone (DynamoDB TTL; readers filter it too). */
  expiresAt: number;
}

/** The storage port of MCP stream events (DynamoDB adapter: `functions/aws/dynamo/mcp-event-store.ts`). */
export interface McpEventLog {
  put(event: McpStreamEvent): Promise<void>;
  /** Several events at once (fewer round trips); each lands whole, in no particular order. */
  putAll(events: readonly McpStreamEvent[]): Promise<void>;
  /** Owner and expiry of an event, or undefined when it is unknown or expired. */
  owner(
    streamId: string,
    sequence: number,
  ): Promise<Pick<McpStreamEvent, 'accountId' | 'expiresAt'> | undefined>;
  /** The unexpired events of the stream with a sequence above `sequence`, in order. */
  listAfter(streamId: string, sequence: number): Promise<McpStreamEvent[]>;
}
