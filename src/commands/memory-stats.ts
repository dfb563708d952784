// MEMORY STATS, MALLOC-STATS and PURGE. STATS has Redis 7.0's fields in its order (object.c
// memoryCommand), filled from what sluice counts (used-memory.ts: startup, dataset, clients, AOF
// buffer; lua/script-memory.ts: the scripts' and libraries' caches) and, for the allocator
// fields, from V8 (allocated = heap used, active = heap total, resident = RSS): monitoring tools
// that read the map find every field they expect.
import { DATABASE_COUNT } from '../engine/keyspace.js';
import { DoubleReply, MapReply, OK, type Reply } from '../resp/reply.js';
import type { Context } from './types.js';
import { usedMemory } from './used-memory.js';
import { scriptMemory } from './lua/script-memory.js';

const DICT_ENTRY = 24;
const POINTER = 8;

/** A dict's overhead as Redis's getMemoryOverheadData counts it: entries plus the bucket array. */
function dictOverhead(size: number): number {
  if (size === 0) return 0;
  let slots = 4;
  while (slots < size) slots *= 2;
  return size * DICT_ENTRY + slots * POINTER;
}

export function memoryStats(ctx: Context): Reply {
  const used = usedMemory(ctx.instance);
  const peak = Math.max(ctx.instance.usedMemoryPeak, used.total);
  const dbs: Array<[Reply, Reply]> = [];
  let dbOverhead = 0;
  let keys = 0;
  for (let i = 0; i < DATABASE_COUNT; i++) {
    const db = ctx.instance.keyspace.db(i);
    if (db.size === 0) continue;
    keys += db.size;
    const main = dictOverhead(db.size);
    const expires = dictOverhead(db.expires.size);
    dbOverhead += main + expires;
    dbs.push([
      `db.${i}`,
      new MapReply([
        ['overhead.hashtable.main', main],
        ['overhead.hashtable.expires', expires],
        ['overhead.hashtable.slot-to-keys', 0],
      ]),
    ]);
  }
  const overhead = used.startup + used.clients + used.aofBuffer + dbOverhead;
  const dataset = Math.max(0, used.total - overhead);
  const net = Math.max(0, used.total - used.startup);
  const mem = process.memoryUsage();
  const allocated = mem.heapUsed;
  const active = mem.heapTotal;
  const resident = mem.rss;
  const lua = scriptMemory(ctx.instance);
  const ratio = (a: number, b: number): DoubleReply => new DoubleReply(b === 0 ? 0 : a / b);
  return new MapReply([
    ['peak.allocated', peak],
    ['total.allocated', used.total],
    ['startup.allocated', used.startup],
    ['replication.backlog', 0],
    ['clients.slaves', 0],
    ['clients.normal', used.clients],
    ['cluster.links', 0],
    ['aof.buffer', used.aofBuffer],
    ['lua.caches', lua.scriptsEval],
    ['functions.caches', lua.functionsCaches],
    ...dbs,
    ['overhead.total', overhead],
    ['keys.count', keys],
    ['keys.bytes-per-key', keys === 0 ? 0 : Math.floor(net / keys)],
    ['dataset.bytes', dataset],
    ['dataset.percentage', new DoubleReply(net === 0 ? 0 : (dataset * 100) / net)],
    ['peak.percentage', new DoubleReply((used.total * 100) / peak)],
    ['allocator.allocated', allocated],
    ['allocator.active', active],
    ['allocator.resident', resident],
    ['allocator-fragmentation.ratio', ratio(active, allocated)],
    ['allocator-fragmentation.bytes', active - allocated],
    ['allocator-rss.ratio', ratio(resident, active)],
    ['allocator-rss.bytes', resident - active],
    ['rss-overhead.ratio', new DoubleReply(1)],
    ['rss-overhead.bytes', 0],
    ['fragmentation', ratio(resident, used.total)],
    ['fragmentation.bytes', resident - used.total],
  ]);
}

/** Redis's reply when it is not built with jemalloc: sluice's allocator is V8's. */
export function mallocStats(): Reply {
  return Buffer.from('Stats not supported for the current allocator');
}

/** Nothing to purge by hand: V8 returns pages itself after a collection. */
export function memoryPurge(): Reply {
  return OK;
}
