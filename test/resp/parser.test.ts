// RequestParser against Redis 7.0.15's behaviour (request-cases.ts; protocol.redis.test.ts
// replays them against redis-server and the sluice server).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProtocolError, RequestParser } from '../../src/resp/parser.js';
import { latin1, parseChunks, splitAt } from './helpers.js';
import { CASES } from './request-cases.js';

function show(s: string): string {
  return JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}...(${s.length})` : s);
}

for (const c of CASES) {
  test(`parses ${show(c.input)}`, () => {
    const got = parseChunks([latin1(c.input)]);
    assert.deepEqual(got.commands, c.commands);
    assert.equal(got.error, c.error);
  });
}

test('every case gives the same outcome when split at any single byte offset', () => {
  for (const c of CASES) {
    if (c.chunkSensitive) continue;
    const bytes = latin1(c.input);
    const whole = parseChunks([bytes]);
    // Long inputs: the offsets around the interesting ends are enough.
    const offsets = bytes.length <= 200 ? [...Array(bytes.length + 1).keys()] : [0, 1, 2, 3, 5, 8, bytes.length - 3, bytes.length - 2, bytes.length - 1];
    for (const i of offsets) {
      const got = parseChunks(splitAt(bytes, [i]));
      assert.deepEqual(got.commands, whole.commands, `${show(c.input)} split at ${i}`);
      assert.equal(got.error, whole.error, `${show(c.input)} split at ${i}`);
    }
  }
});

test('every short case gives the same outcome when fed one byte at a time', () => {
  for (const c of CASES) {
    if (c.input.length > 200) continue;
    const bytes = latin1(c.input);
    const got = parseChunks([...bytes].map((b) => Buffer.from([b])));
    assert.deepEqual(got.commands, c.commands, show(c.input));
    assert.equal(got.error, c.error, show(c.input));
  }
});

const E = (s: string) => `ERR Protocol error: ${s}`;

test('ProtocolError carries the exact reply bytes, latin1 byte for byte', () => {
  const parser = new RequestParser();
  parser.push(latin1('*1\r\n\xc3\r\n'));
  assert.throws(
    () => parser.next(),
    (e: unknown) => {
      assert.ok(e instanceof ProtocolError);
      assert.equal(e.silent, false);
      assert.deepEqual(e.reply, latin1("-ERR Protocol error: expected '$', got '\xc3'\r\n"));
      return true;
    },
  );
});

test('many pipelined commands in one chunk come out in order', () => {
  const one = '*3\r\n$4\r\nXADD\r\n$1\r\ns\r\n$1\r\n*\r\n';
  const got = parseChunks([latin1(one.repeat(1000) + 'PING\r\n')]);
  assert.equal(got.commands.length, 1001);
  assert.deepEqual(got.commands[999], ['XADD', 's', '*']);
  assert.deepEqual(got.commands[1000], ['PING']);
  assert.equal(got.bufferedBytes, 0);
});

test('bufferedBytes counts bytes not yet parsed into a command or argument', () => {
  const parser = new RequestParser();
  parser.push(latin1('*2\r\n$3\r\nGET\r\n$5\r\nab'));
  assert.equal(parser.next(), null);
  assert.equal(parser.bufferedBytes, 2); // "ab": header and first argument are parsed
  parser.push(latin1('cde\r\n'));
  assert.deepEqual(parser.next()?.map(String), ['GET', 'abcde']);
  assert.equal(parser.bufferedBytes, 0);
  assert.equal(parser.next(), null);
});

test('arguments returned earlier stay intact while the buffer grows and moves', () => {
  const parser = new RequestParser();
  parser.push(latin1('*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n'));
  assert.equal(parser.next(), null);
  for (let i = 0; i < 100; i++) parser.push(Buffer.alloc(1000, 0x61 + (i % 26)));
  parser.push(latin1('\r\n*1\r\n$4\r\nPING\r\n'));
  const set = parser.next()!;
  const ping = parser.next()!;
  for (let i = 0; i < 50; i++) parser.push(latin1('*1\r\n$4\r\nZZZZ\r\n'.repeat(100)));
  assert.equal(set[0]!.toString(), 'SET');
  assert.equal(set[1]!.toString(), 'k');
  assert.equal(set[2]!.length, 100000);
  for (let i = 0; i < 100; i++) assert.equal(set[2]![i * 1000], 0x61 + (i % 26));
  assert.equal(ping[0]!.toString(), 'PING');
});

test('maxBulkLen is configurable and the limit itself is accepted', () => {
  assert.deepEqual(parseChunks([latin1('*1\r\n$10\r\n0123456789\r\n')], { maxBulkLen: 10 }).commands, [['0123456789']]);
  assert.equal(parseChunks([latin1('*1\r\n$11\r\n')], { maxBulkLen: 10 }).error, E('invalid bulk length'));
});

test('maxMultibulk is configurable', () => {
  assert.equal(parseChunks([latin1('*4\r\n')], { maxMultibulk: 3 }).error, E('invalid multibulk length'));
  assert.equal(parseChunks([latin1('*3\r\n')], { maxMultibulk: 3 }).error, undefined);
});

test('maxInline bounds inline requests and count lines in progress', () => {
  assert.equal(parseChunks([latin1('x'.repeat(11))], { maxInline: 10 }).error, E('too big inline request'));
  assert.equal(parseChunks([latin1('x'.repeat(10))], { maxInline: 10 }).error, undefined);
  assert.equal(parseChunks([latin1('*1111111111')], { maxInline: 10 }).error, E('too big mbulk count string'));
  assert.equal(parseChunks([latin1('*1\r\n$1111111111')], { maxInline: 10 }).error, E('too big bulk count string'));
});

test('huge declared lengths wait without allocating them', () => {
  const parser = new RequestParser();
  parser.push(latin1('*2147483647\r\n$536870912\r\n'));
  assert.equal(parser.next(), null);
  parser.push(latin1('abc'));
  assert.equal(parser.next(), null);
  assert.equal(parser.bufferedBytes, 3);
  // Had the parser reserved 512 MiB, this process would show it.
  assert.ok(process.memoryUsage().arrayBuffers < 256 * 1024 * 1024);
});

test('the query buffer limit is checked on push, as Redis does after each read', () => {
  const parser = new RequestParser({ maxQueryBuffer: 100 });
  parser.push(Buffer.alloc(60, 0x78));
  assert.throws(
    () => parser.push(Buffer.alloc(41, 0x78)),
    (e: unknown) => e instanceof ProtocolError && e.silent && /max query buffer length/.test(e.message),
  );
  // Parsed bytes no longer count.
  const ok = new RequestParser({ maxQueryBuffer: 100 });
  for (let i = 0; i < 20; i++) {
    ok.push(latin1('*1\r\n$4\r\nPING\r\n'));
    assert.deepEqual(ok.next()?.map(String), ['PING']);
  }
});

test('while authentication is required, counts above 10 and bulks above 16384 are refused', () => {
  assert.equal(parseChunks([latin1('*11\r\n')], {}, true).error, E('unauthenticated multibulk length'));
  assert.equal(parseChunks([latin1('*10\r\n')], {}, true).error, undefined);
  assert.equal(parseChunks([latin1('*1\r\n$16385\r\n')], {}, true).error, E('unauthenticated bulk length'));
  assert.deepEqual(parseChunks([latin1('*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n')], {}, true).commands, [['AUTH', 'pw']]);
  // Without the flag the same requests are fine.
  assert.equal(parseChunks([latin1('*11\r\n$16385\r\n')]).error, undefined);
});
