// ReplyParser on bytes recorded from redis-server 7.0.15 (HELLO 3, then every DEBUG PROTOCOL
// type, attributes and pushes included, then a few ordinary RESP3 replies and a client
// tracking invalidation push), split at random points.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BooleanReply, DoubleReply, MapReply, PushReply, SetReply, SimpleString, VerbatimReply } from '../../src/resp/reply.js';
import { Attributed, parseAll } from '../support/reply-parser.js';
import { cutsArb, splitAt } from './helpers.js';

// Replies, in order, to: HELLO 3; DEBUG PROTOCOL string integer double bignum null array set
// map attrib push verbatim true false; ZADD z 1.5 a; ZSCORE z a; ZSCORE z nope; HSET h f v;
// HGETALL h; XADD s 1-1 f v; XINFO STREAM s; GET nokey; BLPOP nol 0.01; CLIENT TRACKING on;
// GET k; SET k 1; PING; QUIT.
const TRANSCRIPT = Buffer.from(
  'JTcNCiQ2DQpzZXJ2ZXINCiQ1DQpyZWRpcw0KJDcNCnZlcnNpb24NCiQ2DQo3LjAuMTUNCiQ1DQpwcm90bw0KOjMNCiQyDQppZA0KOjMNCiQ0DQptb2RlDQokMTANCnN0YW5kYWxvbmUNCiQ0DQpyb2xlDQokNg0KbWFzdGVyDQokNw0KbW9kdWxlcw0KKjANCiQxMQ0KSGVsbG8gV29ybGQNCjoxMjM0NQ0KLDMuMTQxDQooMTIzNDU2Nzk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OQ0KXw0KKjMNCjowDQo6MQ0KOjINCn4zDQo6MA0KOjENCjoyDQolMw0KOjANCiNmDQo6MQ0KI3QNCjoyDQojZg0KfDENCiQxNA0Ka2V5LXBvcHVsYXJpdHkNCioyDQokNw0Ka2V5OjEyMw0KOjkwDQokMzkNClNvbWUgcmVhbCByZXBseSBmb2xsb3dpbmcgdGhlIGF0dHJpYnV0ZQ0KPjINCiQxNg0Kc2VydmVyLWNwdS11c2FnZQ0KOjQyDQokNDANClNvbWUgcmVhbCByZXBseSBmb2xsb3dpbmcgdGhlIHB1c2ggcmVwbHkNCj0yOQ0KdHh0OlRoaXMgaXMgYSB2ZXJiYXRpbQpzdHJpbmcNCiN0DQojZg0KOjENCiwxLjUNCl8NCjoxDQolMQ0KJDENCmYNCiQxDQp2DQokMw0KMS0xDQolMTANCiQ2DQpsZW5ndGgNCjoxDQokMTUNCnJhZGl4LXRyZWUta2V5cw0KOjENCiQxNg0KcmFkaXgtdHJlZS1ub2Rlcw0KOjINCiQxNw0KbGFzdC1nZW5lcmF0ZWQtaWQNCiQzDQoxLTENCiQyMA0KbWF4LWRlbGV0ZWQtZW50cnktaWQNCiQzDQowLTANCiQxMw0KZW50cmllcy1hZGRlZA0KOjENCiQyMw0KcmVjb3JkZWQtZmlyc3QtZW50cnktaWQNCiQzDQoxLTENCiQ2DQpncm91cHMNCjowDQokMTENCmZpcnN0LWVudHJ5DQoqMg0KJDMNCjEtMQ0KKjINCiQxDQpmDQokMQ0Kdg0KJDEwDQpsYXN0LWVudHJ5DQoqMg0KJDMNCjEtMQ0KKjINCiQxDQpmDQokMQ0Kdg0KXw0KXw0KK09LDQpfDQorT0sNCj4yDQokMTANCmludmFsaWRhdGUNCioxDQokMQ0Kaw0KK1BPTkcNCitPSw0K',
  'base64',
);

const b = (s: string) => Buffer.from(s);



test('a recorded redis-server 7.0.15 RESP3 session decodes reply by reply', () => {
  const replies = parseAll([TRANSCRIPT]);
  assert.deepEqual(Buffer.concat(replies.map((r) => r.raw)), TRANSCRIPT);
  const v = replies.map((r) => r.value);
  assert.equal(v.length, 30);
  assert.ok(v[0] instanceof MapReply);
  assert.deepEqual(v[0].entries[1], [b('version'), b('7.0.15')]);
  assert.deepEqual(v.slice(1, 9), [
    b('Hello World'),
    12345,
    new DoubleReply(3.141),
    1234567999999999999999999999999999999n,
    null,
    [0, 1, 2],
    new SetReply([0, 1, 2]),
    new MapReply([
      [0, new BooleanReply(false)],
      [1, new BooleanReply(true)],
      [2, new BooleanReply(false)],
    ]),
  ]);
  assert.deepEqual(
    v[9],
    new Attributed(new MapReply([[b('key-popularity'), [b('key:123'), 90]]]), b('Some real reply following the attribute')),
  );
  assert.deepEqual(v[10], new PushReply([b('server-cpu-usage'), 42]));
  assert.deepEqual(v[11], b('Some real reply following the push reply'));
  assert.deepEqual(v[12], new VerbatimReply('txt', 'This is a verbatim\nstring'));
  assert.deepEqual(v.slice(13, 21), [new BooleanReply(true), new BooleanReply(false), 1, new DoubleReply(1.5), null, 1, new MapReply([[b('f'), b('v')]]), b('1-1')]);
  assert.ok(v[21] instanceof MapReply);
  assert.deepEqual(v[21].entries[0], [b('length'), 1]);
  assert.deepEqual(v.slice(22), [
    null, // GET nokey
    null, // BLPOP timeout: RESP3 null
    new SimpleString('OK'),
    null,
    new SimpleString('OK'),
    new PushReply([b('invalidate'), [b('k')]]),
    new SimpleString('PONG'),
    new SimpleString('OK'),
  ]);
});

test('the recorded session split anywhere gives the same replies', () => {
  const whole = parseAll([TRANSCRIPT]);
  fc.assert(
    fc.property(cutsArb(TRANSCRIPT.length), (cuts) => {
      assert.deepEqual(parseAll(splitAt(TRANSCRIPT, cuts)), whole);
    }),
    { numRuns: 300 },
  );
});
