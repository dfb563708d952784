// The instance's whole dataset as an RDB file and back: what SAVE/BGSAVE write (dump.rdb in
// `dir`), what a start without the AOF loads, and what a replication full sync will send and
// load (saveRdb / loadRdb). Files go through the fs layer (fs-layer.ts), as the AOF's do, so
// tests inject a failing disk here too. The format itself lives in src/rdb/.
import { join } from 'node:path';
import { Keyspace } from '../engine/keyspace.js';
import { RdbFormatError } from '../rdb/constants.js';
import {
  RdbLoader,
  type RdbLoadResult,
  type RdbReplicationInfo,
  type RdbSaveOptions,
  replicationInfoOf,
  saveRdb as saveRdbOf,
  saveRdbChunks as saveRdbChunksOf,
} from '../rdb/rdb-file.js';
import { REDIS_VERSION } from '../commands/core/identity.js';
import type { Instance } from '../commands/core/instance.js';
import type { RdbStatus, SnapshotControl } from '../commands/core/persistence.js';
import { usedMemory } from '../commands/used-memory.js';
import { type FunctionLibraries, librariesOf } from '../commands/lua/function-libraries.js';
import { CommandError } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { type AofFs, nodeFs } from './fs-layer.js';

/**
 * The dataset as an RDB file (version 10, as Redis 7.0 writes). Saved in a replication chain
 * (rdbPopulateSaveInfo), it records the replication id, offset and stream db; an AOF's base
 * never does (Redis saves it without rdbSaveInfo).
 */
export function saveRdb(instance: Instance, options: { aofBase?: boolean } = {}): Buffer {
  return saveRdbOf(instance.keyspace, saveOptions(instance, options.aofBase ?? false));
}

/** saveRdb as the chunks it was written in (a full sync sends them as they are, from `onChunk` on). */
export function saveRdbChunks(instance: Instance, onChunk?: (chunk: Buffer) => void): Buffer[] {
  return saveRdbChunksOf(instance.keyspace, saveOptions(instance, false), onChunk);
}

function saveOptions(instance: Instance, aofBase: boolean): RdbSaveOptions {
  const info = aofBase ? null : (instance.replicationControl?.saveInfo() ?? null);
  const r = instance.replication;
  return {
    version: REDIS_VERSION,
    now: Date.now(),
    usedMemory: usedMemory(instance).total,
    aofBase,
    replication: info === null ? null : { streamDb: info.streamDb, replid: r.replid, offset: r.offset },
    functions: librariesOf(instance).codes(),
  };
}

/**
 * Creates an RDB file's libraries in `into` (rdbFunctionLoad, no load timeout); `replace` lets
 * one replace a library of the same name (DEBUG RELOAD MERGE). A library that fails is the
 * load's failure: RdbFormatError "Failed loading library, <reason>" as Redis logs it.
 */
export function createLibraries(into: FunctionLibraries, codes: readonly Buffer[], replace = false): void {
  for (const code of codes) {
    try {
      into.create(code, replace, false);
    } catch (err) {
      if (!(err instanceof CommandError)) throw err;
      throw new RdbFormatError(`Failed loading library, ${err.reply.replace(/^ERR /, '')}`);
    }
  }
}

/**
 * Replaces the dataset and the function libraries with an RDB file's. The file is decoded
 * aside first, its libraries too, so a bad file (RdbFormatError) leaves the instance untouched;
 * WATCHers and blocked clients of every key that changed are told.
 */
export function loadRdb(
  buffer: Buffer, instance: Instance, knownCrc?: { end: number; crc: bigint }, onExpired?: (db: number, key: string) => void,
): RdbLoadResult {
  return new IncomingRdb(instance, onExpired).finish(buffer, knownCrc);
}

/**
 * An RDB file decoded into a keyspace aside as its bytes arrive (a replica's full sync loads
 * while the primary sends), then swapped in whole by finish(): until then the instance keeps
 * its dataset, and a bad or cut file leaves it untouched.
 */
export class IncomingRdb {
  private readonly fresh: Keyspace;
  private readonly loader: RdbLoader;

  constructor(
    private readonly instance: Instance,
    onExpired?: (db: number, key: string) => void,
  ) {
    this.fresh = new Keyspace(instance.keyspace.now, instance.keyspace.memoryModel);
    this.loader = new RdbLoader(this.fresh, { now: instance.keyspace.now(), warn: (m) => instance.logger.warn(m), onExpired });
  }

  /** More bytes of the file, decoded as far as they go (RdbFormatError on a bad file). */
  push(bytes: Buffer): void {
    this.loader.push(bytes);
  }

  /** The file's end (`rest`: its last bytes): decodes them, checks the checksum, swaps the dataset in. */
  finish(rest?: Buffer, knownCrc?: { end: number; crc: bigint }): RdbLoadResult {
    const instance = this.instance;
    const fresh = this.fresh;
    const result = this.loader.finish(rest, knownCrc);
    const libraries = librariesOf(instance);
    const incoming = libraries.fresh();
    try {
      createLibraries(incoming, result.functions);
    } catch (err) {
      incoming.flush();
      throw err;
    }
    libraries.replaceWith(incoming);
    for (const db of instance.keyspace.dbs) {
      const incoming = fresh.db(db.index);
      if (db.size === 0 && incoming.size === 0) continue;
      const touched = new Set([...db.values.keys(), ...incoming.values.keys()]);
      db.swapContents(incoming);
      for (const key of touched) instance.keyspace.signalModified(db.index, key);
    }
    return result;
  }
}

/** dump.rdb in the instance's `dir`: SAVE/BGSAVE write it, a start without the AOF loads it. */
export class RdbSnapshots implements SnapshotControl {
  readonly status: RdbStatus = { saves: 0, lastSaveOk: true, lastSaveSeconds: -1, lastLoadKeysLoaded: 0, lastLoadKeysExpired: 0 };
  /** The replication history the file loaded at start recorded (its AUX fields), null when none. */
  loadedReplication: RdbReplicationInfo | null = null;
  /**
   * The keys the file loaded at start held already expired, dropped by the load: a primary
   * feeds them to its backlog as DELs (restoreFromRdb), so the replicas continuing from the
   * file's offset drop them too. Emptied once fed.
   */
  expiredAtLoad: Array<{ db: number; key: string }> = [];

  constructor(
    private readonly instance: Instance,
    private readonly fs: AofFs = nodeFs,
  ) {}

  private path(): string {
    return join(this.instance.config.get('dir'), this.instance.config.get('dbfilename'));
  }

  /**
   * SAVE: writes the dataset to DIR/dbfilename through a temp file, fsync and rename (as
   * rdbSave), so a crash leaves the old file or the new one. Throws Error('ERR') on failure.
   */
  saveFile(): void {
    const { instance, fs, status } = this;
    const started = performance.now();
    const path = this.path();
    const dir = instance.config.get('dir');
    const temp = join(dir, `temp-${process.pid}.rdb`);
    try {
      const data = saveRdb(instance);
      fs.unlink(temp); // openAppend does not truncate: start from an empty file
      const fd = fs.openAppend(temp);
      try {
        for (let written = 0; written < data.length; ) written += fs.write(fd, data, written, data.length - written);
        fs.fsyncSync(fd);
      } finally {
        fs.close(fd);
      }
      fs.rename(temp, path);
      fs.fsyncDir(dir);
    } catch (err) {
      status.lastSaveOk = false;
      instance.logger.error(`sluice: failed saving the DB to ${path}: ${(err as Error).message}`);
      throw new Error(Errors.bare);
    }
    status.saves++;
    status.lastSaveOk = true;
    status.lastSaveSeconds = Math.round((performance.now() - started) / 1000);
    instance.dirty = 0;
    instance.lastSaveTime = Math.floor(Date.now() / 1000);
    instance.logger.info(`sluice: DB saved on disk (${path})`);
  }

  /** At start without the AOF: loads DIR/dbfilename when it exists; false when there is none. */
  loadAtStart(): boolean {
    const { instance, status } = this;
    const path = this.path();
    if (!this.fs.exists(path)) return false;
    const started = performance.now();
    instance.keyspace.loading = true;
    try {
      const result = loadRdb(this.fs.readFile(path), instance, undefined, (db, key) => this.expiredAtLoad.push({ db, key }));
      status.lastLoadKeysLoaded = result.keysLoaded;
      status.lastLoadKeysExpired = result.keysExpired;
      this.loadedReplication = replicationInfoOf(result.aux);
      const sec = ((performance.now() - started) / 1000).toFixed(3);
      instance.logger.info(`sluice: DB loaded from disk: ${sec} seconds (${result.keysLoaded} keys, ${result.keysExpired} expired)`);
    } catch (err) {
      if (err instanceof RdbFormatError) throw new Error(`Fatal error loading the DB (${path}): ${err.message}`);
      throw err;
    } finally {
      instance.keyspace.loading = false;
    }
    return true;
  }
}
