// What Redis 7.0 would say about a value: its encoding name (OBJECT ENCODING), whether it is one
// of Redis's shared integers (OBJECT REFCOUNT), and the bytes it would take (MEMORY USAGE), worked
// out from sluice's own structures with Redis's layouts (jemalloc size classes, sds headers,
// listpack element sizes, dict and skiplist overheads). The figures are estimates of what the
// key costs in Redis's terms, not of V8's heap.
import { HashValue } from '../engine/hash.js';
import { type StoredValue, typeOf } from '../engine/keyspace.js';
import { ListValue } from '../engine/list.js';
import { parseIntsetMember } from '../engine/intset-string.js';
import { SetValue } from '../engine/set.js';
import { SortedSetValue } from '../engine/sorted-set.js';
import { Stream } from '../engine/stream.js';
import { lpIntSize, lpStringSize } from '../engine/stream-node.js';

/** Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT. */
const EMBSTR_LIMIT = 44;
/** Redis's OBJ_SHARED_INTEGERS: 0..9999 are shared objects. */
const SHARED_INTEGERS = 10000;

const ROBJ = 16;
const DICT = 56;
const DICT_ENTRY = 24;
const QUICKLIST = 40;
const QUICKLIST_NODE = 40;
const LISTPACK_HEADER = 7; // 6-byte header + end byte
const ZSET = 16;
const ZSKIPLIST = 32;
const ZSKIPLIST_NODE = 24;
const ZSKIPLIST_LEVEL = 16;
const ZSKIPLIST_MAXLEVEL = 32;
const STREAM = 80;
const STREAM_CG = 40;
const STREAM_NACK = 24;
const STREAM_CONSUMER = 24;
/** Redis allocates a new stream node's listpack at 4 KiB (STREAM_LISTPACK_MAX_PRE_ALLOCATE). */
const STREAM_NODE_PREALLOC = 4096;
/** A quicklist node's listpack holds up to 8 KiB (list-max-listpack-size -2). */
const QUICKLIST_NODE_BYTES = 8192;

/** The integer a string holds when Redis would store it as OBJ_ENCODING_INT, else undefined. */
function intValue(value: Buffer): bigint | undefined {
  if (value.length === 0 || value.length > 20) return undefined;
  const parsed = parseIntsetMember(value.toString('latin1'));
  return parsed === undefined ? undefined : BigInt(parsed);
}

/**
 * Strings a command wrote in place (APPEND, SETRANGE, SETBIT, BITFIELD) or built whole (BITOP):
 * Redis holds those as raw sds strings, never re-encoded as int or embstr, whatever they hold.
 */
const rawStrings = new WeakSet<Buffer>();

/** Marks a string value as Redis's raw encoding (see rawStrings); returns it. */
export function rawString(value: Buffer): Buffer {
  rawStrings.add(value);
  return value;
}

function stringEncoding(value: Buffer): string {
  if (rawStrings.has(value)) return 'raw';
  if (intValue(value) !== undefined) return 'int';
  return value.length <= EMBSTR_LIMIT ? 'embstr' : 'raw';
}

/** OBJECT ENCODING's name for a value, as Redis 7.0 names its encodings. */
export function encodingOf(value: StoredValue): string {
  if (Buffer.isBuffer(value)) return stringEncoding(value);
  if (value instanceof HashValue) return value.isListpack ? 'listpack' : 'hashtable';
  if (value instanceof SetValue) return value.isIntset ? 'intset' : 'hashtable';
  if (value instanceof SortedSetValue) return value.isListpack ? 'listpack' : 'skiplist';
  // Redis 7.0 lists are always quicklists (the listpack encoding for small lists came in 7.2).
  if (value instanceof ListValue) return 'quicklist';
  return typeOf(value) === 'stream' ? 'stream' : 'unknown';
}

/**
 * OBJECT REFCOUNT: Redis's shared integers report INT_MAX, every other value 1. Under maxmemory
 * with an LRU or LFU policy Redis shares no integers (each key needs its own access field).
 */
export function refcountOf(value: StoredValue, sharesIntegers = true): number {
  if (!Buffer.isBuffer(value) || !sharesIntegers) return 1;
  const n = intValue(value);
  return n !== undefined && n >= 0n && n < BigInt(SHARED_INTEGERS) ? 2147483647 : 1;
}

export function isSharedInteger(value: StoredValue, sharesIntegers = true): boolean {
  return refcountOf(value, sharesIntegers) !== 1;
}

/** Whether integers are shared under these settings (tryObjectEncoding's test). */
export function sharesIntegers(config: { getNumber(name: string): number; get(name: string): string }): boolean {
  const policy = config.get('maxmemory-policy');
  return config.getNumber('maxmemory') === 0 || !(policy.endsWith('-lru') || policy.endsWith('-lfu'));
}

/** jemalloc's size class for an allocation (Redis's zmalloc_size). */
export function allocSize(n: number): number {
  if (n <= 8) return 8;
  if (n <= 128) return Math.ceil(n / 16) * 16;
  const step = 2 ** (Math.ceil(Math.log2(n)) - 3);
  return Math.ceil(n / step) * step;
}

/** An sds string's allocation: header by length (sdshdr5/8/16/32), the bytes, the NUL. */
export function sdsSize(len: number): number {
  const header = len < 32 ? 1 : len < 256 ? 3 : len < 65536 ? 5 : 9;
  return allocSize(header + len + 1);
}

/** Buckets of a dict holding n entries (a power of two, at least 4). */
export function dictSlots(n: number): number {
  let slots = 4;
  while (slots < n) slots *= 2;
  return slots;
}

/** The average of `cost` over the first `samples` items, times `count` (Redis's sampling). */
function sampled<T>(items: Iterable<T>, count: number, samples: number, cost: (item: T) => number): number {
  let total = 0;
  let seen = 0;
  for (const item of items) {
    if (seen >= samples) break;
    total += cost(item);
    seen++;
  }
  return seen === 0 ? 0 : (total / seen) * count;
}

function scoreSize(score: number): number {
  if (Number.isInteger(score) && Math.abs(score) < 2 ** 53) return lpIntSize(score);
  return lpStringSize(Buffer.from(String(score)));
}

/** An intset's blob: an 8-byte header, then every member as wide as the widest ever added. */
function intsetSize(set: SetValue, width: number): number {
  return allocSize(8 + width * 2 * set.size);
}

/**
 * A quicklist: Redis samples whole nodes (8 KiB listpacks), so elements are read node by node
 * until `samples` nodes are seen, and their average size stands for every element.
 */
function listSize(list: ListValue, samples: number): number {
  const n = list.length;
  if (n === 0) return ROBJ + QUICKLIST;
  let bytes = 0;
  let seen = 0;
  let nodes = 0;
  let nodeBytes = 0;
  const batch = 256;
  for (let start = 0; start < n && nodes < samples; start += batch) {
    for (const element of list.range(start, Math.min(n, start + batch) - 1)) {
      const size = lpStringSize(element);
      bytes += size;
      seen++;
      nodeBytes += size;
      if (nodeBytes >= QUICKLIST_NODE_BYTES) {
        nodes++;
        nodeBytes = 0;
        if (nodes >= samples) break;
      }
    }
  }
  const elementBytes = (bytes / seen) * n;
  const nodeCount = Math.max(1, Math.ceil(elementBytes / QUICKLIST_NODE_BYTES));
  return ROBJ + QUICKLIST + nodeCount * (QUICKLIST_NODE + allocSize(LISTPACK_HEADER + elementBytes / nodeCount));
}

function valueSize(value: StoredValue, samples: number): number {
  if (Buffer.isBuffer(value)) {
    const encoding = stringEncoding(value);
    if (encoding === 'int') return ROBJ;
    if (encoding === 'embstr') return allocSize(ROBJ + 3 + value.length + 1);
    return ROBJ + sdsSize(value.length);
  }
  if (value instanceof HashValue) {
    if (value.isListpack) {
      let bytes = LISTPACK_HEADER;
      for (const [field, v] of value.entries()) bytes += lpStringSize(Buffer.from(field, 'latin1')) + lpStringSize(v);
      return ROBJ + allocSize(bytes);
    }
    const entries = sampled(value.stringEntries(), value.size, samples, ([f, v]) => sdsSize(f.length) + sdsSize(v.length) + DICT_ENTRY);
    return ROBJ + DICT + dictSlots(value.size) * 8 + entries;
  }
  if (value instanceof SetValue) {
    const width = value.intsetWidth;
    if (width !== undefined) return ROBJ + intsetSize(value, width);
    const entries = sampled(value.members, value.size, samples, (m) => sdsSize(m.length) + DICT_ENTRY);
    return ROBJ + DICT + dictSlots(value.size) * 8 + entries;
  }
  if (value instanceof SortedSetValue) {
    if (value.isListpack) {
      let bytes = LISTPACK_HEADER;
      for (const e of value.entries()) bytes += lpStringSize(Buffer.from(e.member, 'latin1')) + scoreSize(e.score);
      return ROBJ + allocSize(bytes);
    }
    const header = allocSize(ZSKIPLIST_NODE + ZSKIPLIST_MAXLEVEL * ZSKIPLIST_LEVEL);
    const node = allocSize(ZSKIPLIST_NODE + ZSKIPLIST_LEVEL);
    const entries = sampled(value.entries(), value.size, samples, (e) => sdsSize(e.member.length) + DICT_ENTRY + node);
    return ROBJ + ZSET + ZSKIPLIST + DICT + dictSlots(value.size) * 8 + header + entries;
  }
  if (value instanceof ListValue) return listSize(value, samples);
  if (value instanceof Stream) return ROBJ + streamSize(value, samples);
  return ROBJ;
}

/**
 * Redis's estimate for a stream's radix trees (streamRadixTreeMemoryUsage). Its node count is
 * guessed from the element count: a shared prefix, a branch, and a compressed node plus a leaf
 * per id (exact for one or two ids).
 */
function raxSize(elements: number): number {
  const nodes = elements <= 1 ? elements + 1 : 2 * elements + 2;
  return elements * 16 + nodes * (4 + 8 * 30);
}

/**
 * As Redis's objectComputeSize for streams: the stream struct, its rax, each node's listpack as
 * allocated (the tail node is preallocated at 4 KiB), and the groups' PELs and consumers.
 */
function streamSize(stream: Stream, samples: number): number {
  const nodes = stream.listpackBytes();
  let bytes = STREAM + raxSize(nodes.length);
  // Full nodes are shrunk to fit; only the tail keeps its preallocation.
  const last = nodes.length - 1;
  const allocated = (i: number) => (i === last ? Math.max(STREAM_NODE_PREALLOC, allocSize(nodes[i]!)) : allocSize(nodes[i]!));
  if (nodes.length <= samples) {
    for (let i = 0; i < nodes.length; i++) bytes += allocated(i);
  } else {
    let sum = 0;
    for (let i = 0; i < samples; i++) sum += allocated(i);
    bytes += Math.floor(samples > 0 ? sum / samples : 0) * last + allocated(last);
  }
  for (const group of stream.groups.values()) {
    bytes += STREAM_CG + raxSize(group.pel.size) + STREAM_NACK * group.pel.size;
    for (const consumer of group.consumers.values()) {
      bytes += STREAM_CONSUMER + consumer.key.length + raxSize(consumer.pel.size);
    }
  }
  return bytes;
}

/** MEMORY USAGE: the value, the key's sds and its dict entry. `samples` 0 means every element. */
export function memoryUsage(key: string, value: StoredValue, samples: number): number {
  return Math.round(valueSize(value, samples === 0 ? Infinity : samples)) + sdsSize(key.length) + DICT_ENTRY;
}

// --- used_memory -------------------------------------------------------------------------------

/** Elements measured per value for used_memory: MEMORY USAGE's default sample. */
const ESTIMATE_SAMPLES = 5;

/** A listpack string element of n bytes: encoding header, the bytes, the back-length. */
function lpElementSize(n: number): number {
  const header = n < 64 ? 1 : n < 4096 ? 2 : 5;
  const entry = header + n;
  return entry + (entry < 128 ? 1 : entry < 16384 ? 2 : 3);
}

/** The average over the first samples of `items` (0 when there are none). */
function sampleAverage<T>(items: Iterable<T>, cost: (item: T) => number): number {
  let total = 0;
  let seen = 0;
  for (const item of items) {
    if (seen >= ESTIMATE_SAMPLES) break;
    total += cost(item);
    seen++;
  }
  return seen === 0 ? 0 : total / seen;
}

/**
 * A value's bytes for used_memory: MEMORY USAGE's layouts with every encoding sampled (a few
 * elements, the stream's groups and a few consumers each), so it costs the same for a value of
 * any size; it is measured again after each change. Strings by length alone (an integer is
 * counted as the embedded string it would otherwise be).
 */
export function estimatedBytes(value: StoredValue): number {
  if (Buffer.isBuffer(value)) {
    const n = value.length;
    return n <= EMBSTR_LIMIT ? allocSize(ROBJ + 3 + n + 1) : ROBJ + sdsSize(n);
  }
  if (value instanceof HashValue) {
    const n = value.size;
    if (value.isListpack) return ROBJ + allocSize(LISTPACK_HEADER + n * sampleAverage(value.stringEntries(), ([f, v]) => lpElementSize(f.length) + lpElementSize(v.length)));
    return ROBJ + DICT + dictSlots(n) * 8 + n * sampleAverage(value.stringEntries(), ([f, v]) => sdsSize(f.length) + sdsSize(v.length) + DICT_ENTRY);
  }
  if (value instanceof SetValue) {
    const n = value.size;
    const width = value.intsetWidth;
    if (width !== undefined) return ROBJ + intsetSize(value, width);
    return ROBJ + DICT + dictSlots(n) * 8 + n * sampleAverage(value.members, (m) => sdsSize(m.length) + DICT_ENTRY);
  }
  if (value instanceof SortedSetValue) {
    const n = value.size;
    if (value.isListpack) return ROBJ + allocSize(LISTPACK_HEADER + n * sampleAverage(value.entries(), (e) => lpElementSize(e.member.length) + 9));
    const header = allocSize(ZSKIPLIST_NODE + ZSKIPLIST_MAXLEVEL * ZSKIPLIST_LEVEL);
    const node = allocSize(ZSKIPLIST_NODE + ZSKIPLIST_LEVEL);
    return ROBJ + ZSET + ZSKIPLIST + DICT + dictSlots(n) * 8 + header + n * sampleAverage(value.entries(), (e) => sdsSize(e.member.length) + DICT_ENTRY + node);
  }
  if (value instanceof ListValue) {
    const elementBytes = value.length * sampleAverage(value.forward(), (e) => lpElementSize(e.length));
    const nodeCount = Math.max(1, Math.ceil(elementBytes / QUICKLIST_NODE_BYTES));
    return ROBJ + QUICKLIST + nodeCount * QUICKLIST_NODE + allocSize(LISTPACK_HEADER * nodeCount + elementBytes);
  }
  if (value instanceof Stream) return ROBJ + estimatedStreamBytes(value);
  return ROBJ;
}

function estimatedStreamBytes(stream: Stream): number {
  const nodes = stream.nodeCount();
  let bytes = STREAM + raxSize(nodes);
  if (nodes > 0) {
    // Full nodes are shrunk to fit; the tail keeps Redis's preallocation.
    const last = nodes - 1;
    bytes += Math.max(STREAM_NODE_PREALLOC, allocSize(stream.nodeListpackBytes(last)));
    const sampled = Math.min(last, ESTIMATE_SAMPLES);
    if (sampled > 0) {
      let sum = 0;
      for (let i = 0; i < sampled; i++) sum += allocSize(stream.nodeListpackBytes(i));
      bytes += (sum / sampled) * last;
    }
  }
  for (const group of stream.groups.values()) {
    const pending = group.pel.size;
    bytes += STREAM_CG + raxSize(pending) + STREAM_NACK * pending;
    const consumers = group.consumers.size;
    bytes += consumers * sampleAverage(group.consumers.values(), (c) => STREAM_CONSUMER + c.key.length + raxSize(c.pel.size));
  }
  return Math.round(bytes);
}
