// RequestArgs: a request read in place must give the same bytes, keys and copies as the argv
// it stands for, however the request was split across reads (the arena may be replaced while
// a request is arriving, and its first arguments then keep the old one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encodeCommand } from '../../src/resp/encoder.js';
import { RequestParser } from '../../src/resp/parser.js';
import { type QueuedRequest, RequestArgs } from '../../src/resp/request-args.js';

/** Every accessor of `args` against the argument Buffers it should stand for. */
function assertArgs(args: RequestArgs, expected: Buffer[]): void {
  assert.equal(args.length, expected.length);
  for (let i = 0; i < expected.length; i++) {
    const want = expected[i]!;
    assert.deepEqual(args.buffer(i), want, `buffer(${i})`);
    assert.equal(args.key(i), want.toString('latin1'), `key(${i})`);
    assert.equal(args.byteLength(i), want.length);
    const copy = args.copy(i);
    assert.deepEqual(copy, want, `copy(${i})`);
    // A copy owns its bytes: writing into it leaves the request alone.
    if (copy.length > 0) {
      copy[0] = copy[0]! ^ 0xff;
      assert.deepEqual(args.buffer(i), want);
    }
    // Only ASCII letters fold, as Redis's strcasecmp does for command names and options.
    const lowered = String.fromCharCode(...want.map((c) => (c >= 65 && c <= 90 ? c + 32 : c)));
    assert.equal(args.is(i, lowered), true, `is(${i})`);
    assert.equal(args.is(i, `${lowered}x`), false);
    if (want.length > 0) {
      assert.equal(args.lowerByte(i, 0), lowered.charCodeAt(0));
      assert.equal(args.is(i, String.fromCharCode(lowered.charCodeAt(0) ^ 1) + lowered.slice(1)), false);
    }
  }
  assert.deepEqual(args.toArgv(), expected);
  assert.equal(args.toArgv(), args.toArgv(), 'built once per request');
}

/** Feeds the chunks as a socket connection does (copied out of a shared read buffer). */
function parseCopied(chunks: Buffer[], check: (args: RequestArgs) => void): number {
  const parser = new RequestParser();
  let seen = 0;
  for (const chunk of chunks) {
    const shared = Buffer.from(chunk);
    parser.pushCopy(shared);
    shared.fill(0); // the shared read buffer is reused at once
    for (let args = parser.nextArgs(); args !== null; args = parser.nextArgs()) {
      check(args);
      seen++;
    }
  }
  return seen;
}

test('a request read in place gives its arguments whatever the read boundaries', () => {
  const arg = fc.oneof(
    fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b)),
    fc.uint8Array({ minLength: 30, maxLength: 5000 }).map((b) => Buffer.from(b)),
    fc.constantFrom('SET', 'get', 'XaDd', '*', '~', 'maxlen').map((s) => Buffer.from(s)),
  );
  fc.assert(
    fc.property(fc.array(fc.array(arg, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 6 }), (commands, cuts) => {
      const bytes = Buffer.concat(commands.map((c) => encodeCommand(c)));
      const offsets = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
      const chunks: Buffer[] = [];
      let from = 0;
      for (const at of [...offsets, bytes.length]) {
        chunks.push(bytes.subarray(from, at));
        from = at;
      }
      let n = 0;
      const seen = parseCopied(chunks, (args) => assertArgs(args, commands[n++]!));
      assert.equal(seen, commands.length);
    }),
    { numRuns: 300 },
  );
});

test('a request kept for later (MULTI) loads back to its arguments after the parser moved on', () => {
  const arg = fc.oneof(
    fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b)),
    fc.uint8Array({ minLength: 90, maxLength: 20_000 }).map((b) => Buffer.from(b)),
    fc.constantFrom('HSET', 'multi', 'x').map((s) => Buffer.from(s)),
  );
  fc.assert(
    fc.property(fc.array(fc.array(arg, { minLength: 1, maxLength: 24 }), { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 6 }), (commands, cuts) => {
      const bytes = Buffer.concat(commands.map((c) => encodeCommand(c)));
      const offsets = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
      const chunks: Buffer[] = [];
      let from = 0;
      for (const at of [...offsets, bytes.length]) {
        chunks.push(bytes.subarray(from, at));
        from = at;
      }
      const kept: QueuedRequest[] = [];
      parseCopied(chunks, (args) => kept.push(args.keep()));
      assert.equal(kept.length, commands.length);
      // One RequestArgs loaded with each in turn, as EXEC does.
      const reused = new RequestArgs();
      kept.forEach((k, i) => {
        assert.equal(k.length, commands[i]!.length);
        assertArgs(reused.load(k), commands[i]!);
        assert.deepEqual(k.toArgv(), commands[i]);
      });
    }),
    { numRuns: 200 },
  );
  // Arguments that are not where a RESP request puts them (offsets of every one kept).
  const arena = Buffer.from('..abc..de...fghi');
  const args = new RequestArgs();
  args.push(arena, 2, 5);
  args.push(arena, 7, 9);
  args.push(arena, 12, 16);
  const k = args.keep();
  assert.notEqual(k.ranges, null);
  assertArgs(new RequestArgs().load(k), ['abc', 'de', 'fghi'].map((s) => Buffer.from(s)));
});

test('the first arguments keep the old arena when it is replaced mid-request', () => {
  // 20 KiB arrives after the first two arguments: the copied-read arena (16 KiB) is outgrown.
  const big = Buffer.alloc(20 * 1024, 'v');
  const request = encodeCommand([Buffer.from('SET'), Buffer.from('key:1'), big]);
  const split = request.indexOf('key:1') + 8;
  const seen = parseCopied([request.subarray(0, split), request.subarray(split)], (args) =>
    assertArgs(args, [Buffer.from('SET'), Buffer.from('key:1'), big]),
  );
  assert.equal(seen, 1);
});

test('inline requests and argv-built requests read the same way', () => {
  parseCopied([Buffer.from('set "a b" \'c\' d\r\n')], (args) => assertArgs(args, ['set', 'a b', 'c', 'd'].map((s) => Buffer.from(s))));
  const argv = ['XADD', 's', '*', 'f', 'v'].map((s) => Buffer.from(s));
  const args = RequestArgs.of(argv);
  assertArgs(args, argv);
  assert.equal(args.toArgv(), argv, 'an argv is used as it is');
});

test('keys read one after another are each their own, however alike', () => {
  // key() reuses the string it decoded last when the bytes are the same: keys that differ in
  // one byte only (first, middle or last), by case, or above 127 must not be taken for it.
  const key = fc.oneof(
    fc.array(fc.constantFrom(0x61, 0x62, 0x41, 0xe9, 0x00), { minLength: 1, maxLength: 4 }),
    fc.array(fc.constantFrom(0x61, 0x62), { minLength: 31, maxLength: 34 }),
  ).map((bytes) => Buffer.from(bytes));
  fc.assert(
    fc.property(fc.array(key, { minLength: 2, maxLength: 12 }), (keys) => {
      const requests = keys.map((k) => encodeCommand(['GET', k]));
      let i = 0;
      parseCopied([Buffer.concat(requests)], (args) => {
        assert.equal(args.key(1), keys[i]!.toString('latin1'), `key ${i}`);
        i++;
      });
      assert.equal(i, keys.length);
    }),
  );
});
