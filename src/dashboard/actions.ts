// What the dashboard can change, each one Redis command (or DeadLetters call) on explicit ids:
// retry / purge dead letters, claim or XNACK pending entries, delete entries. Pause/resume of
// groups is not offered: the broker has no such state yet.
import type { Connection } from '../client/connection.js';
import { DeadLetters } from '../broker/dead-letters.js';
import { checkId, HttpError } from './http.js';

/** Ids per action at most: a page's worth of selections, not a bulk tool. */
export const MAX_IDS = 1000;

/** `{ ids: [...] }` of a request body, checked. */
export function idsOf(body: Record<string, unknown>): string[] {
  const ids = body['ids'];
  if (!Array.isArray(ids) || ids.length === 0) throw new HttpError(400, 'ids must be a non-empty array of entry ids');
  if (ids.length > MAX_IDS) throw new HttpError(400, `at most ${MAX_IDS} ids per request`);
  return ids.map((id) => checkId(id));
}

/** `{ ids }` or `{ all: true }`, never both, never neither (so nothing acts on everything by accident). */
export function selectionOf(body: Record<string, unknown>): string[] | 'all' {
  const all = body['all'] === true;
  if (all && body['ids'] !== undefined) throw new HttpError(400, 'give ids or all, not both');
  return all ? 'all' : idsOf(body);
}

export interface RetryResult {
  retried: Array<{ id: string; newId: string }>;
}

/**
 * Re-adds dead letters to their source streams through DeadLetters.retry, one at a time, so a
 * failure says which were retried; unknown ids are refused before anything is re-added.
 */
export async function retryDeadLetters(conn: Connection, source: string, selection: string[] | 'all'): Promise<RetryResult> {
  const letters = new DeadLetters(conn, { source });
  const retried: RetryResult['retried'] = [];
  const retryOne = async (id: string, total: number | 'all'): Promise<void> => {
    try {
      const [newId] = await letters.retry([id]);
      retried.push({ id, newId: newId! });
    } catch (err) {
      throw new HttpError(502, `retried ${retried.length} of ${total}; ${id} kept in ${letters.stream}: ${(err as Error).message}`);
    }
  };
  if (selection === 'all') {
    // Page by id, not from the start each time: a letter that stays (XDEL lost) is not retried twice.
    let after: string | undefined;
    for (;;) {
      const page = await letters.list({ count: 500, after });
      for (const d of page) await retryOne(d.id, 'all');
      if (page.length < 500) return { retried };
      after = page[page.length - 1]!.id;
    }
  }
  for (const id of selection) {
    if ((await letters.get(id)) === null) throw new HttpError(404, `no dead letter ${id} in ${letters.stream}`);
  }
  for (const id of selection) await retryOne(id, selection.length);
  return { retried };
}

export async function purgeDeadLetters(conn: Connection, source: string, selection: string[] | 'all'): Promise<{ purged: number }> {
  const letters = new DeadLetters(conn, { source });
  return { purged: await letters.purge(selection === 'all' ? undefined : selection) };
}

/**
 * Gives pending entries to `consumer` (XCLAIM ... JUSTID: ownership moves, the delivery count
 * stays, since an operator's move is not a delivery). `minIdleMs` guards against taking an
 * entry a live consumer just got.
 */
export async function claimPending(conn: Connection, stream: string, group: string, body: Record<string, unknown>): Promise<{ claimed: string[] }> {
  const ids = idsOf(body);
  const consumer = body['consumer'];
  if (typeof consumer !== 'string' || consumer === '') throw new HttpError(400, 'consumer must be a non-empty string');
  const minIdle = body['minIdleMs'] ?? 0;
  if (typeof minIdle !== 'number' || !Number.isInteger(minIdle) || minIdle < 0) throw new HttpError(400, 'minIdleMs must be a non-negative integer');
  const claimed = (await conn.call('XCLAIM', stream, group, consumer, minIdle, ...ids, 'JUSTID')) as string[];
  return { claimed: claimed.map(String) };
}

const NACK_MODES = ['silent', 'fail', 'fatal'];

/** Releases pending entries back to the group (XNACK, Redis 8.8 and sluice) for any worker to take. */
export async function nackPending(conn: Connection, stream: string, group: string, body: Record<string, unknown>): Promise<{ released: number }> {
  const ids = idsOf(body);
  const mode = body['mode'] ?? 'fail';
  if (typeof mode !== 'string' || !NACK_MODES.includes(mode)) throw new HttpError(400, `mode must be one of ${NACK_MODES.join(', ')}`);
  try {
    return { released: Number(await conn.call('XNACK', stream, group, mode.toUpperCase(), 'IDS', ids.length, ...ids)) };
  } catch (err) {
    const message = (err as Error).message;
    if (/unknown command/i.test(message)) throw new HttpError(501, 'XNACK is not available on this server (it needs Redis 8.8+ or sluice); use claim instead');
    throw err;
  }
}

export async function deleteEntries(conn: Connection, stream: string, body: Record<string, unknown>): Promise<{ deleted: number }> {
  return { deleted: Number(await conn.call('XDEL', stream, ...idsOf(body))) };
}
