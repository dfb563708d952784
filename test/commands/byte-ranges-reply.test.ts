// ByteRangesReply (bulk strings written from ranges of one Buffer) against the reply tree of the
// same strings, byte for byte in RESP2 and RESP3, as an array and as a map, for strings of every
// byte and of lengths on both sides of the encoder's short-copy paths; toReply() is that tree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ByteRangesReply } from '../../src/commands/byte-ranges-reply.js';
import { byteRangesOf } from '../../src/engine/byte-ranges.js';
import { encodeReply } from '../../src/resp/encoder.js';
import { MapReply, type Reply } from '../../src/resp/reply.js';

const latin1Text = fc.oneof(
  fc.uint8Array({ maxLength: 12 }),
  fc.uint8Array({ minLength: 60, maxLength: 300 }),
).map((a) => Buffer.from(a).toString('latin1'));

function tree(texts: string[], asMap: boolean): Reply {
  const items = texts.map((t) => Buffer.from(t, 'latin1'));
  if (!asMap) return items;
  const entries: Array<[Reply, Reply]> = [];
  for (let i = 0; i < items.length; i += 2) entries.push([items[i]!, items[i + 1]!]);
  return new MapReply(entries);
}

test('ByteRangesReply writes what the reply tree of its strings encodes to', () => {
  fc.assert(
    fc.property(fc.array(latin1Text, { maxLength: 12 }), fc.boolean(), fc.constantFrom(2 as const, 3 as const), (texts, asMap, protocol) => {
      if (asMap && texts.length % 2 === 1) texts.pop();
      const reply = new ByteRangesReply(byteRangesOf(texts), asMap);
      const expected = encodeReply(tree(texts, asMap), protocol);
      assert.deepEqual(encodeReply(reply, protocol), expected);
      assert.deepEqual(encodeReply(reply.toReply(), protocol), expected);
    }),
    { numRuns: 300 },
  );
});
