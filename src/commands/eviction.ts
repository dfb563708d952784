// maxmemory-policy's key eviction, as Redis 7.0's performEvictions (evict.c): before a command
// runs past maxmemory, keys are deleted until used memory is back under the limit. The LRU, LFU
// and TTL policies keep a pool of the 16 best candidates seen in samples of maxmemory-samples
// keys per database; the random ones take any key. An evicted key is deleted as DEL (UNLINK with
// lazyfree-lazy-eviction) in the AOF and to replicas, and raises the `evicted` event.
//
// noeviction stays the default, and the one for a broker: an evicted stream loses its entries,
// acknowledged or not. The other policies are for a cache, as in Redis.
import type { EvictionPolicy } from './config.js';
import { NOTIFY_EVICTED } from './keyspace-events.js';
import type { EvictionView, InstanceView } from './types.js';
import { usedMemory } from './used-memory.js';

export type EvictionResult = ReturnType<EvictionView['perform']>;

interface Candidate {
  /** Higher is evicted first: idle seconds, 255 - frequency, or minus the expiry time. */
  score: number;
  db: number;
  key: string;
}

/** Redis's EVPOOL_SIZE. */
const POOL_SIZE = 16;

/** maxmemory-eviction-tenacity as a time budget in ms (evictionTimeLimitUs); Infinity at 100. */
function timeLimitMs(tenacity: number): number {
  if (tenacity <= 10) return (50 * tenacity) / 1000;
  if (tenacity < 100) return (500 * 1.15 ** (tenacity - 10)) / 1000;
  return Infinity;
}

export class Eviction implements EvictionView {
  /** The best candidates seen, ascending by score (Redis keeps its pool across calls too). */
  private readonly pool: Candidate[] = [];
  private nextRandomDb = 0;
  private continuation: NodeJS.Immediate | null = null;
  /** Whether the databases keep key arrays to sample from (see Database.sample). */
  private sampling = false;
  /** When used memory last went over maxmemory, -1 while under (INFO's current_eviction_exceeded_time). */
  private overSince = -1;
  private exceededMs = 0;

  constructor(private readonly instance: InstanceView) {}

  /** performEvictions: called before each command while maxmemory is set. */
  perform(): EvictionResult {
    const { instance } = this;
    const max = instance.config.getNumber('maxmemory');
    const policy = instance.config.get('maxmemory-policy') as EvictionPolicy;
    if (policy === 'noeviction') this.stopSampling();
    if (max <= 0) return 'ok';
    // Replicas leave eviction to their primary (replica-ignore-maxmemory), and nothing is
    // deleted while loading or while clients are paused (no DEL may be propagated then).
    if (instance.keyspace.loading || instance.replication.role === 'slave' || instance.pause.paused) return 'ok';
    let toFree = this.overLimit(max);
    if (toFree <= 0) {
      this.noteUnder();
      return 'ok';
    }
    if (this.overSince < 0) this.overSince = performance.now();
    if (policy === 'noeviction') return 'fail';
    this.sampling = true;
    const limit = timeLimitMs(instance.config.getNumber('maxmemory-eviction-tenacity'));
    const started = performance.now();
    let evicted = 0;
    while (toFree > 0) {
      const victim = this.choose(policy);
      if (victim === null) return 'fail';
      this.evict(victim.db, victim.key);
      toFree = this.overLimit(max);
      // Checked every 16 keys, as Redis: past the budget, the rest is freed on the next turn.
      if (++evicted % 16 === 0 && toFree > 0 && performance.now() - started > limit) {
        this.continueLater();
        return 'running';
      }
    }
    this.noteUnder();
    return 'ok';
  }

  /** INFO stats: ms spent over maxmemory in all, and in the current stretch. */
  exceededTime(): { total: number; current: number } {
    const current = this.overSince < 0 ? 0 : performance.now() - this.overSince;
    return { total: Math.floor(this.exceededMs + current), current: Math.floor(current) };
  }

  /** CONFIG RESETSTAT. */
  resetStats(): void {
    this.exceededMs = 0;
    if (this.overSince >= 0) this.overSince = performance.now();
  }

  stop(): void {
    if (this.continuation !== null) clearImmediate(this.continuation);
    this.continuation = null;
  }

  private stopSampling(): void {
    if (!this.sampling) return;
    this.sampling = false;
    this.instance.keyspace.stopEvictionSampling();
  }

  private overLimit(max: number): number {
    const used = usedMemory(this.instance);
    return used.total - used.notCountedForEvict - max;
  }

  private noteUnder(): void {
    if (this.overSince >= 0) this.exceededMs += performance.now() - this.overSince;
    this.overSince = -1;
  }

  private continueLater(): void {
    if (this.continuation !== null) return;
    this.continuation = setImmediate(() => {
      this.continuation = null;
      // Not in the middle of a script that yielded past busy-reply-threshold: it is one command.
      if (this.instance.busyScript !== null) setTimeout(() => this.continueLater(), 1);
      else this.perform();
    });
  }

  private choose(policy: EvictionPolicy): { db: number; key: string } | null {
    const volatileOnly = policy.startsWith('volatile-');
    const dbs = this.instance.keyspace.dbs;
    if (policy.endsWith('-random')) {
      for (let i = 0; i < dbs.length; i++) {
        const db = dbs[this.nextRandomDb++ % dbs.length]!;
        const size = volatileOnly ? db.expires.size : db.size;
        if (size === 0) continue;
        const sample: string[] = [];
        db.sample(volatileOnly, 1, sample);
        if (sample.length > 0) return { db: db.index, key: sample[0]! };
      }
      return null;
    }
    const samples = Math.max(1, this.instance.config.getNumber('maxmemory-samples'));
    for (;;) {
      let sampled = 0;
      for (const db of dbs) {
        const size = volatileOnly ? db.expires.size : db.size;
        if (size === 0) continue;
        const keys: string[] = [];
        db.sample(volatileOnly, samples, keys);
        sampled += keys.length;
        for (const key of keys) this.offer({ score: this.score(policy, db.index, key), db: db.index, key });
      }
      if (sampled === 0) return null;
      // The best candidate still there (a key may have gone since it was pooled).
      while (this.pool.length > 0) {
        const best = this.pool.pop()!;
        const db = dbs[best.db]!;
        if (volatileOnly ? db.expires.has(best.key) : db.values.has(best.key)) return best;
      }
    }
  }

  private score(policy: EvictionPolicy, dbIndex: number, key: string): number {
    const db = this.instance.keyspace.dbs[dbIndex]!;
    // Shared integers are no issue: under an LRU policy Redis shares none.
    if (policy.endsWith('-lru')) return db.idleSeconds(key, false, 0);
    if (policy.endsWith('-lfu')) return 255 - db.frequency(key);
    return -(db.expires.get(key) ?? Infinity);
  }

  /** evictionPoolPopulate's insertion: kept sorted, the worst dropped when full. */
  private offer(candidate: Candidate): void {
    const pool = this.pool;
    const same = pool.findIndex((c) => c.db === candidate.db && c.key === candidate.key);
    if (same >= 0) pool.splice(same, 1);
    let at = 0;
    while (at < pool.length && pool[at]!.score < candidate.score) at++;
    if (pool.length >= POOL_SIZE) {
      if (at === 0) return;
      pool.splice(at, 0, candidate);
      pool.shift();
    } else {
      pool.splice(at, 0, candidate);
    }
  }

  private evict(dbIndex: number, key: string): void {
    const { instance } = this;
    instance.keyspace.dbs[dbIndex]!.delete(key);
    instance.stats.evictedKeys++;
    // As Redis: WATCH and tracking are told, then the event, then the deletion propagates.
    instance.keyspace.signalModified(dbIndex, key);
    instance.keyspaceEvents.notify(NOTIFY_EVICTED, 'evicted', key, dbIndex);
    if (instance.effects.active) {
      const del = instance.config.get('lazyfree-lazy-eviction') === 'yes' ? 'UNLINK' : 'DEL';
      instance.effects.append([{ db: dbIndex, argv: [del, Buffer.from(key, 'latin1')] }]);
    }
  }
}
