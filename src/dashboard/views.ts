// The detail views behind the main page: a stream's entries (newest first, paged), a group's
// pending entries, and a stream's dead letters (oldest first, paged), each one bounded page.
import type { Connection, Value } from '../client/connection.js';
import { DeadLetters, type DeadLetter } from '../broker/dead-letters.js';
import { parseEntries } from '../broker/replies.js';
import { decodePayload, type DecodedPayload } from './payload.js';

export interface EntryView extends DecodedPayload {
  id: string;
  fields: Record<string, string>;
}

export interface Page<T> {
  items: T[];
  /** Cursor for the next page (pass as before/after), null on the last page. */
  next: string | null;
}

/** One more than asked tells whether another page follows without a second round trip. */
function paged<T extends { id: string }>(rows: T[], count: number): Page<T> {
  const items = rows.slice(0, count);
  return { items, next: rows.length > count ? items[items.length - 1]!.id : null };
}

/** Entries newest first, older than `before` (exclusive) when given. */
export async function readEntries(conn: Connection, stream: string, options: { count: number; before?: string }): Promise<Page<EntryView>> {
  const end = options.before === undefined ? '+' : `(${options.before}`;
  const raw = await conn.call('XREVRANGE', stream, end, '-', 'COUNT', options.count + 1);
  const rows = parseEntries(raw).map((e) => ({ id: e.id, fields: e.fields ?? {}, ...decodePayload(e.fields ?? {}) }));
  return paged(rows, options.count);
}

export interface PendingView {
  id: string;
  /** Owner; '' for entries released by XNACK that no consumer owns yet. */
  consumer: string;
  idleMs: number;
  deliveries: number;
}

/** A group's pending entries, oldest first, after `after` (exclusive) when given. */
export async function readPending(conn: Connection, stream: string, group: string, options: { count: number; after?: string; consumer?: string }): Promise<Page<PendingView>> {
  const start = options.after === undefined ? '-' : `(${options.after}`;
  const args = ['XPENDING', stream, group, start, '+', options.count + 1, ...(options.consumer === undefined ? [] : [options.consumer])];
  const raw = (await conn.call(...args)) as Value[];
  const rows = raw.map((r) => {
    const [id, consumer, idle, deliveries] = r as [Value, Value, Value, Value];
    return { id: String(id), consumer: consumer === null ? '' : String(consumer), idleMs: Number(idle), deliveries: Number(deliveries) };
  });
  return paged(rows, options.count);
}

/** A dead letter as DeadLetters reads it, without the raw pairs, with its payload decoded. */
export type DeadLetterView = Omit<DeadLetter, 'pairs'> & DecodedPayload;

/** The dead letters of `source` (in `source:dead` unless told otherwise), oldest first. */
export async function readDeadLetters(conn: Connection, source: string, options: { count: number; after?: string; deadLetterStream?: string }): Promise<Page<DeadLetterView> & { stream: string }> {
  const letters = new DeadLetters(conn, { source, deadLetterStream: options.deadLetterStream });
  const list = await letters.list({ count: options.count + 1, after: options.after });
  const rows = list.map(({ pairs: _pairs, ...letter }) => ({ ...letter, ...decodePayload(letter.fields) }));
  return { stream: letters.stream, ...paged(rows, options.count) };
}
