import type {
  EventId,
  EventStore,
  StreamId,
} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BadRequestError, NotFoundError } from '../core/errors';
import type { McpEventLog, McpStreamEvent } from '../core/mcp-events';
import { logger } from '../http/logger';
import type { Services } from '../services';

/**
 * Stream resumption for the stateless MCP endpoint.
 *
 * Every SSE event of a POST response gets an id `<streamId>_<sequence>` (the transport's random
 * stream UUID and a zero-padded counter) and is written to the event log with the caller's account
 * and an expiry. `GET /mcp/v1` with `Last-Event-ID` reads the events of that one stream that follow
 * it, for the same account only, and ends.
 */

/** How long events stay replayable. */
export const MCP_EVENT_TTL_SECONDS = 3600;

const SEQUENCE_DIGITS = 6;
const STREAM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const EVENT_ID = /^([0-9a-f-]{36})_(\d{6})$/;

export function formatEventId(streamId: string, sequence: number): EventId {
  return `${streamId}_${String(sequence).padStart(SEQUENCE_DIGITS, '0')}`;
}

/** `{streamId, sequence}` of an event id, or a 400 saying what an id looks like. */
export function parseEventId(eventId: string): { streamId: string; sequence: number } {
  const match = EVENT_ID.exec(eventId.trim().toLowerCase());
  const streamId = match?.[1];
  if (!match || !streamId || !STREAM_ID.test(streamId)) {
    throw new BadRequestError(
      `Malformed Last-Event-ID "${eventId.slice(0, 80)}": expected an event id from an SSE response of this server (<stream uuid>_<6-digit sequence>).`,
    );
  }
  return { streamId, sequence: Number(match[2]) };
}

/**
 * The SDK `EventStore` for one request of one account. Events are kept in memory and written in
 * one batch by `flush()` (the handler calls it before returning, as Lambda freezes after the
 * response), so persisting never delays the events themselves and costs one round trip. A failed
 * write is logged, not thrown: the live response still reaches the client, only its replay would
 * miss those events.
 */
export class AccountEventStore implements EventStore {
  private readonly sequences = new Map<string, number>();
  private readonly unsaved: McpStreamEvent[] = [];
  private lastStream: string | undefined;

  constructor(
    private readonly log: McpEventLog,
    private readonly accountId: string,
    private readonly ttlSeconds = MCP_EVENT_TTL_SECONDS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The stream the last event was stored on (the POST's response stream). */
  get streamId(): string | undefined {
    return this.lastStream;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const sequence = (this.sequences.get(streamId) ?? 0) + 1;
    this.sequences.set(streamId, sequence);
    this.lastStream = streamId;
    const event: McpStreamEvent = {
      streamId,
      sequence,
      accountId: this.accountId,
      message,
      expiresAt: Math.floor(this.now() / 1000) + this.ttlSeconds,
    };
    this.unsaved.push(event);
    return formatEventId(streamId, sequence);
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    try {
      return parseEventId(eventId).streamId;
    } catch {
      return undefined;
    }
  }

  /**
   * Sends the events of the stream that follow `lastEventId`. The anchor event must exist, be
   * unexpired and belong to this account; otherwise a 404 that does not tell "someone else's"
   * from "unknown".
   */
  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const { streamId, sequence } = parseEventId(lastEventId);
    const nowSeconds = Math.floor(this.now() / 1000);
    const anchor = await this.log.owner(streamId, sequence);
    if (!anchor || anchor.accountId !== this.accountId || anchor.expiresAt <= nowSeconds) {
      throw new NotFoundError(
        `No stream event ${lastEventId} for this account: it is unknown, expired (events are kept ${this.ttlSeconds / 60} minutes) or belongs to another account. Send the request again with POST /mcp/v1.`,
      );
    }
    for (const event of await this.log.listAfter(streamId, sequence)) {
      if (event.accountId !== this.accountId || event.expiresAt <= nowSeconds) continue;
      await send(formatEventId(streamId, event.sequence), event.message as JSONRPCMessage);
    }
    return streamId;
  }

  /** Writes the events stored so far, in one batch. */
  async flush(): Promise<void> {
    const events = this.unsaved.splice(0);
    if (events.length === 0) return;
    await this.log.putAll(events).catch((error: unknown) => {
      logger.warn('mcp events not persisted; they cannot be replayed', {
        streamId: events[0]!.streamId,
        sequences: events.map((event) => event.sequence),
        error: error as Error,
      });
    });
  }
}

/** One SSE event in the wire format the SDK writes (an empty message is a priming event). */
export function sseEvent(eventId: string | undefined, message: JSONRPCMessage): string {
  const id = eventId ? `id: ${eventId}\n` : '';
  if (Object.keys(message).length === 0) return `${id}data: \n\n`;
  return `event: message\n${id}data: ${JSON.stringify(message)}\n\n`;
}

/** The event log of these services (DynamoDB in both hosts). */
export function mcpEventLog(services: Services): McpEventLog {
  return services.mcpEvents;
}

export type { McpEventLog, McpStreamEvent };
