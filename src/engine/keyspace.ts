// The keyspace: 16 numbered databases of typed values with optional expiry.
// Keys are binary-safe: a key is held as a JS string in latin1 (one char per byte), which
// makes it a cheap Map key and converts back to the exact bytes with keyBytes().
import { Buffer } from 'node:buffer';
import { DatasetMemory, type MemoryModel } from './dataset-memory.js';
import { LFU_INIT_VAL, accessedLfu, decayedCounter, lfuMinutes, packLfu } from './lfu.js';

export const DATABASE_COUNT = 16;

/** Buffer's own latin1 decoder, which toString('latin1') reaches after its generic checks. */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice?: (this: Buffer, start: number, end: number) => string }).latin1Slice;

export function keyOf(arg: Buffer): string {
  // One-byte keys come from V8's one-char string cache, without a native toString call.
  if (arg.length === 1) return String.fromCharCode(arg[0]!);
  // Every command decodes its key: calling the decoder directly saves about a third of it.
  return latin1Slice !== undefined ? latin1Slice.call(arg, 0, arg.length) : arg.toString('latin1');
}

export function keyBytes(key: string): Buffer {
  return Buffer.from(key, 'latin1');
}

/** A value's type as TYPE and WRONGTYPE checks see it. */
export type TypeName = 'string' | 'list' | 'hash' | 'set' | 'zset' | 'stream';

/** Any stored value knows its type name; strings are Buffers. */
export interface TypedValue {
  readonly typeName: TypeName;
}

/** What a key holds: a string (Buffer) or a typed value. */
export type StoredValue = Buffer | TypedValue;

export function typeOf(value: StoredValue): TypeName {
  return Buffer.isBuffer(value) ? 'string' : value.typeName;
}

/** Called when a key is changed, deleted or expired; WATCH and blocked readers hang off it. */
export type KeyListener = (db: number, key: string) => void;

/** lfu-decay-time and lfu-log-factor, while an LFU maxmemory-policy is set. */
export interface LfuTracking {
  readonly decayTimeMinutes: number;
  readonly logFactor: number;
}

export class Database {
  values = new Map<string, StoredValue>();
  /** Absolute expiry time in ms since the epoch. */
  expires = new Map<string, number>();
  /** On a writable replica: keys whose TTL a local client set, which the replica expires itself. */
  private localExpiries = new Set<string>();
  /** The bytes of the keys and values, kept as they change (INFO used_memory, maxmemory). */
  memory: DatasetMemory;
  /**
   * Each key's access time in seconds (Redis's LRU clock, OBJECT IDLETIME): positive when a
   * lookup touched it, negative when a write stored it (Redis's shared integers keep their own
   * time then; see idleSeconds).
   */
  private lru = new Map<string, number>();
  /** Each key's LFU field (engine/lfu.ts), kept only while the keyspace tracks frequency. */
  private lfu = new Map<string, number>();
  /**
   * The keys, and the keys with a TTL, in arrays for eviction's random samples (a Map has no
   * random access). Built on the first sample, kept while eviction may run: new keys are pushed,
   * deleted ones are dropped when a sample meets them. Null otherwise.
   */
  private evictionIndex: { all: string[]; withTtl: string[] } | null = null;

  constructor(readonly index: number, private readonly keyspace: Keyspace) {
    this.memory = new DatasetMemory(keyspace.memoryModel);
  }

  get size(): number {
    return this.values.size;
  }

  /** Looks a key up, deleting it first if it has expired (lazy expiry), and updates its access time. */
  get(key: string): StoredValue | undefined {
    const value = this.values.get(key);
    if (value === undefined) return undefined;
    if (this.expires.size > 0 && this.expireIfNeeded(key)) return undefined;
    if (this.keyspace.lfuTracking === null) this.lru.set(key, this.keyspace.lruClock());
    else this.touchFrequency(key, this.keyspace.lfuTracking);
    // The caller may change it in place: its bytes are counted again when next read.
    if (!Buffer.isBuffer(value)) this.memory.touched(value);
    return value;
  }

  /**
   * A lookup that leaves the access time alone (Redis's LOOKUP_NOTOUCH: TYPE, EXISTS, TTL,
   * OBJECT); expired keys are still removed. The caller does not change the value.
   */
  peek(key: string): StoredValue | undefined {
    const value = this.values.get(key);
    if (value === undefined) return undefined;
    if (this.expires.size > 0 && this.expireIfNeeded(key)) return undefined;
    return value;
  }

  /**
   * OBJECT IDLETIME: seconds since the key was last touched. Redis's shared integers carry one
   * access time for every key holding them, from `sharedSince` (seconds) unless a lookup
   * touched this key later.
   */
  idleSeconds(key: string, shared: boolean, sharedSince: number): number {
    const at = this.lru.get(key);
    if (at === undefined) return 0;
    const since = shared ? Math.max(at, sharedSince) : Math.abs(at);
    return Math.max(0, this.keyspace.lruClock() - since);
  }

  /** OBJECT FREQ: the key's LFU counter, decayed to now. */
  frequency(key: string): number {
    const tracking = this.keyspace.lfuTracking;
    const now = lfuMinutes(this.keyspace.now());
    const packed = this.lfu.get(key) ?? packLfu(LFU_INIT_VAL, now);
    return decayedCounter(packed, now, tracking?.decayTimeMinutes ?? 0);
  }

  /** RESTORE ... FREQ: the key's LFU counter from now on. */
  setFrequency(key: string, counter: number): void {
    if (this.values.has(key)) this.lfu.set(key, packLfu(counter, lfuMinutes(this.keyspace.now())));
  }

  private touchFrequency(key: string, tracking: LfuTracking): void {
    const now = lfuMinutes(this.keyspace.now());
    const packed = this.lfu.get(key) ?? packLfu(LFU_INIT_VAL, now);
    this.lfu.set(key, accessedLfu(packed, now, tracking.decayTimeMinutes, tracking.logFactor));
  }

  /** Forgets every LFU counter (the policy left LFU). */
  clearFrequencies(): void {
    this.lfu.clear();
  }

  /** Eviction's sample: up to `count` keys picked at random (from the keys with a TTL only, or all). */
  sample(withTtlOnly: boolean, count: number, out: string[]): void {
    const index = (this.evictionIndex ??= { all: [...this.values.keys()], withTtl: [...this.expires.keys()] });
    const map: Map<string, unknown> = withTtlOnly ? this.expires : this.values;
    let keys = withTtlOnly ? index.withTtl : index.all;
    // Mostly stale (keys deleted, or re-added and so listed twice): list the live ones again.
    if (keys.length > 2 * map.size + 64) {
      keys = [...map.keys()];
      if (withTtlOnly) index.withTtl = keys;
      else index.all = keys;
    }
    const wanted = Math.min(count, map.size);
    for (let taken = 0, tries = 0; taken < wanted && keys.length > 0 && tries < 4 * count + 16; tries++) {
      const at = Math.floor(Math.random() * keys.length);
      const key = keys[at]!;
      if (map.has(key)) {
        out.push(key);
        taken++;
      } else {
        keys[at] = keys[keys.length - 1]!;
        keys.pop();
      }
    }
  }

  /** A new key joins the arrays; once they are mostly stale (eviction stopped sampling), they go. */
  private indexForEviction(keys: string[], key: string): void {
    if (keys.length > 2 * this.values.size + 64) this.evictionIndex = null;
    else keys.push(key);
  }

  /** Eviction stopped (noeviction): its index goes. */
  dropEvictionIndex(): void {
    this.evictionIndex = null;
  }

  /** RESTORE ... IDLETIME: the key reads as idle for that many seconds. */
  setIdle(key: string, seconds: number): void {
    if (this.values.has(key)) this.lru.set(key, this.keyspace.lruClock() - seconds);
  }

  /** A typed value changed in place by a holder that did not get() it again (the AOF loader's cache). */
  changed(value: TypedValue): void {
    this.memory.touched(value);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** Stores a value. The expiry is kept unless `keepTtl` is false. */
  set(key: string, value: StoredValue, keepTtl = false): void {
    const memory = this.memory;
    const onNew = this.keyspace.newKeyListener;
    let added = false;
    if (memory.model !== null || onNew !== null) {
      const old = this.values.get(key);
      added = old === undefined;
      if (memory.model !== null) {
        if (old !== undefined) memory.removed(key, old);
        memory.added(key, value);
      }
    }
    if (this.evictionIndex !== null && !this.values.has(key)) this.indexForEviction(this.evictionIndex.all, key);
    this.values.set(key, value);
    this.lru.set(key, -this.keyspace.lruClock());
    // As Redis's createObject under an LFU policy; an overwrite keeps the counter (dbSetValue).
    if (this.keyspace.lfuTracking !== null && !this.lfu.has(key)) this.lfu.set(key, packLfu(LFU_INIT_VAL, lfuMinutes(this.keyspace.now())));
    // Redis's dbAdd: the "new" keyspace event (not while loading, as dbAddRDBLoad).
    if (added && onNew !== null && !this.keyspace.loading) onNew(this.index, key);
    // Most keyspaces have no expiring key: skip hashing the key a second time.
    if (!keepTtl && this.expires.size > 0) this.expires.delete(key);
  }

  delete(key: string): boolean {
    const value = this.values.get(key);
    if (value === undefined) return false;
    this.remove(key, value);
    return true;
  }

  private remove(key: string, value: StoredValue): void {
    this.values.delete(key);
    this.expires.delete(key);
    this.lru.delete(key);
    if (this.lfu.size > 0) this.lfu.delete(key);
    if (this.localExpiries.size > 0) this.localExpiries.delete(key);
    this.memory.removed(key, value);
  }

  setExpire(key: string, atMs: number): void {
    if (this.evictionIndex !== null && !this.expires.has(key)) this.indexForEviction(this.evictionIndex.withTtl, key);
    this.expires.set(key, atMs);
    // A writable replica expires the keys its own clients gave a TTL (Redis's slaveKeysWithExpire).
    if (this.keyspace.expiryByPrimary && !this.keyspace.obeyingPrimary) this.localExpiries.add(key);
  }

  getExpire(key: string): number | undefined {
    return this.expires.get(key);
  }

  persist(key: string): boolean {
    return this.expires.delete(key);
  }

  /** SWAPDB: the two databases exchange their keys (and expiries); indexes stay. */
  swapContents(other: Database): void {
    [this.values, other.values] = [other.values, this.values];
    [this.expires, other.expires] = [other.expires, this.expires];
    [this.localExpiries, other.localExpiries] = [other.localExpiries, this.localExpiries];
    [this.lru, other.lru] = [other.lru, this.lru];
    [this.lfu, other.lfu] = [other.lfu, this.lfu];
    [this.evictionIndex, other.evictionIndex] = [other.evictionIndex, this.evictionIndex];
    [this.memory, other.memory] = [other.memory, this.memory];
    // Counted under another keyspace's model (an RDB decoded aside): count again under ours.
    if (this.memory.model !== this.keyspace.memoryModel) this.memory = recounted(this.keyspace.memoryModel, this.values);
    if (other.memory.model !== other.keyspace.memoryModel) other.memory = recounted(other.keyspace.memoryModel, other.values);
  }

  clear(): void {
    this.values.clear();
    this.expires.clear();
    this.lru.clear();
    this.lfu.clear();
    this.evictionIndex = null;
    this.localExpiries.clear();
    this.memory.cleared();
  }

  /** Returns true when the key was expired and removed. */
  expireIfNeeded(key: string): boolean {
    const at = this.expires.get(key);
    if (at === undefined || at > this.keyspace.now()) return false;
    if (this.keyspace.loading) return false;
    if (this.keyspace.expiryByPrimary) {
      // A replica: its primary's DEL removes the key. Until then the primary's commands still see
      // it, and everyone else reads it as gone (Redis's expireIfNeeded on a replica), except that
      // a local write on a writable replica, or a key a local client gave its TTL, removes it.
      if (this.keyspace.obeyingPrimary) return false;
      if (!this.keyspace.localWriteOnReplica && !this.localExpiries.has(key)) return true;
    }
    // Clients are paused (CLIENT PAUSE, FAILOVER): the dataset stays as it is, and the key reads as gone.
    if (this.keyspace.expiryPaused) return true;
    this.remove(key, this.values.get(key)!);
    this.keyspace.onExpired(this.index, key);
    return true;
  }

  /**
   * Active expiry, as Redis's activeExpireCycle: sample keys with a TTL and delete the expired
   * ones, repeating while more than a quarter of the sample had expired.
   */
  activeExpireCycle(sampleSize = 20, maxRounds = 16): number {
    let removed = 0;
    if (this.keyspace.expiryPaused) return 0;
    if (this.keyspace.expiryByPrimary) return this.expireLocalKeys();
    for (let round = 0; round < maxRounds && this.expires.size > 0; round++) {
      let sampled = 0;
      let expired = 0;
      const now = this.keyspace.now();
      for (const [key, at] of this.expires) {
        if (sampled++ >= sampleSize) break;
        if (at <= now) {
          this.remove(key, this.values.get(key)!);
          this.keyspace.onExpired(this.index, key);
          expired++;
        }
      }
      removed += expired;
      if (expired * 4 <= sampled) break;
    }
    return removed;
  }

  /** A replica's active expiry: only keys its own clients gave a TTL (Redis's expireSlaveKeys). */
  private expireLocalKeys(): number {
    let removed = 0;
    const now = this.keyspace.now();
    for (const key of this.localExpiries) {
      const at = this.expires.get(key);
      if (at === undefined) this.localExpiries.delete(key);
      else if (at <= now) {
        this.remove(key, this.values.get(key)!);
        this.keyspace.onExpired(this.index, key);
        removed++;
      }
    }
    return removed;
  }
}

function recounted(model: MemoryModel | null, values: Map<string, StoredValue>): DatasetMemory {
  const memory = new DatasetMemory(model);
  memory.recount(values);
  return memory;
}

export class Keyspace {
  readonly dbs: Database[];
  /** True while the AOF is being replayed: no expiry happens then, as in Redis. */
  loading = false;
  /** A replica's: keys are removed only by its primary's DELs; expired ones read as missing. */
  expiryByPrimary = false;
  /** Set while a command from the primary runs: it sees expired keys that are still there. */
  obeyingPrimary = false;
  /** Set while a local client's write runs on a writable replica: expired keys it meets are removed. */
  localWriteOnReplica = false;
  /** Set while clients are paused: expired keys read as missing and are not deleted (no DEL propagates). */
  expiryPaused = false;
  /** The LFU parameters while an LFU maxmemory-policy is set (lookups count frequency, not recency); else null. */
  lfuTracking: LfuTracking | null = null;
  private readonly listeners: KeyListener[] = [];
  /** Told about each key a write adds to a database (the "new" keyspace event); null: none. */
  newKeyListener: KeyListener | null = null;
  /** Listeners told about keys that expired (the AOF logs a DEL for them). */
  private readonly expiryListeners: KeyListener[] = [];

  /** The clock's reading commands see while frozen (a batch of commands), else -1. */
  private frozenAt = -1;

  constructor(
    private readonly clock: () => number = Date.now,
    /** How keys and values are counted in bytes (none: nothing is counted). */
    readonly memoryModel: MemoryModel | null = null,
  ) {
    this.dbs = Array.from({ length: DATABASE_COUNT }, (_, i) => new Database(i, this));
  }

  /** The time in ms commands see: the clock, or the reading frozen for a batch of commands. */
  readonly now = (): number => (this.frozenAt >= 0 ? this.frozenAt : this.clock());

  /**
   * Reads the clock once for the commands that follow, until thawClock (Instance.beginBatch);
   * `at` instead of the clock (a script resumed sees the time it started at).
   */
  freezeClock(at = this.clock()): void {
    this.frozenAt = at;
    this.frozenSeconds = Math.floor(this.frozenAt / 1000);
  }

  thawClock(): void {
    this.frozenAt = -1;
  }

  private frozenSeconds = 0;

  /** Redis's LRU clock: the time in whole seconds (computed once per frozen batch). */
  lruClock(): number {
    return this.frozenAt >= 0 ? this.frozenSeconds : Math.floor(this.clock() / 1000);
  }

  /** Switches lookups between LRU (null) and LFU tracking; counters are dropped when LFU ends. */
  trackFrequency(tracking: LfuTracking | null): void {
    if (tracking === null && this.lfuTracking !== null) for (const db of this.dbs) db.clearFrequencies();
    this.lfuTracking = tracking;
  }

  /** Eviction stopped: the databases drop the key arrays they sampled from. */
  stopEvictionSampling(): void {
    for (const db of this.dbs) db.dropEvictionIndex();
  }

  db(index: number): Database {
    const db = this.dbs[index];
    if (db === undefined) throw new RangeError(`no database ${index}`);
    return db;
  }

  onKeyModified(listener: KeyListener): void {
    this.listeners.push(listener);
  }

  onKeyExpired(listener: KeyListener): void {
    this.expiryListeners.push(listener);
  }

  /** Tells WATCH and blocked readers that a key changed (Redis's signalModifiedKey). */
  signalModified(db: number, key: string): void {
    for (const l of this.listeners) l(db, key);
  }

  /** @internal called by Database on expiry. */
  onExpired(db: number, key: string): void {
    for (const l of this.expiryListeners) l(db, key);
    this.signalModified(db, key);
  }

  /** The bytes of every database's keys and values. */
  datasetBytes(): number {
    let n = 0;
    for (const db of this.dbs) n += db.memory.total();
    return n;
  }

  totalKeys(): number {
    let n = 0;
    for (const db of this.dbs) n += db.size;
    return n;
  }
}
