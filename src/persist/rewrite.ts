// An incremental AOF rewrite: the keyspace is serialised a few milliseconds at a time
// (setImmediate slices) into a temp file while clients keep writing. There is no fork, so the
// snapshot is made consistent per key instead:
//   - every key that existed at the start is "pending" until its slice serialises it;
//   - a logged batch whose keys are all already serialised (or new since the start) is kept in
//     an in-memory tail and replayed after the snapshot;
//   - a batch touching a pending key needs nothing for that key (its slice will see the new
//     state), but any serialised key in the same batch can no longer be replayed from the tail:
//     it becomes "redo" (re-serialised from its final state at the end), together with every
//     key of the tail batches it was in, transitively. A redo key is written as DEL + its
//     final state, replacing what its slice wrote earlier.
// A stream longer than STREAM_CHUNK entries is written in slices too ("active"): its entries in
// id order from a cursor, then XSETID and its groups from their state at the end. While it is
// active, XADD (entries land after the cursor), group commands and expiry changes need nothing;
// XDEL's ids are deleted again at the end and a trim is redone by XTRIM MINID <first id>;
// anything else touching it (DEL, RENAME ...) makes it a redo key.
// Commands whose keys cannot be known from the command table (FLUSHALL, SWAPDB, MOVE, COPY DB)
// abort the rewrite; it is retried later. The function libraries are written first, a
// FUNCTION LOAD each, from their state at the start (as Redis's rewriteFunctions); FUNCTION
// commands logged later touch no key and are replayed from the tail, in order. The result equals the state at the moment finish()
// runs, which happens synchronously with the switch to the new files.
import { join } from 'node:path';
import type { Instance } from '../commands/core/instance.js';
import type { Propagated } from '../commands/core/effects.js';
import { propagatedBytes } from '../commands/core/effects.js';
import { keyBytes, keyOf } from '../engine/keyspace.js';
import type { Stream } from '../engine/stream.js';
import { formatId, incrementId, MAX_ID, MIN_ID, type StreamId } from '../engine/stream-id.js';
import { rewriteStreamMeta } from './rewrite-stream.js';
import type { AofFs } from './fs-layer.js';
import { serializeKey, type Argv } from './serialize.js';
import { BatchEncoder } from './batch-encoder.js';
import { KeyStatusTable } from './key-status.js';
import { librariesOf } from '../commands/lua/function-libraries.js';


/** Entries per range() call when a big stream is written in slices. */
const STREAM_CHUNK = 1000;

/** Commands that leave an active stream's written entries valid (state read at the end). */
const STREAM_SAFE = new Set([
  'xadd', 'xgroup', 'xclaim', 'xautoclaim', 'xack', 'xsetid',
  'expire', 'pexpire', 'expireat', 'pexpireat', 'persist',
]);

interface ActiveStream {
  id: string;
  db: number;
  key: string;
  stream: Stream;
  /** The next id to write from. */
  cursor: StreamId;
  trimmed: boolean;
  deleted: Buffer[];
}

interface TailEntry {
  batch: Propagated[];
  ids: string[];
}

/** Commands that touch keys the key positions do not name. */
const UNSAFE = new Set(['flushall', 'flushdb', 'swapdb', 'move']);

export class Rewrite {
  readonly startedAt = Date.now();
  /** Per "db:key": pending, redo or active; absent means serialised (or created after the start). */
  private readonly status: KeyStatusTable;
  private exhausted = false;
  private active: ActiveStream | null = null;
  private tail: Array<TailEntry | null> = [];
  private readonly tailByKey = new Map<string, number[]>();
  private readonly encoder = new BatchEncoder();
  private readonly fd: number;
  bytes = 0;
  keysTotal = 0;
  keysDone = 0;
  /** Why the rewrite cannot complete, once it cannot. */
  aborted: string | null = null;

  constructor(
    private readonly instance: Instance,
    private readonly fs: AofFs,
    readonly tempPath: string,
  ) {
    fs.unlink(tempPath);
    this.fd = fs.openAppend(tempPath);
    this.status = new KeyStatusTable(instance.keyspace.dbs);
    this.keysTotal = this.status.total;
    for (const code of librariesOf(instance).codes()) this.encoder.addGlobal(['FUNCTION', 'LOAD', code]);
  }

  static tempName(dir: string): string {
    return join(dir, `temp-rewriteaof-bg-${process.pid}.aof`);
  }

  /** Serialises pending keys for about `budgetMs`; returns true when none are left. */
  step(budgetMs: number): boolean {
    const until = performance.now() + budgetMs;
    let n = 0;
    const overBudget = () => performance.now() >= until || this.encoder.pending > 1 << 20;
    for (;;) {
      if (this.active !== null) {
        if (!this.stepActive()) {
          if (overBudget()) break;
          continue;
        }
        this.active = null;
        this.keysDone++;
        if (overBudget()) break;
        continue;
      }
      if (this.exhausted) break;
      const id = this.status.nextPending();
      if (id === null) {
        this.exhausted = true;
        break;
      }
      if (this.startActive(id)) continue;
      this.status.delete(id);
      this.serialize(id);
      this.keysDone++;
      if (++n % 16 === 0 && overBudget()) break;
    }
    this.writeChunks();
    return this.exhausted && this.active === null;
  }

  /** Starts writing a big stream in slices; false for any other value. */
  private startActive(id: string): boolean {
    const sep = id.indexOf(':');
    const dbIndex = Number(id.slice(0, sep));
    const key = id.slice(sep + 1);
    const db = this.instance.keyspace.db(dbIndex);
    const value = db.values.get(key);
    if (value === undefined || Buffer.isBuffer(value) || value.typeName !== 'stream') return false;
    const stream = value as unknown as Stream;
    if (stream.length <= STREAM_CHUNK) return false;
    const expireAt = db.expires.get(key);
    if (expireAt !== undefined && expireAt <= Date.now()) return false;
    this.status.set(id, 'active');
    this.active = { id, db: dbIndex, key, stream, cursor: MIN_ID, trimmed: false, deleted: [] };
    return true;
  }

  /** Writes the active stream's next entries; returns true when it is complete. */
  private stepActive(): boolean {
    const a = this.active!;
    if (this.status.get(a.id) !== 'active') return true; // became a redo key
    const k = keyBytes(a.key);
    const entries = a.stream.rangeRefs(a.cursor, MAX_ID, STREAM_CHUNK, false);
    this.encoder.addEntries(a.db, k, entries);
    const next = entries.length === 0 ? undefined : incrementId(entries.id(entries.length - 1));
    if (entries.length === STREAM_CHUNK && next !== undefined) {
      a.cursor = next;
      return false;
    }
    // Entries done: undo what happened behind the cursor, then the state at this moment.
    for (let i = 0; i < a.deleted.length; i += 64) this.emit(a.db, ['XDEL', k, ...a.deleted.slice(i, i + 64)]);
    if (a.trimmed) {
      const first = a.stream.range(MIN_ID, MAX_ID, 1, false)[0];
      this.emit(a.db, first === undefined ? ['XTRIM', k, 'MAXLEN', '0'] : ['XTRIM', k, 'MINID', formatId(first.id)]);
    }
    for (const argv of rewriteStreamMeta(k, a.stream)) this.emit(a.db, argv);
    const expireAt = this.instance.keyspace.db(a.db).expires.get(a.key);
    if (expireAt !== undefined) this.emit(a.db, ['PEXPIREAT', k, String(expireAt)]);
    this.status.delete(a.id);
    return true;
  }

  private emit(db: number, argv: Argv): void {
    this.encoder.add(db, argv);
  }

  private serialize(id: string): void {
    const sep = id.indexOf(':');
    const dbIndex = Number(id.slice(0, sep));
    const key = id.slice(sep + 1);
    const db = this.instance.keyspace.db(dbIndex);
    const value = db.values.get(key);
    if (value === undefined) return;
    const expireAt = db.expires.get(key);
    // Already expired keys are left out, as Redis's rewrite does.
    if (expireAt !== undefined && expireAt <= Date.now()) return;
    const cmds: Argv[] = [];
    serializeKey(key, value, expireAt, cmds);
    for (const argv of cmds) this.emit(dbIndex, argv);
  }

  private writeChunks(): void {
    // A slice's commands are one arena Buffer (BatchEncoder.add), written without a copy.
    const slice: Buffer[] = [];
    this.encoder.take(slice);
    const buf = slice[0];
    if (buf === undefined) return;
    let off = 0;
    while (off < buf.length) off += this.fs.write(this.fd, buf, off, buf.length - off);
    this.bytes += buf.length;
    // Written synchronously: the next slice overwrites this one instead of taking a fresh 1 MB.
    this.encoder.reuse(Infinity);
  }

  /** Sees every batch logged while the rewrite runs. */
  observe(batch: Propagated[]): void {
    if (this.aborted !== null) return;
    const ids: string[] = [];
    let functions = false;
    for (const item of batch) {
      if (propagatedBytes(item.argv[0]!).toString('latin1').toLowerCase() === 'function') {
        functions = true;
        continue;
      }
      const keys = this.keysOf(item);
      if (keys === null) {
        this.aborted = `a ${String(item.argv[0])} ran during the rewrite`;
        return;
      }
      for (const k of keys) ids.push(`${item.db}:${k}`);
    }
    if (this.active !== null && ids.includes(this.active.id)) this.observeActive(batch);
    let replayable = true;
    for (const id of ids) if (this.status.has(id)) replayable = false;
    if (replayable) {
      const index = this.tail.length;
      this.tail.push({ batch, ids });
      for (const id of ids) {
        let list = this.tailByKey.get(id);
        if (list === undefined) this.tailByKey.set(id, (list = []));
        list.push(index);
      }
      return;
    }
    if (functions) {
      // The batch's keys are left to their slices, but its FUNCTION command would be lost.
      this.aborted = 'a FUNCTION command ran in a transaction with keys not yet written';
      return;
    }
    for (const id of ids) if (!this.status.has(id)) this.markRedo(id);
  }

  /** A batch touched the stream being written in slices: note what the end must undo. */
  private observeActive(batch: Propagated[]): void {
    const a = this.active!;
    for (const item of batch) {
      if (item.db !== a.db) continue;
      const argv = item.argv.map(propagatedBytes);
      // XGROUP <sub> key ...: group state is written from its final state at the end.
      if (argv[0]!.toString('latin1').toLowerCase() === 'xgroup' && argv.length > 2 && keyOf(argv[2]!) === a.key) continue;
      if (argv.length < 2 || keyOf(argv[1]!) !== a.key) {
        // The key is elsewhere in this command (RENAME dst, COPY ...): not an append.
        if (argv.slice(2).some((x) => keyOf(x) === a.key)) this.status.set(a.id, 'redo');
        continue;
      }
      const name = argv[0]!.toString('latin1').toLowerCase();
      if (name === 'xdel') {
        a.deleted.push(...argv.slice(2).map((x) => Buffer.from(x)));
      } else if (name === 'xtrim') {
        a.trimmed = true;
      } else if (STREAM_SAFE.has(name)) {
        if (name === 'xadd' && argv.some((x) => /^(maxlen|minid)$/i.test(x.toString('latin1')))) a.trimmed = true;
      } else {
        this.status.set(a.id, 'redo');
      }
    }
  }

  /** Marks a serialised key for re-serialisation, dropping the tail batches that touched it. */
  private markRedo(first: string): void {
    const stack = [first];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (this.status.has(id)) continue;
      this.status.set(id, 'redo');
      for (const index of this.tailByKey.get(id) ?? []) {
        const entry = this.tail[index];
        if (entry === null || entry === undefined) continue;
        this.tail[index] = null;
        for (const other of entry.ids) if (!this.status.has(other)) stack.push(other);
      }
      this.tailByKey.delete(id);
    }
  }

  /** The keys a propagated command touches, or null when they cannot be known. */
  private keysOf(item: Propagated): string[] | null {
    const argv = item.argv.map(propagatedBytes);
    const name = argv[0]!.toString('latin1').toLowerCase();
    if (UNSAFE.has(name)) return null;
    if (name === 'copy' && argv.some((a) => a.toString('latin1').toLowerCase() === 'db')) return null;
    const resolved = this.instance.resolve(argv);
    if (!('spec' in resolved)) return null;
    const { spec } = resolved;
    let positions: number[];
    if (spec.keys !== undefined) {
      positions = spec.keys(argv);
    } else {
      if (spec.firstKey <= 0) return null;
      const last = spec.lastKey < 0 ? argv.length + spec.lastKey : spec.lastKey;
      positions = [];
      for (let i = spec.firstKey; i <= last; i += Math.max(1, spec.step)) positions.push(i);
    }
    return positions.filter((i) => i < argv.length).map((i) => keyOf(argv[i]!));
  }

  /**
   * Completes the file: the keys marked redo from their current state, then the tail batches,
   * fsynced. Runs synchronously so nothing is logged between it and the switch to the new files.
   */
  finish(): number {
    for (const [id, st] of this.status.remaining()) {
      if (st !== 'redo') throw new Error('rewrite finished with pending keys');
      // The file may already hold an older state of this key: replace it, do not merge.
      const sep = id.indexOf(':');
      const argv = ['DEL', keyBytes(id.slice(sep + 1))];
      this.emit(Number(id.slice(0, sep)), argv);
      this.serialize(id);
    }
    for (const entry of this.tail) {
      if (entry !== null) this.encoder.encode(entry.batch);
    }
    this.tail = [];
    this.writeChunks();
    this.fs.fsyncSync(this.fd);
    this.fs.close(this.fd);
    return this.bytes;
  }

  discard(): void {
    try {
      this.fs.close(this.fd);
    } catch {
      // already closed
    }
    this.fs.unlink(this.tempPath);
  }
}
