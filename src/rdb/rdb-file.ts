// A whole RDB file (rdbSaveRio / rdbLoadRio), version 10 as Redis 7.0 writes it:
//   "REDIS0010", AUX fields (redis-ver, redis-bits, ctime, used-mem, aof-base), the function
//   libraries (FUNCTION2 entries, function-entries.ts),
//   per non-empty database SELECTDB + RESIZEDB and its keys (EXPIRETIME_MS before a key with a
//   TTL), EOF, and the CRC64 of everything before it (little-endian).
// Works on the engine's Keyspace only, so the commands (SAVE, DEBUG RELOAD) and the persistence
// layer (dump.rdb at start, AOF bases) share it.
import { type Database, keyBytes, keyOf, type Keyspace } from '../engine/keyspace.js';
import * as T from './constants.js';
import { RdbFormatError } from './constants.js';
import { crc64 } from './crc64.js';
import { NEED_MORE, RdbReader } from './rdb-reader.js';
import { RdbWriter } from './rdb-writer.js';
import { RdbEmptyKeyError, readValue, readValueType, writeValue } from './value-codec.js';
import { readStream, StreamLoading } from './stream-codec.js';
import { readFunctionEntry, writeFunctionEntries } from './function-entries.js';

export interface RdbSaveOptions {
  /** The redis-ver AUX field. */
  version: string;
  /** ms since the epoch (ctime). */
  now: number;
  /** used-mem AUX field, bytes. */
  usedMemory: number;
  /** Written as the base of an AOF (aof-base 1). */
  aofBase?: boolean;
  /**
   * The repl-stream-db, repl-id and repl-offset AUX fields (rdbSaveInfoAuxFields), when the
   * instance is in a replication chain (rdbPopulateSaveInfo): a replica restarted with the file
   * continues its primary's history with a partial resync.
   */
  replication?: RdbReplicationInfo | null;
  /** The function libraries' codes, written before the databases as rdbSaveFunctions. */
  functions?: readonly Buffer[];
}

/** What an RDB file says of the replication history it was saved in (its AUX fields). */
export interface RdbReplicationInfo {
  /** The db the replication stream was in (the next command applies there). */
  streamDb: number;
  replid: string;
  offset: number;
}

/** The replication AUX fields of a loaded file, as rdbLoad fills rdbSaveInfo; null when absent or unusable. */
export function replicationInfoOf(aux: Map<string, string>): RdbReplicationInfo | null {
  const replid = aux.get('repl-id');
  const offset = Number(aux.get('repl-offset') ?? NaN);
  const streamDb = Number(aux.get('repl-stream-db') ?? NaN);
  // As loadDataFromDisk: an id of 40 characters, an offset and a stream db (older files saved -1).
  if (replid === undefined || replid.length !== 40 || !Number.isSafeInteger(offset) || offset < 0) return null;
  if (!Number.isInteger(streamDb) || streamDb < 0) return null;
  return { streamDb, replid, offset };
}

export function saveRdb(keyspace: Keyspace, options: RdbSaveOptions): Buffer {
  return writeRdb(new RdbWriter(), keyspace, options).finishWithChecksum();
}

/**
 * The same file as saveRdb, as the chunks it was written in (about 1 MiB each): what a full
 * sync sends as they are, without joining them (or growing one buffer) first. `onChunk` is told
 * of each chunk but the last as soon as it is full (a full sync starts sending it then).
 */
export function saveRdbChunks(keyspace: Keyspace, options: RdbSaveOptions, onChunk?: (chunk: Buffer) => void): Buffer[] {
  const w = new RdbWriter(true);
  if (onChunk !== undefined) w.onChunk = onChunk;
  return writeRdb(w, keyspace, options).finishChunks();
}

function writeRdb(w: RdbWriter, keyspace: Keyspace, options: RdbSaveOptions): RdbWriter {
  w.raw(Buffer.from(`REDIS${String(T.RDB_VERSION).padStart(4, '0')}`, 'latin1'));
  const aux = (key: string, value: string) => w.byte(T.OPCODE_AUX).string(Buffer.from(key)).string(Buffer.from(value));
  aux('redis-ver', options.version);
  aux('redis-bits', '64');
  aux('ctime', String(Math.floor(options.now / 1000)));
  aux('used-mem', String(options.usedMemory));
  if (options.replication) {
    aux('repl-stream-db', String(options.replication.streamDb));
    aux('repl-id', options.replication.replid);
    aux('repl-offset', String(options.replication.offset));
  }
  aux('aof-base', options.aofBase ? '1' : '0');
  writeFunctionEntries(w, options.functions ?? []);
  for (const db of keyspace.dbs) {
    if (db.size === 0) continue;
    w.byte(T.OPCODE_SELECTDB).len(db.index);
    w.byte(T.OPCODE_RESIZEDB).len(db.size).len(db.expires.size);
    for (const [key, value] of db.values) {
      const at = db.expires.get(key);
      if (at !== undefined) w.byte(T.OPCODE_EXPIRETIME_MS).millis(at);
      writeValue(w, value, keyBytes(key));
    }
  }
  return w.byte(T.OPCODE_EOF);
}

export interface RdbLoadOptions {
  /** ms since the epoch: keys already expired are skipped (except in an AOF preamble). */
  now: number;
  /** Loading the RDB part of an AOF: expired keys are kept, the AOF's DELs follow. */
  aofPreamble?: boolean;
  /** Notices. */
  warn?: (message: string) => void;
  /**
   * Told of each key dropped because it had expired (a primary's load at start, which feeds
   * them to its backlog as DELs: Redis's RDBFLAGS_FEED_REPL).
   */
  onExpired?: (db: number, key: string) => void;
  /**
   * The CRC64 of data[0, end), computed by the caller as the bytes arrived (a replica, during
   * the transfer): used when the checksum covers exactly that, instead of a pass over the file.
   */
  knownCrc?: { end: number; crc: bigint };
}

export interface RdbLoadResult {
  keysLoaded: number;
  keysExpired: number;
  aux: Map<string, string>;
  /** The function libraries' codes, in the file's order (the caller creates the libraries). */
  functions: Buffer[];
  /** Offset just past the file (past the checksum): an old-style AOF preamble continues there. */
  end: number;
}

/** True when the buffer starts like an RDB file. */
export function isRdb(data: Buffer): boolean {
  return data.length >= 9 && data.subarray(0, 5).toString('latin1') === 'REDIS';
}

/**
 * Loads an RDB file into the keyspace. Throws RdbFormatError (with Redis's wording where it
 * has one) on a bad header, an unknown type, a wrong checksum or a short file; keys already
 * loaded stay, so callers load into an empty keyspace and discard it on failure.
 */
export function loadRdb(data: Buffer, keyspace: Keyspace, options: RdbLoadOptions): RdbLoadResult {
  return new RdbLoader(keyspace, options).finish(data);
}

/**
 * An RDB file loaded as its bytes arrive (a replica's full sync, while the primary still sends:
 * the load no longer waits for the whole transfer, and the file is never held whole), or all at
 * once (loadRdb). Each piece is read as far as it goes; what was read stays read (keys, and a
 * stream's whole nodes: StreamLoading), and the rest waits for the next piece. The checksum is
 * the caller's to compute as the bytes pass (knownCrc), or computed here over a file given whole.
 */
/**
 * Bytes an RdbLoader gathers before it reads on: each attempt joins what is pending into one
 * buffer and enters the readers again, so a socket's 64 KiB reads, each read at once, cost the
 * load of a 1M-entry stream about a tenth more CPU than reading the file whole; gathered by
 * 256 KiB it is a few percent, and the load still follows the transfer closely.
 */
const ATTEMPT_BYTES = 256 * 1024;

export class RdbLoader {
  readonly result: RdbLoadResult = { keysLoaded: 0, keysExpired: 0, aux: new Map(), functions: [], end: 0 };
  private readonly r = new RdbReader(Buffer.alloc(0));
  /** Bytes given and not yet read (from the resume point on), and how many. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes of the file before the resume point. */
  private base = 0;
  /** No attempt until this many bytes are pending (a value cut short is read again from its start). */
  private retryAt = 0;
  private version = -1;
  private db: Database;
  private expireAt: number | null = null;
  /** A key whose value was cut short by the end of a piece: read on from there. */
  private key: { key: string; type: number; expireAt: number | null; stream: StreamLoading | null } | null = null;
  /** At OPCODE_EOF: where the body ends and the checksum written after it. */
  private eof: { bodyEnd: number; expected: bigint } | null = null;

  constructor(
    private readonly keyspace: Keyspace,
    private readonly options: RdbLoadOptions,
    /** Bytes gathered before reading on (ATTEMPT_BYTES; 1 reads at every piece). */
    private readonly gather = ATTEMPT_BYTES,
  ) {
    this.db = keyspace.db(0);
  }

  /** More bytes of the file: loads what they complete (RdbFormatError on a bad file). */
  push(bytes: Buffer): void {
    if (bytes.length === 0 || this.eof !== null) return;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= Math.max(this.retryAt, this.gather)) this.attempt(true);
  }

  /**
   * The file's last bytes (`rest`, when given, ends it): loads the rest and checks the checksum
   * (`knownCrc` when it covers exactly the body, else computed over a file given in one piece).
   */
  finish(rest?: Buffer, knownCrc?: { end: number; crc: bigint }): RdbLoadResult {
    const whole = this.base === 0 && this.pendingBytes === 0 && rest !== undefined ? rest : null;
    if (rest !== undefined && this.eof === null) {
      this.pending.push(rest);
      this.pendingBytes += rest.length;
    }
    if (this.eof === null) this.attempt(false);
    const { bodyEnd, expected } = this.eof!;
    if (this.version >= 5) {
      const known = knownCrc ?? this.options.knownCrc;
      let actual: bigint | null = known !== undefined && known.end === bodyEnd ? known.crc : null;
      if (actual === null) {
        if (whole === null) throw new Error('RdbLoader: the checksum of a file given in pieces is the caller\'s to compute');
        actual = crc64(whole.subarray(0, bodyEnd));
      }
      if (expected !== 0n && expected !== actual) {
        throw new RdbFormatError(
          `Wrong RDB checksum expected: (${expected.toString(16).padStart(16, '0')}) got (${actual.toString(16).padStart(16, '0')}). Aborting now.`,
        );
      }
    }
    return this.result;
  }

  /** Reads the pending bytes as far as they go; `partial`: more may come. */
  private attempt(partial: boolean): void {
    const r = this.r;
    const pending = this.pending;
    r.window(pending.length === 1 ? pending[0]! : Buffer.concat(pending, this.pendingBytes), partial);
    let at = 0;
    try {
      at = this.read();
    } catch (err) {
      if (err !== NEED_MORE) throw err;
      at = this.key?.stream != null ? this.key.stream.at : this.resumeAt;
      // Nothing read since the last attempt: wait for twice as much before the next one.
      this.retryAt = at === 0 ? 2 * this.pendingBytes : 0;
    }
    const buf = r.buf;
    this.base += at;
    this.pending = at < buf.length ? [buf.subarray(at)] : [];
    this.pendingBytes = buf.length - at;
    if (this.key?.stream != null) this.key.stream.at = 0;
  }

  /** The window's position after the last item read whole (a key, an opcode). */
  private resumeAt = 0;

  /** Reads items from the window's start; returns where the file ends (EOF) or throws NEED_MORE. */
  private read(): number {
    const r = this.r;
    const { keyspace, options, result } = this;
    this.resumeAt = 0;
    if (this.version < 0) {
      if (r.end < 9 && r.partial) throw NEED_MORE;
      const data = r.buf;
      if (!isRdb(data)) throw new RdbFormatError('Wrong signature trying to load DB from file');
      const versionText = data.subarray(5, 9).toString('latin1');
      const version = /^\d{4}$/.test(versionText) ? Number(versionText) : NaN;
      if (!(version >= 1 && version <= T.RDB_MAX_LOADABLE_VERSION)) {
        throw new RdbFormatError(`Can't handle RDB format version ${versionText}`);
      }
      this.version = version;
      r.pos = 9;
      this.resumeAt = r.pos;
    }
    for (;;) {
      if (this.key !== null) {
        this.readKey(this.key);
        this.key = null;
        this.resumeAt = r.pos;
      }
      const type = r.byte();
      switch (type) {
        case T.OPCODE_EXPIRETIME_MS:
          this.expireAt = r.millis();
          this.resumeAt = r.pos;
          continue;
        case T.OPCODE_EXPIRETIME:
          this.expireAt = r.bytes(4).readInt32LE(0) * 1000;
          this.resumeAt = r.pos;
          continue;
        case T.OPCODE_IDLE:
          r.bigLen();
          this.resumeAt = r.pos;
          continue;
        case T.OPCODE_FREQ:
          r.byte();
          this.resumeAt = r.pos;
          continue;
        case T.OPCODE_SELECTDB: {
          const index = r.len();
          if (index >= keyspace.dbs.length) {
            throw new RdbFormatError(
              `FATAL: Data file was created with a Redis server configured to handle more than ${keyspace.dbs.length} databases. Exiting`,
            );
          }
          this.db = keyspace.db(index);
          this.resumeAt = r.pos;
          continue;
        }
        case T.OPCODE_RESIZEDB:
          r.bigLen();
          r.bigLen();
          this.resumeAt = r.pos;
          continue;
        case T.OPCODE_AUX: {
          const key = r.string().toString('latin1');
          result.aux.set(key, r.string().toString('latin1'));
          this.resumeAt = r.pos;
          continue;
        }
        case T.OPCODE_FUNCTION2:
        case T.OPCODE_FUNCTION_PRE_GA:
          try {
            result.functions.push(readFunctionEntry(r, type));
          } catch (err) {
            if (err instanceof RdbFormatError) throw new RdbFormatError(`Failed loading library, ${err.message}`);
            throw err;
          }
          this.resumeAt = r.pos;
          continue;
        case T.OPCODE_MODULE_AUX:
          throw new RdbFormatError(`The RDB file holds module data (opcode ${type}), which sluice cannot load`);
        case T.OPCODE_EOF: {
          const bodyEnd = this.base + r.pos;
          const expected = this.version >= 5 ? r.bytes(8).readBigUInt64LE(0) : 0n;
          this.eof = { bodyEnd, expected };
          result.end = this.base + r.pos;
          return r.pos;
        }
      }
      if (type === 6 || type === 7) throw new RdbFormatError('The RDB file holds module values, which sluice cannot load');
      r.pos--;
      const valueType = readValueType(r);
      const key = keyOf(r.string());
      const expireAt = this.expireAt;
      this.expireAt = null;
      const pending = { key, type: valueType, expireAt, stream: isStreamType(valueType) ? new StreamLoading(true) : null };
      // Cut short before its node count, a stream is read on from there.
      if (pending.stream !== null) pending.stream.at = r.pos;
      if (pending.stream === null) {
        // Any other value is read whole: cut short, it is read again from its key.
        try {
          this.readKey(pending);
        } catch (err) {
          if (err === NEED_MORE) this.expireAt = expireAt;
          throw err;
        }
      } else {
        // A stream goes on from its last whole node.
        this.key = pending;
        this.readKey(pending);
        this.key = null;
      }
      this.resumeAt = r.pos;
    }
  }

  /** A key's value (from its start, or where its stream was cut short) into its database. */
  private readKey(pending: { key: string; type: number; expireAt: number | null; stream: StreamLoading | null }): void {
    const r = this.r;
    const { options, result } = this;
    let value;
    try {
      value = pending.stream !== null ? readStream(r, pending.type, pending.stream) : readValue(r, pending.type);
    } catch (err) {
      if (!(err instanceof RdbEmptyKeyError)) throw err;
      return; // Redis skips empty collections
    }
    const { key, expireAt: at } = pending;
    if (at !== null && !options.aofPreamble && at < options.now) {
      result.keysExpired++;
      options.onExpired?.(this.db.index, key);
      return;
    }
    const db = this.db;
    if (db.values.has(key)) throw new RdbFormatError(`Duplicate key '${key}' found in RDB file`);
    db.set(key, value);
    if (at !== null) db.setExpire(key, at);
    result.keysLoaded++;
  }
}

function isStreamType(type: number): boolean {
  return type === T.TYPE_STREAM_LISTPACKS || type === T.TYPE_STREAM_LISTPACKS_2 || type === T.TYPE_STREAM_LISTPACKS_3;
}
