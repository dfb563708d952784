// The RDB writer's buffer handling (grow() included) and the listpack cursor: a whole file
// written in chunks (a full sync's RDB) is byte for byte the file written into one buffer,
// listpacks built in place straddle chunk boundaries, a listpack whose announced size was
// wrong is moved to fit its length prefix, and the listpack cursor reads what buildListpack
// wrote.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Keyspace } from '../../src/engine/keyspace.js';
import { Stream } from '../../src/engine/stream.js';
import { ConsumerGroup } from '../../src/engine/consumer-group.js';
import { HashValue } from '../../src/engine/hash.js';
import { SortedSetValue } from '../../src/engine/sorted-set.js';
import { buildListpack, ListpackBuilder, parseListpack, type LpValue } from '../../src/rdb/listpack.js';
import { loadRdb, saveRdb, saveRdbChunks } from '../../src/rdb/rdb-file.js';
import { RdbReader } from '../../src/rdb/rdb-reader.js';
import { grow, RdbWriter } from '../../src/rdb/rdb-writer.js';

const options = { version: '7.0.15', now: 1_700_000_000_000, usedMemory: 1 };

/** A stream of `n` entries whose values vary in kind and size (ints, negatives, long strings). */
function bigStream(n: number): Stream {
  const s = new Stream();
  for (let i = 1; i <= n; i++) {
    const kind = i % 7;
    const value =
      kind === 0 ? 'x'.repeat(300 + (i % 5000)) : kind === 1 ? String(-i) : kind === 2 ? `order-${i}` : kind === 3 ? String(i * 1_000_003) : kind === 4 ? '12345678901234567' : String(i);
    // Every 11th entry has other field names (no SAME_FIELDS).
    const fields = i % 11 === 0 ? ['other', value, 'n', String(i)] : ['n', String(i), 'payload', value];
    s.append({ ms: 1000 + Math.floor(i / 3), seq: i % 3 }, fields.map((f) => Buffer.from(f, 'latin1')));
  }
  s.lastId = { ms: 1000 + Math.floor(n / 3), seq: n % 3 };
  s.entriesAdded = BigInt(n);
  return s;
}

function entries(s: Stream): string[] {
  return s.range({ ms: 0, seq: 0 }, { ms: Number.MAX_SAFE_INTEGER, seq: Number.MAX_SAFE_INTEGER }, Number.MAX_SAFE_INTEGER, false).map(
    (e) => `${String(e.id.ms)}-${String(e.id.seq)} ${e.fields.map((f) => f.toString('latin1')).join(' ')}`,
  );
}

test('an RDB written in chunks is the RDB written in one buffer, and loads back the same', () => {
  const keyspace = new Keyspace(() => options.now);
  const db = keyspace.db(0);
  const s = bigStream(60_000);
  const group = new ConsumerGroup(Buffer.from('g'), { ms: 1500, seq: 0 }, 1500n);
  s.groups.set(group.key, group);
  db.set('stream', s);
  const hash = new HashValue();
  for (let i = 0; i < 200; i++) hash.set(`f${i}`, Buffer.from(`v${i}`));
  db.set('hash', hash);
  const zset = new SortedSetValue();
  for (let i = 0; i < 50; i++) zset.set(`m${i}`, i / 3);
  db.set('zset', zset);
  db.set('string', Buffer.from('y'.repeat(3 << 20)));

  const chunks = saveRdbChunks(keyspace, options);
  assert.ok(chunks.length > 3, `${chunks.length} chunks`);
  const whole = saveRdb(keyspace, options);
  assert.ok(Buffer.concat(chunks).equals(whole), 'the chunks join into the same bytes');

  const loaded = new Keyspace(() => options.now);
  const result = loadRdb(whole, loaded, { now: options.now });
  assert.equal(result.keysLoaded, 4);
  const back = loaded.db(0).values.get('stream') as Stream;
  assert.equal(back.length, s.length);
  assert.deepEqual(entries(back), entries(s));
  assert.equal(back.storedNodes().length, s.storedNodes().length);
  // Saved again, the loaded dataset gives the same file.
  assert.ok(saveRdb(loaded, options).equals(whole));
});

test('a listpack built in place whose announced size was wrong moves to fit its length prefix', () => {
  const values: LpValue[] = [];
  for (let i = 0; i < 300; i++) values.push(Buffer.from(i % 2 === 0 ? `field-${i}` : String(i * 7)));
  const expected = buildListpack(values);
  // 0 announces a 1-byte prefix (needs 2), 1 << 20 a 5-byte one (needs 2), and the right size.
  for (const announced of [0, 1 << 20, expected.length]) {
    const w = new RdbWriter(true);
    w.byte(0xab);
    const lp = new ListpackBuilder(w);
    lp.reset(announced);
    for (const v of values) lp.string(v as Buffer, 0, (v as Buffer).length);
    const built = lp.finish();
    assert.ok(built.equals(expected), `announced ${announced}`);
    w.byte(0xcd);
    const out = Buffer.concat(w.finishChunks());
    const r = new RdbReader(out);
    assert.equal(r.byte(), 0xab);
    assert.ok(r.stringView().equals(expected));
    assert.equal(r.byte(), 0xcd);
  }
});

test('listpacks built in place across chunk boundaries keep their bytes', () => {
  const w = new RdbWriter(true);
  const lp = new ListpackBuilder(w);
  const blobs: Buffer[] = [];
  // About 3 MiB of listpacks of ~40 KB: several must cross a 1 MiB chunk's end.
  for (let n = 0; n < 80; n++) {
    const values: Buffer[] = [];
    for (let i = 0; i < 400; i++) values.push(Buffer.from(`${n}:${i}:${'z'.repeat(90)}`));
    lp.reset(n % 3 === 0 ? 10 : 40_000);
    for (const v of values) lp.string(v, 0, v.length);
    blobs.push(Buffer.from(lp.finish()));
    w.len(n);
  }
  const chunks = w.finishChunks();
  assert.ok(chunks.length >= 3);
  const r = new RdbReader(Buffer.concat(chunks));
  for (let n = 0; n < 80; n++) {
    const blob = r.stringView();
    assert.ok(blob.equals(blobs[n]!), `listpack ${n}`);
    assert.equal(parseListpack(blob).length, 400);
    assert.equal(r.len(), n);
  }
});

test('the listpack cursor reads what buildListpack wrote: every integer width, strings of every header size', () => {
  const values: LpValue[] = [0, 127, 128, -1, 4095, -4096, 32767, -32768, 8388607, -8388608, 2147483647, -2147483648, 9007199254740993n, -9007199254740993n];
  for (const len of [0, 63, 64, 4095, 4096, 70000]) values.push(Buffer.alloc(len, 'q'));
  const parsed = parseListpack(buildListpack(values));
  assert.equal(parsed.length, values.length);
  parsed.forEach((v, i) => {
    const want = values[i]!;
    if (Buffer.isBuffer(want)) assert.ok(Buffer.isBuffer(v) && v.equals(want), `element ${i}`);
    else assert.equal(BigInt(v as number | bigint), BigInt(want), `element ${i}`);
  });
  // The builder's integers (its byte-by-byte widths) are buildListpack's bytes.
  const ints = values.filter((v): v is number | bigint => !Buffer.isBuffer(v));
  const lp = new ListpackBuilder().reset();
  for (const v of ints) lp.int(v);
  assert.ok(lp.finish().equals(buildListpack(ints)));
  const bad = buildListpack([1, 2, 3]);
  bad.writeUInt16LE(4, 4);
  assert.throws(() => parseListpack(bad), /count mismatch/);
});

test('grow keeps a buffer that holds what is needed, else doubles it (or more) and carries the bytes used', () => {
  const buf = Buffer.from('abcdefgh');
  assert.equal(grow(buf, 8, 8), buf);
  const doubled = grow(buf, 5, 9);
  assert.equal(doubled.length, 16);
  assert.equal(doubled.subarray(0, 5).toString(), 'abcde');
  const larger = grow(buf, 8, 40);
  assert.equal(larger.length, 64);
  assert.equal(larger.subarray(0, 8).toString(), 'abcdefgh');
  assert.equal(grow(Buffer.alloc(0), 0, 3).length, 4);
});
