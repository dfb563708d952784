// Partitioning one logical stream over N streams by key (Redis has no stream partitioning;
// Kafka clients do the same):
//
//   orders{<tag0>}  orders{<tag1>}  ...      one stream per partition, each in one cluster slot
//   orders{<tag0>}:dead ...                   its dead letters, same hash tag = same slot, so the
//                                             worker's MULTI (XADD dead letter + XACK) is legal
//
// The tags are chosen so partition i's slot lies in the middle of the i-th of N equal slot
// ranges: `redis-cli --cluster create` gives each of M masters an equal contiguous range, so
// N = M (or a multiple of M) puts the same number of partitions on every master, without the
// names depending on the live topology (a resharding moves slots, not names). On a single
// node the names work the same. A key always maps to the same partition (FNV-1a 32-bit of its
// UTF-8 bytes, modulo N), so entries of one key keep their order.

export const CLUSTER_SLOTS = 16384;

/** CRC16/XMODEM, the checksum Redis Cluster hashes keys with. */
export function crc16(data: Buffer): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The cluster slot of a key, honouring a `{hash tag}` as Redis does (first `{`, next `}`, non-empty). */
export function keySlot(key: string | Buffer): number {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  const open = bytes.indexOf(0x7b);
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) % CLUSTER_SLOTS;
  }
  return crc16(bytes) % CLUSTER_SLOTS;
}

/** The hash tag of partition `i` of `n`: `i`, or `i.k` for the first k that lands mid-range. */
export function partitionTag(i: number, n: number): string {
  const width = CLUSTER_SLOTS / n;
  const lo = Math.ceil(i * width + width / 4);
  const hi = Math.floor((i + 1) * width - width / 4);
  for (let k = 0; ; k++) {
    const tag = k === 0 ? String(i) : `${i}.${k}`;
    const slot = crc16(Buffer.from(tag)) % CLUSTER_SLOTS;
    if (slot >= lo && slot <= hi) return tag;
  }
}

/** `stream{tag_i}` for i < n, tags spread over the slot space (see the top of this file). */
export function partitionStreams(stream: string, n: number): string[] {
  if (!Number.isInteger(n) || n < 1 || n > 1024) throw new RangeError('partitions must be an integer from 1 to 1024');
  // A brace in the name would become the hash tag itself and put every partition in one slot.
  if (stream.includes('{') || stream.includes('}')) throw new RangeError('a partitioned stream name must not contain { or }');
  return Array.from({ length: n }, (_, i) => `${stream}{${partitionTag(i, n)}}`);
}

/** FNV-1a (32-bit) over the key's UTF-8 bytes: stable across processes and languages. */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export function partitionOf(key: string, partitions: number): number {
  return hashKey(key) % partitions;
}

/** Splits `total` handler slots over n partitions: each gets ⌊total/n⌋, the first total mod n one more (at least 1). */
export function splitConcurrency(total: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => Math.max(1, Math.floor(total / n) + (i < total % n ? 1 : 0)));
}

/** The default dead-letter stream: same hash tag as the source when it has one. */
export function defaultDeadLetterStream(stream: string): string {
  return `${stream}:dead`;
}

/**
 * A prefix of keys that land in the stream's cluster slot: the stream itself when it has a
 * hash tag, else `{stream}` (the tag is then the whole name, which is what the stream hashes).
 */
export function slotPrefix(stream: string): string {
  const open = stream.indexOf('{');
  if (open !== -1 && stream.indexOf('}', open + 1) > open + 1) return stream;
  return stream.includes('{') || stream.includes('}') ? stream : `{${stream}}`;
}
