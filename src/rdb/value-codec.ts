// One value in RDB form, as rdbSaveObject / rdbLoadObject: the type byte and the payload for
// every type sluice has. Writing picks the encodings Redis 7.0 would have for the same value
// (listpacks for small hashes and sorted sets, intsets, quicklists of listpacks, streams as
// type 19); reading also takes the older encodings (ziplists, plain lists, ZSET v1) and Redis
// 7.2's set listpacks and stream type 21. DUMP/RESTORE and RDB files share it.
import { HashValue } from '../engine/hash.js';
import { type StoredValue, typeOf } from '../engine/keyspace.js';
import { ListValue } from '../engine/list.js';
import { SetValue } from '../engine/set.js';
import { SortedSetValue } from '../engine/sorted-set.js';
import type { Stream } from '../engine/stream.js';
import { formatDouble } from '../resp/encoder.js';
import * as T from './constants.js';
import { RdbFormatError } from './constants.js';
import { buildIntset, parseIntset } from './intset.js';
import { buildListpack, lpBytes, parseListpack, type LpValue } from './listpack.js';
import type { RdbReader } from './rdb-reader.js';
import type { RdbWriter } from './rdb-writer.js';
import { readStream, writeStream } from './stream-codec.js';
import { parseZiplist } from './ziplist.js';

/** A collection with no elements: Redis skips such keys when loading a file, RESTORE refuses it. */
export class RdbEmptyKeyError extends RdbFormatError {}

/** Redis's hash-max-listpack-entries / -value defaults. */
const HASH_LISTPACK_ENTRIES = 128;
const HASH_LISTPACK_VALUE = 64;
/** list-max-listpack-size -2: each quicklist node's listpack holds at most 8 KB. */
const LIST_NODE_BYTES = 8192;

/**
 * Writes the value's type byte, then the key when one is given (an RDB file's key-value pair;
 * a DUMP payload has none), then the payload: rdbSaveObjectType + rdbSaveObject.
 */
export function writeValue(w: RdbWriter, value: StoredValue, key: Buffer | null = null): void {
  const head = (type: number): RdbWriter => {
    w.byte(type);
    return key === null ? w : w.string(key);
  };
  switch (typeOf(value)) {
    case 'string':
      head(T.TYPE_STRING).string(value as Buffer);
      return;
    case 'list':
      return writeList(head, value as ListValue);
    case 'set':
      return writeSet(head, value as SetValue);
    case 'zset':
      return writeSortedSet(head, value as SortedSetValue);
    case 'hash':
      return writeHash(head, value as HashValue);
    case 'stream':
      return writeStream(head(T.TYPE_STREAM_LISTPACKS_2), value as Stream);
  }
}

/** Writes the type byte (and key) and returns the writer for the payload. */
type Head = (type: number) => RdbWriter;

function writeList(head: Head, list: ListValue): void {
  const nodes: Buffer[][] = [];
  let current: Buffer[] = [];
  let bytes = 0;
  for (const element of list.range(0, list.length - 1)) {
    const size = element.length + 11;
    if (current.length > 0 && bytes + size > LIST_NODE_BYTES) {
      nodes.push(current);
      current = [];
      bytes = 0;
    }
    current.push(element);
    bytes += size;
  }
  if (current.length > 0) nodes.push(current);
  const w = head(T.TYPE_LIST_QUICKLIST_2).len(nodes.length);
  for (const node of nodes) w.len(T.QUICKLIST_NODE_PACKED).blob(buildListpack(node));
}

function writeSet(head: Head, set: SetValue): void {
  const members = set.list();
  if (set.isIntset) {
    head(T.TYPE_SET_INTSET).blob(buildIntset(members.map((m) => BigInt(m))));
    return;
  }
  const w = head(T.TYPE_SET).len(members.length);
  for (const m of members) w.string(Buffer.from(m, 'latin1'));
}

function writeSortedSet(head: Head, zset: SortedSetValue): void {
  const entries = zset.slice(0, zset.size);
  if (zset.isListpack) {
    const values: LpValue[] = [];
    for (const e of entries) values.push(Buffer.from(e.member, 'latin1'), Buffer.from(formatDouble(e.score), 'latin1'));
    head(T.TYPE_ZSET_LISTPACK).blob(buildListpack(values));
    return;
  }
  // Highest first, as Redis walks its skiplist from the tail so loading inserts at the head.
  const w = head(T.TYPE_ZSET_2).len(entries.length);
  for (let i = entries.length - 1; i >= 0; i--) w.string(Buffer.from(entries[i]!.member, 'latin1')).double(entries[i]!.score);
}

function writeHash(head: Head, hash: HashValue): void {
  let small = hash.size <= HASH_LISTPACK_ENTRIES;
  for (const [f, v] of hash.stringEntries()) if (!small || f.length > HASH_LISTPACK_VALUE || v.length > HASH_LISTPACK_VALUE) small = false;
  if (small) {
    const values: LpValue[] = [];
    for (const [f, v] of hash.entries()) values.push(Buffer.from(f, 'latin1'), v);
    head(T.TYPE_HASH_LISTPACK).blob(buildListpack(values));
    return;
  }
  const w = head(T.TYPE_HASH).len(hash.size);
  for (const [f, v] of hash.entries()) w.string(Buffer.from(f, 'latin1')).string(v);
}

/** rdbLoadObjectType: a type byte this reader knows, else RdbFormatError. */
export function readValueType(r: RdbReader): number {
  const type = r.byte();
  if (!isValueType(type)) throw new RdbFormatError(`Unknown RDB encoding type ${type}`);
  return type;
}

export function isValueType(type: number): boolean {
  return (type >= 0 && type <= 5) || (type >= 9 && type <= 21 && type !== 6 && type !== 7);
}

/** rdbLoadObject: the value of the given type. */
export function readValue(r: RdbReader, type: number): StoredValue {
  switch (type) {
    case T.TYPE_STRING:
      return r.string();
    case T.TYPE_LIST:
      return listOf(repeat(r.len(), () => r.string()));
    case T.TYPE_LIST_ZIPLIST:
      return listOf(parseZiplist(r.stringView()).map(lpBytes));
    case T.TYPE_LIST_QUICKLIST:
    case T.TYPE_LIST_QUICKLIST_2: {
      const elements: Buffer[] = [];
      const nodes = r.len();
      for (let i = 0; i < nodes; i++) {
        const container = type === T.TYPE_LIST_QUICKLIST_2 ? r.len() : T.QUICKLIST_NODE_PACKED;
        const blob = r.stringView();
        if (container === T.QUICKLIST_NODE_PLAIN) elements.push(blob);
        else if (container !== T.QUICKLIST_NODE_PACKED) throw new RdbFormatError(`Quicklist integrity check failed.`);
        else for (const v of type === T.TYPE_LIST_QUICKLIST ? parseZiplist(blob) : parseListpack(blob)) elements.push(lpBytes(v));
      }
      return listOf(elements);
    }
    case T.TYPE_SET:
      return setOf(repeat(r.len(), () => r.string()));
    case T.TYPE_SET_INTSET:
      return setOf(parseIntset(r.stringView()).map((v) => Buffer.from(v.toString(), 'latin1')));
    case T.TYPE_SET_LISTPACK:
      return setOf(parseListpack(r.stringView()).map(lpBytes));
    case T.TYPE_ZSET:
    case T.TYPE_ZSET_2:
      return sortedSetOf(
        repeat(r.len(), () => [r.string(), type === T.TYPE_ZSET ? r.asciiDouble() : r.double()] as [Buffer, number]),
      );
    case T.TYPE_ZSET_ZIPLIST:
    case T.TYPE_ZSET_LISTPACK: {
      const flat = (type === T.TYPE_ZSET_LISTPACK ? parseListpack : parseZiplist)(r.stringView());
      return sortedSetOf(pairs(flat).map(([m, s]) => [lpBytes(m), parseScore(s)]));
    }
    case T.TYPE_HASH:
      return hashOf(repeat(r.len(), () => [r.string(), r.string()] as [Buffer, Buffer]));
    case T.TYPE_HASH_ZIPLIST:
    case T.TYPE_HASH_LISTPACK: {
      const flat = (type === T.TYPE_HASH_LISTPACK ? parseListpack : parseZiplist)(r.stringView());
      // Values are kept: copied out of the listpack (a view would pin the whole input).
      return hashOf(pairs(flat).map(([f, v]) => [lpBytes(f), Buffer.from(lpBytes(v))]));
    }
    case T.TYPE_STREAM_LISTPACKS:
    case T.TYPE_STREAM_LISTPACKS_2:
    case T.TYPE_STREAM_LISTPACKS_3:
      return readStream(r, type);
    case T.TYPE_HASH_ZIPMAP:
      throw new RdbFormatError('Zipmap-encoded hashes (Redis 2.x) are not supported');
    default:
      throw new RdbFormatError(`Unknown RDB encoding type ${type}`);
  }
}

function repeat<V>(n: number, read: () => V): V[] {
  const out: V[] = [];
  for (let i = 0; i < n; i++) out.push(read());
  return out;
}

function pairs(flat: LpValue[]): Array<[LpValue, LpValue]> {
  if (flat.length % 2 !== 0) throw new RdbFormatError('Listpack integrity check failed.');
  const out: Array<[LpValue, LpValue]> = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

/** A listpack score: an integer element, or the text strtod reads. */
function parseScore(v: LpValue): number {
  if (!Buffer.isBuffer(v)) return Number(v);
  const s = v.toString('latin1').trim().toLowerCase();
  const inf = /^([+-]?)inf(inity)?$/.exec(s);
  if (inf !== null) return inf[1] === '-' ? -Infinity : Infinity;
  const n = Number(s);
  if (s === '' || Number.isNaN(n)) throw new RdbFormatError('Zset score is not a number');
  return n;
}

function nonEmpty(n: number): void {
  if (n === 0) throw new RdbEmptyKeyError('Empty keys skipped');
}

function listOf(elements: Buffer[]): ListValue {
  nonEmpty(elements.length);
  const list = new ListValue();
  for (const e of elements) list.pushTail(e);
  list.packEnds();
  return list;
}

function setOf(members: Buffer[]): SetValue {
  nonEmpty(members.length);
  const set = new SetValue();
  for (const m of members) if (!set.add(m.toString('latin1'))) throw new RdbFormatError('Duplicate set members detected');
  return set;
}

function sortedSetOf(entries: Array<[Buffer, number]>): SortedSetValue {
  nonEmpty(entries.length);
  const zset = new SortedSetValue();
  for (const [m, score] of entries) {
    if (Number.isNaN(score)) throw new RdbFormatError('Zset with NAN score detected');
    if (!zset.set(m.toString('latin1'), score)) throw new RdbFormatError('Duplicate zset fields detected');
  }
  return zset;
}

function hashOf(entries: Array<[Buffer, Buffer]>): HashValue {
  nonEmpty(entries.length);
  const pairs = entries.map(([f, v]): [string, Buffer] => [f.toString('latin1'), v]);
  if (new Set(pairs.map(([f]) => f)).size !== pairs.length) throw new RdbFormatError('Duplicate hash fields detected');
  return HashValue.of(pairs);
}
