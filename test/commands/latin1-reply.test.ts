// Latin1Reply (a bulk string written from latin1 text) against the Buffer of the same bytes,
// byte for byte in RESP2 and RESP3, for every byte value and lengths on both sides of the
// encoder's short-copy path; toReply() is that Buffer, and undefined text is a null reply.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Latin1Reply, latin1Reply } from '../../src/commands/latin1-reply.js';
import { encodeReply } from '../../src/resp/encoder.js';

const latin1Text = fc.uint8Array({ maxLength: 100 }).map((a) => Buffer.from(a).toString('latin1'));

test('Latin1Reply encodes as the Buffer of its bytes', () => {
  fc.assert(
    fc.property(latin1Text, fc.constantFrom(2 as const, 3 as const), (text, protocol) => {
      const bytes = Buffer.from(text, 'latin1');
      assert.deepEqual(encodeReply(new Latin1Reply(text), protocol), encodeReply(bytes, protocol));
      assert.deepEqual(new Latin1Reply(text).toReply(), bytes);
    }),
    { numRuns: 300 },
  );
  assert.equal(latin1Reply(undefined), null);
});
