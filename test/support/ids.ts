// Stream ids for tests: literals are written as bigints, the engine keeps canonical U64s
// (numbers up to 2^53 - 1, bigints above), so expected ids are built through u64().
import { MAX_SAFE, type StreamId, u64, UINT64_MAX } from '../../src/engine/stream-id.js';

export function idOf(ms: bigint | number, seq: bigint | number = 0): StreamId {
  return { ms: u64(ms), seq: u64(seq) };
}

/** The U64 invariant: a number iff a safe non-negative integer, else a bigint up to 2^64 - 1. */
export function isCanonicalU64(x: unknown): boolean {
  if (typeof x === 'number') return Number.isSafeInteger(x) && x >= 0;
  return typeof x === 'bigint' && x > BigInt(MAX_SAFE) && x <= UINT64_MAX;
}

export function isCanonicalId(id: StreamId): boolean {
  return isCanonicalU64(id.ms) && isCanonicalU64(id.seq);
}
