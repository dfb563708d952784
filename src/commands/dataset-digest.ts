// DEBUG DIGEST and DEBUG DIGEST-VALUE (debug.c of Redis 7.0): a SHA1-based digest of the whole
// dataset, or of single values, computed exactly as Redis computes it, so a sluice server and a
// redis-server holding the same data give the same 40 hex digits (Redis's replication tests
// compare a primary's digest with its replicas'). Unordered collections (sets, hashes, sorted
// sets, the keys of a database) are XORs of their elements' digests; lists and streams are
// mixed in order.
import { createHash } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { HashValue } from '../engine/hash.js';
import { DATABASE_COUNT, type Database, keyBytes, type StoredValue } from '../engine/keyspace.js';
import { ListValue } from '../engine/list.js';
import { SetValue } from '../engine/set.js';
import { SortedSetValue } from '../engine/sorted-set.js';
import { Stream } from '../engine/stream.js';
import { MAX_ID, MIN_ID } from '../engine/stream-id.js';
import { formatDouble } from '../resp/encoder.js';
import type { InstanceView } from './types.js';

type Digest = Buffer; // 20 bytes

const sha1 = (data: Buffer): Buffer => createHash('sha1').update(data).digest();

/** digest ^= SHA1(data) */
function xorDigest(digest: Digest, data: Buffer): void {
  const hash = sha1(data);
  for (let i = 0; i < 20; i++) digest[i]! ^= hash[i]!;
}

/** digest = SHA1(digest ^ SHA1(data)): order matters. */
function mixDigest(digest: Digest, data: Buffer): void {
  xorDigest(digest, data);
  sha1(digest).copy(digest);
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

const TYPE_CODE = { string: 0, list: 1, set: 2, zset: 3, hash: 4, stream: 6 } as const;

/** xorObjectDigest: mixes `value` (and whether `key` expires) into `digest`. */
function xorObjectDigest(db: Database, key: string, digest: Digest, value: StoredValue): void {
  if (Buffer.isBuffer(value)) {
    mixDigest(digest, uint32(TYPE_CODE.string));
    mixDigest(digest, value);
  } else if (value instanceof ListValue) {
    mixDigest(digest, uint32(TYPE_CODE.list));
    for (const item of value.range(0, value.length - 1)) mixDigest(digest, item);
  } else if (value instanceof SetValue) {
    mixDigest(digest, uint32(TYPE_CODE.set));
    for (const member of value.list()) xorDigest(digest, keyBytes(member));
  } else if (value instanceof SortedSetValue) {
    mixDigest(digest, uint32(TYPE_CODE.zset));
    for (const e of value.entries()) {
      const element = Buffer.alloc(20);
      mixDigest(element, keyBytes(e.member));
      mixDigest(element, Buffer.from(formatDouble(e.score)));
      xorDigest(digest, element);
    }
  } else if (value instanceof HashValue) {
    mixDigest(digest, uint32(TYPE_CODE.hash));
    for (const [field, v] of value.entries()) {
      const element = Buffer.alloc(20);
      mixDigest(element, keyBytes(field));
      mixDigest(element, v);
      xorDigest(digest, element);
    }
  } else if (value instanceof Stream) {
    mixDigest(digest, uint32(TYPE_CODE.stream));
    for (const entry of value.range(MIN_ID, MAX_ID, 0, false)) {
      mixDigest(digest, Buffer.from(`${entry.id.ms}.${entry.id.seq}`));
      for (const f of entry.fields) mixDigest(digest, f);
    }
  }
  if (db.getExpire(key) !== undefined) xorDigest(digest, Buffer.from('!!expire!!'));
}

const hex = (digest: Digest): string => digest.toString('hex');

/** DEBUG DIGEST: the dataset's digest (all zeros when it is empty). */
export function datasetDigest(instance: InstanceView): string {
  const final = Buffer.alloc(20);
  for (let j = 0; j < DATABASE_COUNT; j++) {
    const db = instance.keyspace.db(j);
    if (db.values.size === 0) continue;
    mixDigest(final, uint32(j));
    for (const [key, value] of db.values) {
      const digest = Buffer.alloc(20);
      mixDigest(digest, keyBytes(key));
      xorObjectDigest(db, key, digest, value);
      xorDigest(final, digest);
    }
  }
  return hex(final);
}

/** DEBUG DIGEST-VALUE: each value's digest, zeros for a missing key (expired keys still count). */
export function valueDigest(db: Database, key: string): string {
  const digest = Buffer.alloc(20);
  const value = db.values.get(key);
  if (value !== undefined) xorObjectDigest(db, key, digest, value);
  return hex(digest);
}
