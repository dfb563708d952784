// An embedded call's arguments are written into an append-only arena and read in place: the
// request must stand for exactly the bytes the argv conversion gives (texts in UTF-8, numbers
// as String() writes them, Buffers as they are), across arena rollovers, and what an earlier
// call's command kept (a MULTI queue) must survive later calls.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { releaseRequestArgs, requestArgsOf } from '../../src/client/arg-arena.js';
import { toArgv } from '../../src/client/embedded-execute.js';
import { open } from '../../src/client/embedded.js';
import type { Arg } from '../../src/client/connection.js';

const anyArg: fc.Arbitrary<Arg> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ minLength: 1000, maxLength: 1100 }),
  fc.integer(),
  fc.constantFrom(0, -0, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e21, 0.1, -2.5, NaN, Infinity),
  fc.double(),
  fc.uint8Array({ maxLength: 1500 }).map((b) => Buffer.from(b)),
);

test('a call\'s arguments read in place are the bytes of its argv, or it goes the argv way', () => {
  fc.assert(
    fc.property(fc.array(fc.array(anyArg, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 30 }), (calls) => {
      for (const args of calls) {
        const request = requestArgsOf(args);
        const argv = toArgv(args);
        if (request === undefined) {
          // Only an argument too long to copy sends a call the argv way.
          assert.ok(argv.some((a) => a.length > 1024));
          continue;
        }
        try {
          assert.deepEqual(request.toArgv(), argv);
        } finally {
          releaseRequestArgs(request);
        }
      }
    }),
    { numRuns: 200 },
  );
});

test('through the public API: texts, numbers and Buffers stored as the argv would store them, across arena rollovers', async () => {
  const db = await open();
  try {
    // A transaction queued over many calls (its requests are offsets into the arena), with
    // enough bytes between its commands to roll the arena over more than once.
    await db.call('MULTI');
    for (let i = 0; i < 300; i++) await db.call('RPUSH', 'list', `é${i}`.repeat(100), i, -i, i + 0.5, Buffer.from([i & 0xff, 0, 255]));
    assert.equal((await db.call('EXEC') as unknown[]).length, 300);
    const items = (await db.call('LRANGE', 'list', 0, -1)) as string[];
    assert.equal(items.length, 1500);
    for (let i = 0; i < 300; i++) {
      assert.equal(items[5 * i], `é${i}`.repeat(100));
      assert.deepEqual(items.slice(5 * i + 1, 5 * i + 4), [String(i), String(-i), String(i + 0.5)]);
      assert.equal(items[5 * i + 4], Buffer.from([i & 0xff, 0, 255]).toString('utf8'));
    }
    // A key given as a number and read back as its text; a long value the argv way.
    await db.call('SET', 12345, 'x'.repeat(5000));
    assert.equal(await db.call('STRLEN', '12345'), 5000);
  } finally {
    await db.close();
  }
});
