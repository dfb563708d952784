// Property test of the PEL: random sequences of XREADGROUP / XACK / XCLAIM / XAUTOCLAIM / XDEL
// and clock ticks, run through the embedded client and against a naive model (a plain map of
// pending ids). After every step the replies, XPENDING's summary and extended form, and the
// per-consumer counts of XINFO CONSUMERS must agree with the model; at the end, replaying the
// propagated commands into a fresh database must rebuild the same PEL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { open } from '../../../src/client/embedded.js';
import { groupDb } from './groups-helpers.js';

const N = 30;
const CONSUMERS = ['a', 'b', 'c'];

type Op =
  | { kind: 'read'; consumer: string; count: number }
  | { kind: 'ack'; ids: number[] }
  | { kind: 'claim'; consumer: string; minIdle: number; ids: number[]; justId: boolean }
  | { kind: 'autoclaim'; consumer: string; minIdle: number; start: number; count: number; justId: boolean }
  | { kind: 'del'; id: number }
  | { kind: 'tick'; ms: number };

const idArb = fc.integer({ min: 1, max: N });
const consumerArb = fc.constantFrom(...CONSUMERS);
const idleArb = fc.constantFrom(0, 50, 200);

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('read' as const), consumer: consumerArb, count: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('ack' as const), ids: fc.array(idArb, { minLength: 1, maxLength: 4 }) }),
  fc.record({
    kind: fc.constant('claim' as const),
    consumer: consumerArb,
    minIdle: idleArb,
    ids: fc.array(idArb, { minLength: 1, maxLength: 4 }),
    justId: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('autoclaim' as const),
    consumer: consumerArb,
    minIdle: idleArb,
    start: fc.integer({ min: 0, max: N }),
    count: fc.integer({ min: 1, max: 4 }),
    justId: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('del' as const), id: idArb }),
  fc.record({ kind: fc.constant('tick' as const), ms: fc.constantFrom(10, 100, 300) }),
);

interface Pending {
  owner: string;
  time: number;
  count: number;
}

/** The naive model: pending ids in a Map, sorted when needed. */
class Model {
  readonly pending = new Map<number, Pending>();
  readonly deleted = new Set<number>();
  lastDelivered = 0;

  constructor(public now: number) {}

  sortedIds(): number[] {
    return [...this.pending.keys()].sort((x, y) => x - y);
  }

  read(consumer: string, count: number): number[] {
    const out: number[] = [];
    for (let i = this.lastDelivered + 1; i <= N && (count === 0 || out.length < count); i++) {
      if (this.deleted.has(i)) continue;
      out.push(i);
      this.pending.set(i, { owner: consumer, time: this.now, count: 1 });
      this.lastDelivered = i;
    }
    return out;
  }

  ack(ids: number[]): number {
    let n = 0;
    for (const id of ids) if (this.pending.delete(id)) n++;
    return n;
  }

  claim(consumer: string, minIdle: number, ids: number[], justId: boolean): number[] {
    const out: number[] = [];
    for (const id of ids) {
      const p = this.pending.get(id);
      if (this.deleted.has(id)) {
        this.pending.delete(id);
        continue;
      }
      if (p === undefined || (minIdle > 0 && this.now - p.time < minIdle)) continue;
      this.pending.set(id, { owner: consumer, time: this.now, count: justId ? p.count : p.count + 1 });
      out.push(id);
    }
    return out;
  }

  autoclaim(consumer: string, minIdle: number, start: number, count: number, justId: boolean) {
    const claimed: number[] = [];
    const dropped: number[] = [];
    let attempts = count * 10;
    let remaining = count;
    let last = start - 1;
    for (const id of this.sortedIds().filter((i) => i >= start)) {
      if (attempts === 0 || remaining === 0) break;
      attempts--;
      last = id;
      const p = this.pending.get(id)!;
      if (this.deleted.has(id)) {
        this.pending.delete(id);
        dropped.push(id);
        remaining--;
        continue;
      }
      if (minIdle > 0 && this.now - p.time < minIdle) continue;
      this.pending.set(id, { owner: consumer, time: this.now, count: justId ? p.count : p.count + 1 });
      claimed.push(id);
      remaining--;
    }
    const next = this.sortedIds().find((i) => i > last);
    return { cursor: next === undefined ? '0-0' : `${next}-1`, claimed, dropped };
  }

  summary(): unknown {
    const ids = this.sortedIds();
    if (ids.length === 0) return [0, null, null, null];
    const perOwner = new Map<string, number>();
    for (const p of this.pending.values()) perOwner.set(p.owner, (perOwner.get(p.owner) ?? 0) + 1);
    const owners = [...perOwner.entries()].sort(([x], [y]) => (x < y ? -1 : 1)).map(([o, n]) => [o, String(n)]);
    return [ids.length, `${ids[0]}-1`, `${ids[ids.length - 1]}-1`, owners];
  }

  extended(): unknown {
    return this.sortedIds().map((id) => {
      const p = this.pending.get(id)!;
      return [`${id}-1`, p.owner, this.now - p.time, p.count];
    });
  }
}

const ids = (xs: number[]) => xs.map((i) => `${i}-1`);

test('the PEL agrees with a naive model under random group operations', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), async (ops) => {
      const t = await groupDb();
      try {
        for (let i = 1; i <= N; i++) await t.call('XADD', 's', `${i}-1`, 'f', String(i));
        await t.call('XGROUP', 'CREATE', 's', 'g', '0');
        const model = new Model(t.clock.now);
        for (const op of ops) {
          switch (op.kind) {
            case 'read': {
              const expected = model.read(op.consumer, op.count);
              const reply = await t.call('XREADGROUP', 'GROUP', 'g', op.consumer, 'COUNT', op.count, 'STREAMS', 's', '>');
              if (expected.length === 0) assert.equal(reply, null);
              else assert.deepEqual((reply as [string, [string, string[]][]][])[0]![1].map((e) => e[0]), ids(expected));
              break;
            }
            case 'ack':
              assert.equal(await t.call('XACK', 's', 'g', ...ids(op.ids)), model.ack(op.ids));
              break;
            case 'claim': {
              const expected = model.claim(op.consumer, op.minIdle, op.ids, op.justId);
              const argv = ['XCLAIM', 's', 'g', op.consumer, op.minIdle, ...ids(op.ids), ...(op.justId ? ['JUSTID'] : [])];
              const reply = (await t.call(...argv)) as unknown[];
              assert.deepEqual(op.justId ? reply : reply.map((e) => (e as unknown[])[0]), ids(expected));
              break;
            }
            case 'autoclaim': {
              const expected = model.autoclaim(op.consumer, op.minIdle, op.start, op.count, op.justId);
              const argv = ['XAUTOCLAIM', 's', 'g', op.consumer, op.minIdle, `${op.start}`, 'COUNT', op.count];
              if (op.justId) argv.push('JUSTID');
              const [cursor, claimed, dropped] = (await t.call(...argv)) as [string, unknown[], string[]];
              assert.equal(cursor, expected.cursor);
              assert.deepEqual(op.justId ? claimed : claimed.map((e) => (e as unknown[])[0]), ids(expected.claimed));
              assert.deepEqual(dropped, ids(expected.dropped));
              break;
            }
            case 'del':
              model.deleted.add(op.id);
              await t.call('XDEL', 's', `${op.id}-1`);
              break;
            case 'tick':
              t.clock.now += op.ms;
              model.now = t.clock.now;
              break;
          }
          assert.deepEqual(await t.call('XPENDING', 's', 'g'), model.summary());
          assert.deepEqual(await t.call('XPENDING', 's', 'g', '-', '+', 1000), model.extended());
          const consumers = (await t.call('XINFO', 'CONSUMERS', 's', 'g')) as unknown[][];
          for (const c of consumers) {
            const owned = [...model.pending.values()].filter((p) => p.owner === c[1]).length;
            assert.equal(c[3], owned, `pending of ${String(c[1])}`);
          }
        }
        // Replaying what was propagated rebuilds the same PEL: owners, delivery times, counts.
        const copy = await open({ now: () => t.clock.now });
        try {
          for (const line of t.log) await copy.call(...line.split(' '));
          assert.deepEqual(await copy.call('XPENDING', 's', 'g', '-', '+', 1000), model.extended());
          const infoGroup = async (d: { call(...a: string[]): Promise<unknown> }) => ((await d.call('XINFO', 'GROUPS', 's')) as unknown[][])[0]!.slice(0, 8);
          assert.deepEqual(await infoGroup(copy), await infoGroup(t.db));
        } finally {
          await copy.close();
        }
      } finally {
        await t.db.close();
      }
    }),
    { numRuns: 150 },
  );
});
