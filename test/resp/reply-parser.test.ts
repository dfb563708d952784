// ReplyParser: random Reply trees encoded by our Encoder (RESP2 and RESP3), split at random
// points, must come back as the exact bytes and the matching decoded values; plus RESP3
// spec examples for the types our Encoder never writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encodeReply, formatDouble, type Protocol } from '../../src/resp/encoder.js';
import {
  BooleanReply, DoubleReply, ErrorReply, MapReply, NULL_ARRAY, PushReply,
  type Reply, SetReply, SimpleString, VerbatimReply,
} from '../../src/resp/reply.js';
import { Attributed, type Frame, frameOf, parseAll, type ParsedReply, ReplyParseError, ReplyParser } from '../support/reply-parser.js';
import { cutsArb, splitAt } from './helpers.js';

const lineText = fc.string({ unit: 'grapheme', maxLength: 20 }).filter((s) => !/[\r\n]/.test(s));

const leafArb: fc.Arbitrary<Reply> = fc.oneof(
  fc.uint8Array({ maxLength: 30 }).map((a) => Buffer.from(a)),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }),
  fc.constant(null),
  fc.constant(NULL_ARRAY),
  lineText.map((s) => new SimpleString(s)),
  lineText.map((s) => new ErrorReply(`ERR ${s}`)),
  fc.double().map((d) => new DoubleReply(d)),
  fc.boolean().map((b) => new BooleanReply(b)),
  fc
    .tuple(fc.constantFrom('txt', 'mkd'), fc.string({ unit: 'grapheme', maxLength: 30 }))
    .map(([f, t]) => new VerbatimReply(f, t)),
);

const { reply: replyArb } = fc.letrec<{ reply: Reply }>((tie) => ({
  reply: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafArb,
    fc.array(tie('reply'), { maxLength: 5 }),
    fc.array(fc.tuple(tie('reply'), tie('reply')), { maxLength: 4 }).map((e) => new MapReply(e)),
    fc.array(tie('reply'), { maxLength: 4 }).map((i) => new SetReply(i)),
    fc.array(tie('reply'), { maxLength: 4 }).map((i) => new PushReply(i)),
  ),
}));

/** What the parser should decode `r` into after the encoder wrote it in `protocol`. */
function expected(r: Reply, protocol: Protocol): unknown {
  const e = (x: Reply) => expected(x, protocol);
  if (typeof r === 'string') return Buffer.from(r, 'utf8');
  if (typeof r === 'bigint') return r <= BigInt(Number.MAX_SAFE_INTEGER) && r >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(r) : r;
  if (r === NULL_ARRAY) return protocol === 3 ? null : NULL_ARRAY;
  if (r === null || typeof r === 'number' || Buffer.isBuffer(r)) return r;
  if (Array.isArray(r)) return r.map(e);
  if (r instanceof SimpleString || r instanceof ErrorReply) return r;
  if (r instanceof MapReply) {
    return protocol === 3 ? new MapReply(r.entries.map(([k, v]) => [e(k), e(v)] as [Reply, Reply])) : r.entries.flatMap(([k, v]) => [e(k), e(v)]);
  }
  if (r instanceof SetReply) return protocol === 3 ? new SetReply(r.items.map(e) as Reply[]) : r.items.map(e);
  if (r instanceof PushReply) return protocol === 3 ? new PushReply(r.items.map(e) as Reply[]) : r.items.map(e);
  if (r instanceof DoubleReply) {
    const text = formatDouble(r.value);
    return protocol === 3 ? new DoubleReply(text === 'nan' ? NaN : text === 'inf' ? Infinity : text === '-inf' ? -Infinity : Number(text)) : Buffer.from(text);
  }
  if (r instanceof BooleanReply) return protocol === 3 ? r : r.value ? 1 : 0;
  if (r instanceof VerbatimReply) return protocol === 3 ? r : Buffer.from(r.text, 'utf8');
  throw new TypeError('unexpected reply');
}



for (const protocol of [2, 3] as const) {
  test(`RESP${protocol}: encoded reply sequences split anywhere parse back to the same bytes and values`, () => {
    fc.assert(
      fc.property(fc.array(replyArb, { minLength: 1, maxLength: 6 }), cutsArb(3000), (replies, cuts) => {
        const encoded = replies.map((r) => encodeReply(r, protocol));
        const parsed = parseAll(splitAt(Buffer.concat(encoded), cuts));
        assert.equal(parsed.length, replies.length);
        for (let i = 0; i < replies.length; i++) {
          assert.deepEqual(parsed[i]!.raw, encoded[i]);
          assert.deepEqual(parsed[i]!.value, expected(replies[i]!, protocol));
          // Decoded values are Replies again, and re-encode to the very same bytes.
          assert.deepEqual(encodeReply(parsed[i]!.value as Reply, protocol), encoded[i]);
        }
      }),
      { numRuns: 1000 },
    );
  });
}

/** A frame's bytes are its header line and then its elements' bytes, at every level. */
function assertFrameTree(f: Frame): void {
  if (f.children === undefined) return;
  const header = f.raw.subarray(0, f.raw.indexOf('\r\n') + 2);
  assert.deepEqual(Buffer.concat([header, ...f.children.map((c) => c.raw)]), f.raw);
  for (const c of f.children) {
    assertFrameTree(c);
    if (f.type !== '|') assert.deepEqual(frameOf(c.raw), c, 'an element parsed alone is the same frame');
  }
}

test('with frames: every element of a reply is a frame of its exact bytes, whatever the chunking', () => {
  fc.assert(
    fc.property(replyArb, fc.constantFrom<Protocol>(2, 3), cutsArb(400), (reply, protocol, cuts) => {
      const bytes = encodeReply(reply, protocol);
      const [parsed, ...rest] = parseAll(splitAt(bytes, cuts), { frames: true });
      assert.equal(rest.length, 0);
      assert.deepEqual(parsed!.frame!.raw, bytes);
      assert.equal(parsed!.frame!.type, String.fromCharCode(bytes[0]!));
      assertFrameTree(parsed!.frame!);
    }),
    { numRuns: 500 },
  );
  // An attribute and the reply it annotates are one '|' frame, at top level and inside an array.
  const top = frameOf(Buffer.from('|1\r\n+ttl\r\n:3600\r\n*1\r\n:2\r\n'));
  assert.deepEqual([top.type, top.children!.map((c) => c.raw.toString())], ['|', ['+ttl\r\n', ':3600\r\n', '*1\r\n:2\r\n']]);
  const nested = frameOf(Buffer.from('*2\r\n:1\r\n|1\r\n+ttl\r\n:3600\r\n:2\r\n'));
  assert.deepEqual(nested.children!.map((c) => [c.type, c.raw.toString()]), [[':', ':1\r\n'], ['|', '|1\r\n+ttl\r\n:3600\r\n:2\r\n']]);
  assertFrameTree(nested);
  // Streamed: one frame for the whole string or aggregate; empty aggregates have no elements.
  assert.deepEqual(frameOf(Buffer.from('$?\r\n;2\r\nab\r\n;0\r\n')), { type: '$', raw: Buffer.from('$?\r\n;2\r\nab\r\n;0\r\n') });
  const streamed = frameOf(Buffer.from('*?\r\n:1\r\n.\r\n'));
  assert.deepEqual([streamed.type, streamed.children!.map((c) => c.raw.toString())], ['*', [':1\r\n']]);
  assert.deepEqual(frameOf(Buffer.from('*0\r\n')).children, []);
  assert.equal(frameOf(Buffer.from('*-1\r\n')).children, undefined);
});

test('a reply fed one byte at a time is delivered once, when its last byte arrives', () => {
  const bytes = encodeReply([new MapReply([['a', [1n, 2, null]]]), Buffer.from('x\r\ny'), new DoubleReply(1.5)], 3);
  const parser = new ReplyParser();
  for (let i = 0; i < bytes.length - 1; i++) {
    parser.push(bytes.subarray(i, i + 1));
    assert.equal(parser.next(), undefined);
  }
  parser.push(bytes.subarray(bytes.length - 1));
  const r = parser.next();
  assert.deepEqual(r?.raw, bytes);
  assert.equal(parser.next(), undefined);
});

function parseOne(text: string): ParsedReply {
  const parsed = parseAll([Buffer.from(text, 'latin1')]);
  assert.equal(parsed.length, 1);
  assert.equal(parsed[0]!.raw.toString('latin1'), text);
  return parsed[0]!;
}

test('RESP3 types the encoder never writes: big numbers, blob errors, +inf and friends', () => {
  assert.equal(parseOne('(3492890328409238509324850943850943825024385\r\n').value, 3492890328409238509324850943850943825024385n);
  assert.equal(parseOne('(1\r\n').value, 1n);
  assert.deepEqual(parseOne('!21\r\nSYNTAX invalid syntax\r\n').value, new ErrorReply('SYNTAX invalid syntax'));
  assert.deepEqual(parseOne('!22\r\nSYNTAX invalid\r\nsyntax\r\n').value, new ErrorReply('SYNTAX invalid\r\nsyntax'));
  assert.deepEqual(parseOne('=15\r\ntxt:Some string\r\n').value, new VerbatimReply('txt', 'Some string'));
  assert.deepEqual(parseOne(',+inf\r\n').value, new DoubleReply(Infinity));
  assert.deepEqual(parseOne(',-inf\r\n').value, new DoubleReply(-Infinity));
  assert.deepEqual(parseOne(',1.23e-5\r\n').value, new DoubleReply(1.23e-5));
  assert.deepEqual(parseOne(',.5\r\n').value, new DoubleReply(0.5));
  assert.equal(parseOne(':-9223372036854775808\r\n').value, -9223372036854775808n);
  assert.equal(parseOne(':+7\r\n').value, 7);
  assert.deepEqual(parseOne('*0\r\n').value, []);
  assert.deepEqual(parseOne('%0\r\n').value, new MapReply([]));
  assert.deepEqual(parseOne('$0\r\n\r\n').value, Buffer.alloc(0));
  assert.equal(parseOne('*-1\r\n').value, NULL_ARRAY);
  assert.equal(parseOne('$-1\r\n').value, null);
  assert.equal(parseOne('_\r\n').value, null);
});

test('attributes wrap the reply that follows them, at top level and inside aggregates', () => {
  // The example from the RESP3 specification.
  const top = parseOne(
    '|1\r\n+key-popularity\r\n%2\r\n$1\r\na\r\n,0.1923\r\n$1\r\nb\r\n,0.0012\r\n*2\r\n:2039123\r\n:9543892\r\n',
  );
  assert.ok(top.value instanceof Attributed);
  assert.deepEqual(top.value.value, [2039123, 9543892]);
  assert.deepEqual(
    top.value.attributes,
    new MapReply([
      [
        new SimpleString('key-popularity'),
        new MapReply([
          [Buffer.from('a'), new DoubleReply(0.1923)],
          [Buffer.from('b'), new DoubleReply(0.0012)],
        ]),
      ],
    ]),
  );
  // Inside an array the attribute is not an element: *2 still holds two values.
  const nested = parseOne('*2\r\n:1\r\n|1\r\n+ttl\r\n:3600\r\n:2\r\n');
  assert.deepEqual(nested.value, [1, new Attributed(new MapReply([[new SimpleString('ttl'), 3600]]), 2)]);
});

test('streamed strings and aggregates (RESP3 "?" lengths) decode like fixed-length ones', () => {
  assert.deepEqual(parseOne('$?\r\n;4\r\nHell\r\n;5\r\no wor\r\n;1\r\nd\r\n;0\r\n').value, Buffer.from('Hello word'));
  assert.deepEqual(parseOne('*?\r\n:1\r\n:2\r\n:3\r\n.\r\n').value, [1, 2, 3]);
  assert.deepEqual(parseOne('%?\r\n+a\r\n:1\r\n+b\r\n:2\r\n.\r\n').value, new MapReply([[new SimpleString('a'), 1], [new SimpleString('b'), 2]]));
  assert.deepEqual(parseOne('~?\r\n*?\r\n.\r\n$?\r\n;0\r\n.\r\n').value, new SetReply([[], Buffer.alloc(0)]));
  const bytes = Buffer.from('*2\r\n$?\r\n;2\r\nab\r\n;0\r\n*?\r\n#t\r\n.\r\n', 'latin1');
  for (let i = 0; i <= bytes.length; i++) {
    const parsed = parseAll(splitAt(bytes, [i, i + 3]));
    assert.deepEqual(parsed.map((p) => p.value), [[Buffer.from('ab'), [new BooleanReply(true)]]]);
  }
  for (const bad of ['$?\r\n:1\r\n', ';3\r\nabc\r\n', '.\r\n', '*1\r\n.\r\n', '%?\r\n:1\r\n.\r\n']) {
    const parser = new ReplyParser();
    parser.push(Buffer.from(bad, 'latin1'));
    assert.throws(() => parser.next(), ReplyParseError, JSON.stringify(bad));
  }
});

test('a push and a reply arriving together are two top-level replies', () => {
  const parsed = parseAll([Buffer.from('>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n+OK\r\n', 'latin1')]);
  assert.deepEqual(parsed.map((p) => p.value), [
    new PushReply([Buffer.from('message'), Buffer.from('ch'), Buffer.from('hi')]),
    new SimpleString('OK'),
  ]);
});

test('malformed replies throw ReplyParseError', () => {
  for (const bad of ['?x\r\n', '$3\r\nabcd\r\n', ':12a\r\n', '#x\r\n', ',1.2.3\r\n', '*-2\r\n', '$01x\r\n', '+OK\rX', '_x\r\n', '=3\r\ntxt\r\n', '%-1\r\n']) {
    const parser = new ReplyParser();
    parser.push(Buffer.from(bad, 'latin1'));
    assert.throws(() => parser.next(), ReplyParseError, JSON.stringify(bad));
  }
});

test('a long bulk reply arriving in many chunks is parsed once and intact', () => {
  const payload = Buffer.alloc(1_000_000);
  for (let i = 0; i < payload.length; i++) payload[i] = i % 251;
  const bytes = encodeReply([payload, 'tail'], 2);
  const parser = new ReplyParser();
  let result: ParsedReply | undefined;
  for (let i = 0; i < bytes.length; i += 1000) {
    parser.push(Buffer.from(bytes.subarray(i, i + 1000)));
    const r = parser.next();
    if (r !== undefined) result = r;
  }
  assert.deepEqual(result?.raw, bytes);
  assert.deepEqual((result?.value as Reply[])[0], payload);
});

test('garbage only ever throws ReplyParseError, whatever the chunking', () => {
  const byteArb = fc.oneof(
    fc.constantFrom(...'*$%~>|!=(,#_:+-\r\n\r\n0123456789-tf.'.split('').map((c) => c.charCodeAt(0))),
    fc.integer({ min: 0, max: 255 }),
  );
  fc.assert(
    fc.property(fc.array(byteArb, { maxLength: 200 }), cutsArb(200), (bytes, cuts) => {
      const outcome = (chunks: Buffer[]) => {
        const parser = new ReplyParser();
        const raws: string[] = [];
        try {
          for (const chunk of chunks) {
            parser.push(chunk);
            for (let r = parser.next(); r !== undefined; r = parser.next()) raws.push(r.raw.toString('latin1'));
          }
        } catch (e) {
          if (!(e instanceof ReplyParseError)) throw e;
          return { raws, error: true };
        }
        return { raws, error: false };
      };
      const buf = Buffer.from(bytes);
      const whole = outcome([buf]);
      const split = outcome(splitAt(buf, cuts));
      assert.deepEqual(split.raws, whole.raws);
      if (!whole.error) assert.equal(split.error, false);
    }),
    { numRuns: 3000 },
  );
});
