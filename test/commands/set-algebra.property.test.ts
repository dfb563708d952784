// SINTER / SUNION / SDIFF (and SINTERCARD, the STORE forms) against a model of plain JS sets,
// for random sets of integer and text members, missing keys and keys named twice.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { open } from '../../src/client/embedded.js';

const KEYS = ['k0', 'k1', 'k2', 'k3'];
const memberArb = fc.oneof(fc.integer({ min: -5, max: 12 }).map(String), fc.constantFrom('a', 'b', 'c', '', 'x y', '007'));
const setsArb = fc.tuple(...KEYS.map(() => fc.array(memberArb, { maxLength: 12 })));
const operandsArb = fc.array(fc.constantFrom(...KEYS, 'missing'), { minLength: 1, maxLength: 5 });

function model(op: 'inter' | 'union' | 'diff', sets: Array<Set<string>>): Set<string> {
  const [first, ...rest] = sets;
  if (op === 'union') return new Set(sets.flatMap((s) => [...s]));
  if (op === 'inter') return new Set([...first!].filter((m) => rest.every((s) => s.has(m))));
  return new Set([...first!].filter((m) => !rest.some((s) => s.has(m))));
}

/** A set built of integers only (at most 512 here) is an intset: Redis replies it ascending. */
function assertOrder(reply: string[]): void {
  if (!reply.every((m) => /^(0|-?[1-9][0-9]*)$/.test(m))) return;
  const ascending = [...reply].sort((a, b) => Number(a) - Number(b));
  assert.deepEqual(reply, ascending);
}

test('SINTER / SUNION / SDIFF, SINTERCARD and the STORE forms agree with a set model', async () => {
  const db = await open();
  try {
    await fc.assert(
      fc.asyncProperty(setsArb, operandsArb, fc.nat(6), async (contents, operands, limit) => {
        await db.call('FLUSHALL');
        const state = new Map<string, Set<string>>();
        for (let i = 0; i < KEYS.length; i++) {
          if (contents[i]!.length === 0) continue;
          await db.call('SADD', KEYS[i]!, ...contents[i]!);
          state.set(KEYS[i]!, new Set(contents[i]!));
        }
        const sets = operands.map((k) => state.get(k) ?? new Set<string>());
        for (const op of ['inter', 'union', 'diff'] as const) {
          const expected = model(op, sets);
          const name = { inter: 'SINTER', union: 'SUNION', diff: 'SDIFF' }[op];
          const reply = (await db.call(name, ...operands)) as string[];
          assert.deepEqual(new Set(reply), expected, `${name} ${operands.join(' ')}`);
          assert.equal(reply.length, expected.size, `${name} replies each member once`);
          // SUNION / SDIFF reply a set they built (an intset if it can be); SINTER replies in
          // the order of its smallest operand, a hashtable's when that is one.
          if (op !== 'inter') assertOrder(reply);
          assert.equal(await db.call(`${name}STORE`, 'dst', ...operands), expected.size);
          const stored = (await db.call('SMEMBERS', 'dst')) as string[];
          assert.deepEqual(new Set(stored), expected);
          assertOrder(stored);
          assert.equal(await db.call('EXISTS', 'dst'), expected.size > 0 ? 1 : 0);
        }
        const inter = model('inter', sets).size;
        assert.equal(await db.call('SINTERCARD', String(operands.length), ...operands), inter);
        assert.equal(
          await db.call('SINTERCARD', String(operands.length), ...operands, 'LIMIT', String(limit)),
          limit === 0 ? inter : Math.min(limit, inter),
        );
      }),
      { numRuns: 200 },
    );
  } finally {
    await db.close();
  }
});
