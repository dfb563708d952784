// RequestParser against Redis 7.0.15's behaviour. Every expected outcome in CASES was
// checked by sending the same bytes to redis-server 7.0.15 over a socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProtocolError, RequestParser } from '../../src/resp/parser.js';
import { latin1, parseChunks, splitAt } from './helpers.js';

interface Case {
  input: string; // latin1
  commands: string[][];
  error?: string;
  /** Outcome legitimately depends on chunking (the 64 KiB limit applies to lines in progress). */
  chunkSensitive?: boolean;
}

const E = (s: string) => `ERR Protocol error: ${s}`;

const CASES: Case[] = [
  { input: '*1\r\n$4\r\nPING\r\n', commands: [['PING']] },
  { input: '*2\r\n$4\r\nECHO\r\n$0\r\n\r\n', commands: [['ECHO', '']] },
  { input: '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\nb\r\n', commands: [['SET', 'k', 'a\r\nb']] },
  // pipelining, skipped empty requests
  { input: '*0\r\n*-1\r\n*-5\r\nPING\r\n\r\n\n   \r\n*1\r\n$4\r\nPING\r\n', commands: [['PING'], ['PING']] },
  { input: '*-9223372036854775808\r\nPING\r\n', commands: [['PING']] },
  // the two bytes after '\r' and after a payload are skipped unchecked
  { input: '*1\rX$4\r\nPINGxx', commands: [['PING']] },
  { input: '*1\r\n$4\rXPINGxx*1\r\n$4\r\nPING\r\n', commands: [['PING'], ['PING']] },
  // binary payloads, NUL inside a bulk is fine
  { input: '*1\r\n$4\r\nPI\x00G\r\n', commands: [['PI\x00G']] },
  { input: '*1\r\n$2\r\n\xff\xfe\r\n', commands: [['\xff\xfe']] },
  // incomplete requests wait
  { input: '*1\r\n$536870912\r\n', commands: [] },
  { input: '*2147483647\r\n', commands: [] },
  { input: '*1\r\n$1\r', commands: [] },
  { input: '*1\r\n$4\r\nPING\r', commands: [] },
  // a NUL before the '\r' / '\n' hides the line from strchr: it waits
  { input: '*1\x00\r\n', commands: [] },
  { input: '*1\r\n$1\x00\r\nx\r\n', commands: [] },
  { input: '*1\r\nx\x00\r\n', commands: [] },
  { input: 'PI\x00NG\r\n', commands: [] },
  // multibulk count errors
  { input: '*x\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*+1\r\n$1\r\nx\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*-0\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*01\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*1 \r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*2147483648\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*3000000000\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*-9223372036854775809\r\n', commands: [], error: E('invalid multibulk length') },
  { input: `*${'1'.repeat(70000)}\r\n`, commands: [], error: E('invalid multibulk length'), chunkSensitive: true },
  // bulk header errors
  { input: '*1\r\n+4\r\n', commands: [], error: E("expected '$', got '+'") },
  { input: '*1\r\n\r\n', commands: [], error: E("expected '$', got ' '") },
  { input: '*1\r\n\n\r\n', commands: [], error: E("expected '$', got ' '") },
  { input: '*1\r\n\xc3\r\n', commands: [], error: E("expected '$', got '\xc3'") },
  { input: '*2\r\n$4\r\nECHO\r\nPING\r\n', commands: [], error: E("expected '$', got 'P'") },
  { input: '*1\r\n$-1\r\n', commands: [], error: E('invalid bulk length') },
  { input: '*1\r\n$-0\r\n', commands: [], error: E('invalid bulk length') },
  { input: '*1\r\n$01\r\nx\r\n', commands: [], error: E('invalid bulk length') },
  { input: '*1\r\n$\r\n', commands: [], error: E('invalid bulk length') },
  { input: '*1\r\n$536870913\r\n', commands: [], error: E('invalid bulk length') },
  { input: '*1\r\n$9223372036854775807\r\n', commands: [], error: E('invalid bulk length') },
  { input: '*1\r\n$99999999999999999999\r\n', commands: [], error: E('invalid bulk length') },
  // commands before an error are still delivered
  { input: '*1\r\n$4\r\nPING\r\n*x\r\n', commands: [['PING']], error: E('invalid multibulk length') },
  // length limits on lines without their '\r' / '\n'
  { input: `*1${'1'.repeat(65535)}`, commands: [], error: E('too big mbulk count string') },
  { input: `*1${'1'.repeat(65534)}`, commands: [] },
  { input: '*1\x00' + 'x'.repeat(70000), commands: [], error: E('too big mbulk count string') },
  { input: `*1\r\n$${'1'.repeat(65536)}`, commands: [], error: E('too big bulk count string') },
  { input: '*1\r\n\x00' + 'x'.repeat(70000), commands: [], error: E('too big bulk count string') },
  { input: 'x'.repeat(65536), commands: [] },
  { input: 'x'.repeat(65537), commands: [], error: E('too big inline request') },
  // inline commands, sdssplitargs quoting
  { input: 'PING\n', commands: [['PING']] },
  { input: 'PING\r\n', commands: [['PING']] },
  { input: '\r\n\nPING\r\n', commands: [['PING']] },
  { input: '  set   a\tb  \r\n', commands: [['set', 'a', 'b']] },
  { input: 'set a "x\\x41\\n" \r\n get a\r\n', commands: [['set', 'a', 'xA\n'], ['get', 'a']] },
  { input: 'ECHO "a\\qb\\""\r\n', commands: [['ECHO', 'aqb"']] },
  { input: 'ECHO "\\x4g"\r\n', commands: [['ECHO', 'x4g']] },
  { input: 'ECHO "\\r\\t\\b\\a\\\\"\r\n', commands: [['ECHO', '\r\t\b\x07\\']] },
  { input: "ECHO 'a\\'b\\n'\r\n", commands: [['ECHO', "a'b\\n"]] },
  { input: 'ECHO "" \'\'\r\n', commands: [['ECHO', '', '']] },
  { input: 'ab"c d" e\r\n', commands: [['abc d', 'e']] },
  { input: 'ECHO a\x0bb\r\n', commands: [['ECHO', 'a\x0bb']] },
  { input: 'PING \x0bx\r\n', commands: [['PING', 'x']] },
  { input: 'ECHO "a\r"\r\n', commands: [['ECHO', 'a\r']] },
  { input: 'ECHO a\rb\r\n', commands: [['ECHO', 'a', 'b']] },
  { input: 'ECHO \xe9t\xe9\r\n', commands: [['ECHO', '\xe9t\xe9']] },
  { input: 'set a "x\r\n', commands: [], error: E('unbalanced quotes in request') },
  { input: 'set a "x"y\r\n', commands: [], error: E('unbalanced quotes in request') },
  { input: "set a 'x'y\r\n", commands: [], error: E('unbalanced quotes in request') },
  { input: "set a 'x\r\n", commands: [], error: E('unbalanced quotes in request') },
  { input: 'ab"c d"e\r\n', commands: [], error: E('unbalanced quotes in request') },
  { input: 'ECHO "a\\"\r\n', commands: [], error: E('unbalanced quotes in request') },
  // a line with its '\n' is accepted past the inline limit (Redis checks only lines in progress)
  { input: 'x'.repeat(70000) + '\n', commands: [['x'.repeat(70000)]], chunkSensitive: true },
];

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
