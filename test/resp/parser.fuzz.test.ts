// Property tests for RequestParser: round trips through the encoder, chunking invariance,
// and garbage that may only ever produce ProtocolError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encodeCommand } from '../../src/resp/encoder.js';
import { cutsArb, parseChunks, splitAt } from './helpers.js';

const argArb = fc.oneof(
  fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
  fc.constantFrom('', '\r\n', '*1\r\n', '$-1', '"', "'", ' ').map((s) => Buffer.from(s, 'latin1')),
);
const argvArb = fc.array(argArb, { minLength: 1, maxLength: 6 });

/** Quotes bytes for an inline request the way redis-cli users would type them. */
function quoteInline(arg: Buffer): string {
  let out = '"';
  for (const b of arg) {
    if (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `${out}"`;
}

// A first word starting with "*" would make the request multibulk.
const wordArb = fc.stringMatching(/^[A-Za-z0-9_:.+-][A-Za-z0-9_:.*+-]{0,11}$/);

test('multibulk commands split anywhere parse back identically', () => {
  fc.assert(
    fc.property(fc.array(argvArb, { maxLength: 10 }), cutsArb(2000), (argvs, cuts) => {
      const bytes = Buffer.concat(argvs.map((argv) => encodeCommand(argv)));
      const got = parseChunks(splitAt(bytes, cuts));
      assert.equal(got.error, undefined);
      assert.deepEqual(got.commands, argvs.map((argv) => argv.map((a) => a.toString('latin1'))));
      assert.equal(got.bufferedBytes, 0);
    }),
    { numRuns: 500 },
  );
});

test('inline commands, plain and quoted, mixed with multibulk, parse back identically', () => {
  const requestArb = fc.oneof(
    fc.array(wordArb, { minLength: 1, maxLength: 5 }).map((words) => ({
      bytes: Buffer.from(`${words.join(' ')}\r\n`, 'latin1'),
      argv: words,
    })),
    argvArb.map((argv) => ({
      bytes: Buffer.from(`${argv.map(quoteInline).join(' ')}\n`, 'latin1'),
      argv: argv.map((a) => a.toString('latin1')),
    })),
    argvArb.map((argv) => ({ bytes: encodeCommand(argv), argv: argv.map((a) => a.toString('latin1')) })),
  );
  fc.assert(
    fc.property(fc.array(requestArb, { maxLength: 8 }), cutsArb(1500), (requests, cuts) => {
      const bytes = Buffer.concat(requests.map((r) => r.bytes));
      const got = parseChunks(splitAt(bytes, cuts));
      assert.equal(got.error, undefined);
      assert.deepEqual(got.commands, requests.map((r) => r.argv));
    }),
    { numRuns: 500 },
  );
});

// Bytes biased towards protocol syntax, so garbage often gets deep into the parser.
const garbageArb = fc
  .array(
    fc.oneof(
      fc.constantFrom(...'*$\r\n\r\n0123456789-+"\'\\ x\t'.split('').map((c) => c.charCodeAt(0))),
      fc.integer({ min: 0, max: 255 }),
      fc.constant(0),
    ),
    { maxLength: 300 },
  )
  .map((a) => Buffer.from(a));

test('garbage only ever throws ProtocolError, and chunking never changes the outcome', () => {
  fc.assert(
    fc.property(garbageArb, cutsArb(300), (bytes, cuts) => {
      // parseChunks rethrows anything that is not a ProtocolError, failing the property.
      const whole = parseChunks([bytes]);
      const split = parseChunks(splitAt(bytes, cuts));
      assert.deepEqual(split.commands, whole.commands);
      assert.equal(split.error, whole.error);
      if (whole.error === undefined) assert.equal(split.bufferedBytes, whole.bufferedBytes);
      if (whole.error !== undefined) assert.match(whole.error, /^ERR Protocol error: /);
    }),
    { numRuns: 3000 },
  );
});

test('garbage after valid commands never corrupts the commands already parsed', () => {
  fc.assert(
    fc.property(fc.array(argvArb, { minLength: 1, maxLength: 4 }), garbageArb, cutsArb(800), (argvs, garbage, cuts) => {
      const prefix = Buffer.concat(argvs.map((argv) => encodeCommand(argv)));
      const got = parseChunks(splitAt(Buffer.concat([prefix, garbage]), cuts));
      const expected = argvs.map((argv) => argv.map((a) => a.toString('latin1')));
      assert.deepEqual(got.commands.slice(0, expected.length), expected);
    }),
    { numRuns: 1000 },
  );
});

test('any declared bulk length is accepted or refused by value, without allocating it', () => {
  const before = process.memoryUsage().arrayBuffers;
  fc.assert(
    fc.property(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), (n) => {
      const got = parseChunks([Buffer.from(`*1\r\n$${n}\r\n`, 'latin1')]);
      const valid = n >= 0n && n <= 512n * 1024n * 1024n;
      assert.equal(got.error, valid ? undefined : 'ERR Protocol error: invalid bulk length');
      assert.deepEqual(got.commands, []);
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), (n) => {
      const got = parseChunks([Buffer.from(`*${n}\r\n`, 'latin1')]);
      const valid = n >= -(2n ** 63n) && n <= 2147483647n;
      assert.equal(got.error, valid ? undefined : 'ERR Protocol error: invalid multibulk length');
    }),
    { numRuns: 2000 },
  );
  assert.ok(process.memoryUsage().arrayBuffers - before < 64 * 1024 * 1024);
});
