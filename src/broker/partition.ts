// Partitioning by key over N streams. Each partition is named with a hash tag, `orders{0}` ..
// `orders{N-1}`, so on Redis Cluster each lives in one slot (and its dead-letter stream
// `orders{i}:dead` in the same slot, which the worker's XADD+XACK MULTI needs). The same key
// always maps to the same partition, so entries of one key keep their order.

export function partitionStreams(stream: string, partitions: number): string[] {
  if (!Number.isInteger(partitions) || partitions < 1) throw new RangeError('partitions must be a positive integer');
  return Array.from({ length: partitions }, (_, i) => `${stream}{${i}}`);
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

/** The default dead-letter stream: same hash tag as the source when it has one. */
export function defaultDeadLetterStream(stream: string): string {
  return `${stream}:dead`;
}
