// The group's delivery-time index against a naive model: after random deliveries, acks,
// claims, releases (XNACK), history reads and deletions, claimIdle must take exactly the
// entries a full sort of the PEL by (delivery time, id) would, in that order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ConsumerGroup, type PendingEntry, readHistory, releasePending, type StreamView } from '../../src/engine/consumer-group.js';
import { claimIdle, hasIdlePending } from '../../src/engine/group-claim.js';
import { IdleIndex } from '../../src/engine/idle-index.js';
import { compareIds, formatId, MIN_ID, type StreamId } from '../../src/engine/stream-id.js';

const N = 40;
const idOf = (n: number): StreamId => ({ ms: n, seq: 0 });

/** A stream of ids 1..N where some have been deleted. */
function fakeStream(deleted: Set<number>): StreamView {
  return {
    length: N - deleted.size,
    lastId: idOf(N),
    maxDeletedId: MIN_ID,
    entriesAdded: BigInt(N),
    firstLiveId: () => undefined,
    lastLiveId: () => undefined,
    get: (id) => (deleted.has(Number(id.ms)) ? null : [Buffer.from('f'), Buffer.from(String(id.ms))]),
    range: () => [],
  };
}

/** What claimIdle did before the index: sort the whole PEL, then walk it. */
function naiveDue(g: ConsumerGroup, minIdle: number, count: number, now: number, deleted: Set<number>): string[] {
  const due = [...g.pel.entries()]
    .map(([, n]) => n)
    .filter((n) => now - n.deliveryTime >= minIdle)
    .sort((a, b) => a.deliveryTime - b.deliveryTime || compareIds(a.id, b.id));
  const out: string[] = [];
  for (const n of due) {
    if (count > 0 && out.length >= count) break;
    if (!deleted.has(Number(n.id.ms))) out.push(formatId(n.id));
  }
  return out;
}

type Op =
  | { kind: 'deliver'; consumer: number; id: number }
  | { kind: 'ack'; id: number }
  | { kind: 'release'; id: number }
  | { kind: 'history'; consumer: number }
  | { kind: 'delete'; id: number }
  | { kind: 'claim'; consumer: number; minIdle: number; count: number }
  | { kind: 'tick'; ms: number };

const idArb = fc.integer({ min: 1, max: N });
const consumerArb = fc.integer({ min: 0, max: 2 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('deliver' as const), consumer: consumerArb, id: idArb }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('ack' as const), id: idArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('release' as const), id: idArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('history' as const), consumer: consumerArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: idArb }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('claim' as const),
      consumer: consumerArb,
      minIdle: fc.constantFrom(0, 5, 20),
      count: fc.integer({ min: 0, max: 5 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 10 }) }) },
);

test('claimIdle takes the longest-idle entries in (delivery time, id) order, as a full sort would', () => {
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 120 }), (ops) => {
      const g = new ConsumerGroup(Buffer.from('g'), MIN_ID);
      const consumers = [0, 1, 2].map((i) => g.ensureConsumer(Buffer.from(`c${i}`), 0).consumer);
      const deleted = new Set<number>();
      const s = fakeStream(deleted);
      let now = 1000;
      for (const op of ops) {
        switch (op.kind) {
          case 'deliver':
            g.assign(idOf(op.id), consumers[op.consumer]!, now, 1);
            break;
          case 'ack':
            g.ack(idOf(op.id));
            break;
          case 'release':
            releasePending(g, idOf(op.id), (n) => n);
            break;
          case 'history':
            readHistory(s, consumers[op.consumer]!, MIN_ID, 0, now);
            break;
          case 'delete':
            deleted.add(op.id);
            break;
          case 'claim': {
            const expected = naiveDue(g, op.minIdle, op.count, now, deleted);
            const taken = claimIdle(s, g, consumers[op.consumer]!, op.minIdle, op.count, now);
            assert.deepEqual(taken.claimed.map((c) => formatId(c.id)), expected);
            break;
          }
          case 'tick':
            now += op.ms;
            break;
        }
        // Every pending entry is still reachable through the index.
        const oldest = [...g.pel.entries()].map(([, n]) => n.deliveryTime).reduce((a, b) => Math.min(a, b), Infinity);
        assert.equal(hasIdlePending(g, 0, now), oldest !== Infinity);
        if (oldest !== Infinity) assert.equal(g.byDeliveryTime.oldest()!.deliveryTime, oldest);
      }
    }),
    { numRuns: 300 },
  );
});

test('stale nodes are swept: the heap stays within about twice the live entries', () => {
  const live = new Map<number, PendingEntry>();
  const index = new IdleIndex<PendingEntry>(
    (e) => live.get(Number(e.id.ms)) === e,
    () => live.values(),
  );
  const consumer = null as unknown as PendingEntry['consumer'];
  for (let i = 0; i < 100_000; i++) {
    const e: PendingEntry = { id: idOf(i), consumer, deliveryTime: i, deliveryCount: 1, version: 0 };
    live.set(i, e);
    index.touch(e, live.size);
    live.delete(i - 10); // acknowledged, ten behind the newest
  }
  assert.ok(index.nodes <= Math.max(1024, 2 * live.size) + 1, `nodes ${index.nodes} for ${live.size} live`);
  assert.equal(index.oldest()!.deliveryTime, 100_000 - 10);
  assert.equal(index.popDue(100_000 - 10)!.deliveryTime, 100_000 - 10);
  assert.equal(index.popDue(100_000 - 10), undefined);
});
