// Encoder: golden bytes for every reply type, byte equality with the original encoder on
// random reply trees, and take() views that later writes never overwrite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Encoder, encodeCommand, encodeCommands, encodeReply } from '../../src/resp/encoder.js';
import {
  BooleanReply, DoubleReply, ErrorReply, MapReply, NULL_ARRAY, OK,
  PushReply, type Reply, SetReply, SimpleString, StreamIdReply, VerbatimReply,
} from '../../src/resp/reply.js';
import { ReferenceEncoder } from './reference-encoder.js';
import { u64 } from '../../src/engine/stream-id.js';

const enc = (r: Reply, p: 2 | 3) => encodeReply(r, p).toString('latin1');

test('golden bytes, RESP2 and RESP3', () => {
  const cases: Array<[Reply, string, string]> = [
    ['abc', '$3\r\nabc\r\n', '$3\r\nabc\r\n'],
    ['', '$0\r\n\r\n', '$0\r\n\r\n'],
    ['é€', '$5\r\n\xc3\xa9\xe2\x82\xac\r\n', '$5\r\n\xc3\xa9\xe2\x82\xac\r\n'],
    [Buffer.from([0, 255, 13, 10]), '$4\r\n\x00\xff\r\n\r\n', '$4\r\n\x00\xff\r\n\r\n'],
    [0, ':0\r\n', ':0\r\n'],
    [-0, ':0\r\n', ':0\r\n'],
    [-12345, ':-12345\r\n', ':-12345\r\n'],
    [Number.MAX_SAFE_INTEGER, ':9007199254740991\r\n', ':9007199254740991\r\n'],
    [18446744073709551615n, ':18446744073709551615\r\n', ':18446744073709551615\r\n'],
    [null, '$-1\r\n', '_\r\n'],
    [NULL_ARRAY, '*-1\r\n', '_\r\n'],
    [[], '*0\r\n', '*0\r\n'],
    [[1, ['a']], '*2\r\n:1\r\n*1\r\n$1\r\na\r\n', '*2\r\n:1\r\n*1\r\n$1\r\na\r\n'],
    [OK, '+OK\r\n', '+OK\r\n'],
    [new ErrorReply('ERR bad\r\nthing\nhere'), '-ERR bad thing here\r\n', '-ERR bad thing here\r\n'],
    [new MapReply([['k', 1]]), '*2\r\n$1\r\nk\r\n:1\r\n', '%1\r\n$1\r\nk\r\n:1\r\n'],
    [new SetReply(['a']), '*1\r\n$1\r\na\r\n', '~1\r\n$1\r\na\r\n'],
    [new PushReply(['a']), '*1\r\n$1\r\na\r\n', '>1\r\n$1\r\na\r\n'],
    [new DoubleReply(1.5), '$3\r\n1.5\r\n', ',1.5\r\n'],
    [new DoubleReply(Infinity), '$3\r\ninf\r\n', ',inf\r\n'],
    [new DoubleReply(0.1), '$19\r\n0.10000000000000001\r\n', ',0.10000000000000001\r\n'],
    [new BooleanReply(true), ':1\r\n', '#t\r\n'],
    [new BooleanReply(false), ':0\r\n', '#f\r\n'],
    [new VerbatimReply('txt', 'héllo'), '$6\r\nh\xc3\xa9llo\r\n', '=10\r\ntxt:h\xc3\xa9llo\r\n'],
  ];
  for (const [reply, resp2, resp3] of cases) {
    assert.equal(enc(reply, 2), resp2, `RESP2 ${resp2}`);
    assert.equal(enc(reply, 3), resp3, `RESP3 ${resp3}`);
  }
});

test('long strings and buffers are written whole', () => {
  const s = 'x'.repeat(100_000) + 'é';
  assert.equal(enc(s, 2), `$100002\r\n${'x'.repeat(100_000)}\xc3\xa9\r\n`);
  const b = Buffer.alloc(70_000, 7);
  assert.deepEqual(encodeReply(b, 2), Buffer.concat([Buffer.from('$70000\r\n'), b, Buffer.from('\r\n')]));
});

const leaf: fc.Arbitrary<Reply> = fc.oneof(
  fc.uint8Array({ maxLength: 80 }).map((a) => Buffer.from(a)),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.oneof(fc.integer(), fc.double(), fc.maxSafeInteger()),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
  fc.constantFrom<Reply>(null, NULL_ARRAY, OK),
  fc.string({ unit: 'binary', maxLength: 300 }).map((s) => new SimpleString(s)),
  fc.string({ maxLength: 40 }).map((s) => new ErrorReply(`ERR ${s}`)),
  fc.double().map((d) => new DoubleReply(d)),
  fc.boolean().map((b) => new BooleanReply(b)),
  fc.string({ unit: 'binary', maxLength: 300 }).map((t) => new VerbatimReply('txt', t)),
);
const { tree } = fc.letrec<{ tree: Reply }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('tree'), { maxLength: 6 }),
    fc.array(fc.tuple(tie('tree'), tie('tree')), { maxLength: 4 }).map((e) => new MapReply(e)),
    fc.array(tie('tree'), { maxLength: 4 }).map((i) => new SetReply(i)),
    fc.array(tie('tree'), { maxLength: 4 }).map((i) => new PushReply(i)),
  ),
}));

test('byte for byte the same as the original encoder, with interleaved take()s', () => {
  for (const protocol of [2, 3] as const) {
    fc.assert(
      fc.property(fc.array(fc.tuple(tree, fc.boolean()), { minLength: 1, maxLength: 8 }), (writes) => {
        const encoder = new Encoder(protocol);
        const reference = new ReferenceEncoder(protocol);
        const taken: Buffer[] = [];
        const expected: Buffer[] = [];
        for (const [reply, takeNow] of writes) {
          encoder.write(reply);
          reference.write(reply);
          if (takeNow) {
            taken.push(encoder.take());
            expected.push(reference.take());
          }
        }
        taken.push(encoder.take());
        expected.push(reference.take());
        // Compared only at the end: a view overwritten by a later write would show here.
        assert.deepEqual(taken, expected);
      }),
      { numRuns: 500 },
    );
  }
});

test('take() with nothing written is empty; views survive the arena filling up', () => {
  const encoder = new Encoder(2);
  assert.equal(encoder.take().length, 0);
  const views: Buffer[] = [];
  for (let i = 0; i < 2000; i++) views.push(encoder.write(`value-${i}`).take());
  views.forEach((v, i) => assert.equal(v.toString(), `$${`value-${i}`.length}\r\nvalue-${i}\r\n`));
});

test('reuse() starts the arena over, refuses while bytes are untaken, and lets a big arena go', () => {
  const enc = new Encoder(2);
  const first = enc.write('first').take();
  enc.reuse(1 << 20);
  const second = enc.write('again').take();
  assert.equal(second.buffer, first.buffer);
  assert.equal(second.byteOffset, first.byteOffset);
  assert.equal(second.toString(), '$5\r\nagain\r\n');
  enc.write('untaken');
  assert.throws(() => enc.reuse(1 << 20), /since the last take/);
  enc.take();
  enc.reuse(1024); // the 16 KB arena is over the limit
  assert.notEqual(enc.write('x').take().buffer, first.buffer);
});

test('encodeCommand writes a RESP array of bulk strings', () => {
  assert.equal(encodeCommand(['SET', Buffer.from('k'), 'é']).toString('latin1'), '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\n\xc3\xa9\r\n');
  assert.equal(encodeCommand([]).toString('latin1'), '*0\r\n');
});

test('encodeCommands: RESP arrays of bulk strings (texts as UTF-8, numbers and bigints in decimal), views of one buffer', () => {
  const arg = fc.oneof(
    fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.string({ unit: 'grapheme-ascii', maxLength: 70 }),
    fc.string({ maxLength: 200 }),
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.bigInt(),
  );
  // The reference: the RESP text built the plain way, each bulk string's length its UTF-8 bytes.
  const reference = (argv: Array<Buffer | string | number | bigint>): Buffer =>
    Buffer.concat([
      Buffer.from(`*${argv.length}\r\n`),
      ...argv.flatMap((a) => {
        const bytes = Buffer.isBuffer(a) ? a : Buffer.from(String(a), 'utf8');
        return [Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n')];
      }),
    ]);
  fc.assert(
    fc.property(fc.array(fc.array(arg, { maxLength: 12 }), { maxLength: 20 }), (commands) => {
      const views = encodeCommands(commands);
      assert.equal(views.length, commands.length);
      commands.forEach((argv, i) => {
        assert.deepEqual(views[i], reference(argv));
        if (i > 0) assert.equal(views[i]!.buffer, views[0]!.buffer);
      });
    }),
  );
});

// Ids reach the encoder as canonical U64s (stream-id.ts): numbers below 2^53, bigints above.
const idReply = (ms: bigint, seq: bigint) => new StreamIdReply(u64(ms), u64(seq));

test('command() writes what encodeCommand writes for the same arguments, stream ids as their text', () => {
  const u64s = fc.oneof(fc.bigInt({ min: 0n, max: 1n << 20n }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }));
  const arg = fc.oneof(
    fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b)),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.tuple(u64s, u64s).map(([ms, seq]) => idReply(ms, seq)),
  );
  fc.assert(
    fc.property(fc.array(fc.array(arg, { maxLength: 8 }), { minLength: 1, maxLength: 5 }), (commands) => {
      // One encoder for all: the cached ms digits of one id must not leak into the next.
      const encoder = new Encoder(2);
      for (const argv of commands) encoder.command(argv);
      const asText = (a: Buffer | string | StreamIdReply) => (a instanceof StreamIdReply ? a.toString() : a);
      assert.deepEqual(encoder.take(), Buffer.concat(commands.map((argv) => encodeCommand(argv.map(asText)))));
    }),
  );
});

test('a stream id is the bulk string "ms-seq", beyond 2^53 too', () => {
  const cases: Array<[bigint, bigint]> = [
    [0n, 0n],
    [9n, 10n],
    [1764732932000n, 15n],
    [9007199254740991n, 9007199254740991n],
    [9007199254740992n, 1n],
    [5n, 18446744073709551615n],
    [18446744073709551615n, 18446744073709551615n],
  ];
  fc.assert(
    fc.property(
      fc.oneof(fc.bigInt({ min: 0n, max: 18446744073709551615n }), fc.bigInt({ min: 0n, max: 2n ** 53n + 2n })),
      fc.oneof(fc.bigInt({ min: 0n, max: 18446744073709551615n }), fc.bigInt({ min: 0n, max: 2n ** 53n + 2n })),
      (ms, seq) => {
        cases.push([ms, seq]);
      },
    ),
    { numRuns: 200 },
  );
  for (const [ms, seq] of cases) {
    const text = `${ms}-${seq}`;
    for (const protocol of [2, 3] as const) {
      assert.equal(enc(idReply(ms, seq), protocol), `$${text.length}\r\n${text}\r\n`);
    }
  }
  // In an array, after other replies, and through take() boundaries.
  const e = new Encoder(2);
  e.write(['x', idReply(1n, 2n)]);
  assert.equal(e.take().toString('latin1'), '*2\r\n$1\r\nx\r\n$3\r\n1-2\r\n');
  // One encoder, ids in sequence: the same ms again, another one, one past 2^53, back.
  const sequence: Array<[bigint, bigint]> = [[1764732932000n, 0n], [1764732932000n, 1n], [99n, 7n], [1764732932000n, 2n],
    [2n ** 60n, 3n], [1764732932000n, 3n], [0n, 0n], [10n, 10n]];
  for (const [ms, seq] of sequence) e.write(idReply(ms, seq));
  const expected = sequence.map(([ms, seq]) => `${ms}-${seq}`).map((t) => `$${t.length}\r\n${t}\r\n`).join('');
  assert.equal(e.take().toString('latin1'), expected);
});

test('runs of stream ids, many sharing their ms (the cached ms digits), through one encoder', () => {
  const safeMs = fc.oneof(fc.integer({ min: 0, max: 99 }), fc.maxSafeInteger().map((n) => Math.abs(n)), fc.constant(2 ** 31), fc.constant(1e8));
  fc.assert(
    fc.property(fc.array(fc.tuple(safeMs, fc.integer({ min: 0, max: 3 }), fc.nat()), { minLength: 1, maxLength: 30 }), (runs) => {
      const e = new Encoder(2);
      let expected = '';
      for (const [ms, repeat, seq] of runs) {
        for (let i = 0; i <= repeat; i++) {
          const text = `${ms}-${seq + i}`;
          e.write(new StreamIdReply(ms, seq + i));
          expected += `$${text.length}\r\n${text}\r\n`;
        }
      }
      assert.equal(e.take().toString('latin1'), expected);
    }),
    { numRuns: 300 },
  );
});

test('take() lets go of an arena that grew past 1 MB for a big reply, and keeps a small one', () => {
  const enc = new Encoder(2);
  const small = enc.write('small').take();
  assert.equal(enc.write('next').take().buffer, small.buffer); // the 16 KB arena is kept
  const big = enc.write(Buffer.alloc(3 << 20, 120)).take();
  assert.equal(big.length, (3 << 20) + 12);
  // The arena grew to twice the reply; holding it would keep ~6 MB for the connection's life.
  assert.notEqual(enc.write('after').take().buffer, big.buffer);
});
