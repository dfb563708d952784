// A whole RDB file (rdbSaveRio / rdbLoadRio), version 10 as Redis 7.0 writes it:
//   "REDIS0010", AUX fields (redis-ver, redis-bits, ctime, used-mem, aof-base), the function
//   libraries (FUNCTION2 entries, function-entries.ts),
//   per non-empty database SELECTDB + RESIZEDB and its keys (EXPIRETIME_MS before a key with a
//   TTL), EOF, and the CRC64 of everything before it (little-endian).
// Works on the engine's Keyspace only, so the commands (SAVE, DEBUG RELOAD) and the persistence
// layer (dump.rdb at start, AOF bases) share it.
import { keyBytes, keyOf, type Keyspace } from '../engine/keyspace.js';
import * as T from './constants.js';
import { RdbFormatError } from './constants.js';
import { crc64 } from './crc64.js';
import { RdbReader } from './rdb-reader.js';
import { RdbWriter } from './rdb-writer.js';
import { RdbEmptyKeyError, readValue, readValueType, writeValue } from './value-codec.js';
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
 * sync sends as they are, without joining them (or growing one buffer) first.
 */
export function saveRdbChunks(keyspace: Keyspace, options: RdbSaveOptions): Buffer[] {
  return writeRdb(new RdbWriter(true), keyspace, options).finishChunks();
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
  if (!isRdb(data)) throw new RdbFormatError('Wrong signature trying to load DB from file');
  const versionText = data.subarray(5, 9).toString('latin1');
  const version = /^\d{4}$/.test(versionText) ? Number(versionText) : NaN;
  if (!(version >= 1 && version <= T.RDB_MAX_LOADABLE_VERSION)) {
    throw new RdbFormatError(`Can't handle RDB format version ${versionText}`);
  }
  const r = new RdbReader(data);
  r.pos = 9;
  const result: RdbLoadResult = { keysLoaded: 0, keysExpired: 0, aux: new Map(), functions: [], end: 0 };
  let db = keyspace.db(0);
  let expireAt: number | null = null;
  for (;;) {
    const type = r.byte();
    switch (type) {
      case T.OPCODE_EXPIRETIME_MS:
        expireAt = r.millis();
        continue;
      case T.OPCODE_EXPIRETIME:
        expireAt = r.bytes(4).readInt32LE(0) * 1000;
        continue;
      case T.OPCODE_IDLE:
        r.bigLen();
        continue;
      case T.OPCODE_FREQ:
        r.byte();
        continue;
      case T.OPCODE_SELECTDB: {
        const index = r.len();
        if (index >= keyspace.dbs.length) {
          throw new RdbFormatError(
            `FATAL: Data file was created with a Redis server configured to handle more than ${keyspace.dbs.length} databases. Exiting`,
          );
        }
        db = keyspace.db(index);
        continue;
      }
      case T.OPCODE_RESIZEDB:
        r.bigLen();
        r.bigLen();
        continue;
      case T.OPCODE_AUX: {
        const key = r.string().toString('latin1');
        result.aux.set(key, r.string().toString('latin1'));
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
        continue;
      case T.OPCODE_MODULE_AUX:
        throw new RdbFormatError(`The RDB file holds module data (opcode ${type}), which sluice cannot load`);
      case T.OPCODE_EOF: {
        const bodyEnd = r.pos;
        if (version >= 5) {
          const expected = r.bytes(8).readBigUInt64LE(0);
          const known = options.knownCrc;
          const actual = known !== undefined && known.end === bodyEnd ? known.crc : crc64(data.subarray(0, bodyEnd));
          if (expected !== 0n && expected !== actual) {
            throw new RdbFormatError(
              `Wrong RDB checksum expected: (${expected.toString(16).padStart(16, '0')}) got (${actual.toString(16).padStart(16, '0')}). Aborting now.`,
            );
          }
        }
        result.end = r.pos;
        return result;
      }
    }
    if (type === 6 || type === 7) throw new RdbFormatError('The RDB file holds module values, which sluice cannot load');
    r.pos--;
    const valueType = readValueType(r);
    const key = keyOf(r.string());
    let value;
    try {
      value = readValue(r, valueType);
    } catch (err) {
      if (!(err instanceof RdbEmptyKeyError)) throw err;
      expireAt = null;
      continue; // Redis skips empty collections
    }
    const at = expireAt;
    expireAt = null;
    if (at !== null && !options.aofPreamble && at < options.now) {
      result.keysExpired++;
      continue;
    }
    if (db.values.has(key)) throw new RdbFormatError(`Duplicate key '${key}' found in RDB file`);
    db.set(key, value);
    if (at !== null) db.setExpire(key, at);
    result.keysLoaded++;
  }
}
