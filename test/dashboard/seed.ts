// Test data the dashboard tests look at, written with plain commands in the broker's wire
// layout (src/broker/README.md): two streams of jobs, a group that is behind with pending
// entries held by a consumer, a malformed entry, and dead letters in `orders:dead`.
import type { Connection } from '../../src/client/connection.js';
import { encodeEntry, jsonCodec } from '../../src/broker/codec.js';
import { deadLetterFields } from '../../src/broker/dead-letters.js';

export interface Seeded {
  /** Ids of orders' entries, oldest first. */
  orderIds: string[];
  /** Ids in orders:dead, oldest first. */
  deadIds: string[];
  /** Entries read by worker-1 and not acknowledged. */
  pendingIds: string[];
}

export const ORDERS = 'orders';
export const EMAILS = 'emails';

export async function seed(conn: Connection): Promise<Seeded> {
  const orderIds: string[] = [];
  for (let i = 1; i <= 30; i++) {
    orderIds.push(String(await conn.call('XADD', ORDERS, '*', ...encodeEntry(jsonCodec, { order: i, sku: `sku-${i}` }, `customer-${i % 3}`))));
  }
  orderIds.push(String(await conn.call('XADD', ORDERS, '*', 'payload', '{not json', 'content-type', 'application/json')));
  await conn.call('XGROUP', 'CREATE', ORDERS, 'billing', '0');
  await conn.call('XGROUP', 'CREATE', ORDERS, 'shipping', '$');
  // billing: worker-1 took 5 and acknowledged 2, so 3 are pending and 26 not yet delivered.
  const read = (await conn.call('XREADGROUP', 'GROUP', 'billing', 'worker-1', 'COUNT', 5, 'STREAMS', ORDERS, '>')) as Array<[string, Array<[string, string[]]>]>;
  const delivered = read[0]![1].map(([id]) => id);
  await conn.call('XACK', ORDERS, 'billing', delivered[0]!, delivered[1]!);
  const pendingIds = delivered.slice(2);

  const deadIds: string[] = [];
  // The two entries billing acknowledged failed for good: as a worker does, their fields go to
  // orders:dead with the reason (the source entries stay in orders, as after a real XACK).
  for (const [i, error] of [[0, 'card declined'], [1, 'timeout talking to the bank']] as const) {
    const pairs = encodeEntry(jsonCodec, { order: i + 1, sku: `sku-${i + 1}` }, `customer-${(i + 1) % 3}`);
    const fields = deadLetterFields({ entry: { id: delivered[i]!, fields: null, pairs }, stream: ORDERS, group: 'billing', consumer: 'worker-1', deliveries: 5, error });
    deadIds.push(String(await conn.call('XADD', `${ORDERS}:dead`, '*', ...fields)));
  }

  for (let i = 1; i <= 3; i++) await conn.call('XADD', EMAILS, '*', ...encodeEntry(jsonCodec, { to: `user${i}@example.com` }));
  return { orderIds, deadIds, pendingIds };
}
