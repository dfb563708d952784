// INFO's used_memory and what maxmemory compares with it, counted as Redis counts its own: a
// fixed startup part, the dataset (keys and values in Redis's layouts, object-encoding.ts), the
// clients' buffers (query buffers and unsent replies) and the AOF buffer. Every part follows the
// data as it changes, so a FLUSHALL or DEL gives its bytes back at once, and INFO and the
// maxmemory check read the same figures. V8's own heap is shown apart (v8_heap_used): it holds
// garbage until the collector runs and is no measure of the data.
import type { MemoryModel } from '../engine/dataset-memory.js';
import type { InstanceView } from './types.js';
import { allocSize, estimatedBytes } from './object-encoding.js';

/**
 * What Redis 7.0 reports as used_memory_startup on x86-64 (876,032 bytes): sluice counts the
 * same fixed part, so a maxmemory admits about the data Redis would.
 */
export const STARTUP_BYTES = 876_032;

const DICT_ENTRY = 24;

/** Keys and values in Redis's layouts: a key is its sds and its dict entry. */
export const redisMemoryModel: MemoryModel = {
  keyBytes(keyLength: number): number {
    const header = keyLength < 32 ? 1 : keyLength < 256 ? 3 : keyLength < 65536 ? 5 : 9;
    return allocSize(header + keyLength + 1) + DICT_ENTRY;
  },
  valueBytes: (value) => Math.round(estimatedBytes(value)),
};

export interface UsedMemory {
  /** used_memory: all of the below. */
  readonly total: number;
  readonly startup: number;
  /** used_memory_dataset: keys and values. */
  readonly dataset: number;
  /** mem_clients_normal: query buffers and unsent replies. */
  readonly clients: number;
  /** mem_aof_buffer: logged bytes not yet written. */
  readonly aofBuffer: number;
  /** mem_not_counted_for_evict: what the maxmemory check leaves out (the AOF buffer, as Redis). */
  readonly notCountedForEvict: number;
}

export function usedMemory(instance: InstanceView): UsedMemory {
  const dataset = instance.keyspace.datasetBytes();
  const clients = instance.buffersHeld.bytes();
  const aofBuffer = instance.persistence?.bufferedBytes ?? 0;
  const total = STARTUP_BYTES + dataset + clients + aofBuffer;
  if (total > instance.usedMemoryPeak) instance.usedMemoryPeak = total;
  return { total, startup: STARTUP_BYTES, dataset, clients, aofBuffer, notCountedForEvict: aofBuffer };
}
