// The instance's whole dataset as an RDB file and back: what SAVE/BGSAVE write (dump.rdb in
// `dir`), what a start without the AOF loads, and the entry points for anything else that
// wants a snapshot (DEBUG RELOAD). The format itself lives in src/rdb/.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Keyspace } from '../engine/keyspace.js';
import { RdbFormatError } from '../rdb/constants.js';
import { loadRdb as loadRdbInto, type RdbLoadResult, saveRdb as saveRdbOf } from '../rdb/rdb-file.js';
import { REDIS_VERSION } from './core/identity.js';
import type { Instance } from './core/instance.js';
import { Errors } from '../resp/errors.js';
import { usedMemory } from './used-memory.js';

/** What INFO persistence reports about RDB saves and loads. */
export interface RdbStatus {
  saves: number;
  lastSaveOk: boolean;
  lastSaveSeconds: number;
  lastLoadKeysLoaded: number;
  lastLoadKeysExpired: number;
}

const statuses = new WeakMap<Instance, RdbStatus>();
/** Instances started with a data directory and no AOF: SAVE/BGSAVE write DIR/dbfilename. */
const withRdbFile = new WeakSet<Instance>();

/** Called by serve() for `--dir` without the AOF. */
export function enableRdbFile(instance: Instance): void {
  withRdbFile.add(instance);
}

export function rdbFileEnabled(instance: Instance): boolean {
  return withRdbFile.has(instance);
}

export function rdbStatus(instance: Instance): RdbStatus {
  let s = statuses.get(instance);
  if (s === undefined) {
    s = { saves: 0, lastSaveOk: true, lastSaveSeconds: -1, lastLoadKeysLoaded: 0, lastLoadKeysExpired: 0 };
    statuses.set(instance, s);
  }
  return s;
}

/** The dataset as an RDB file (version 10, as Redis 7.0 writes). */
export function saveRdb(instance: Instance, options: { aofBase?: boolean } = {}): Buffer {
  return saveRdbOf(instance.keyspace, {
    version: REDIS_VERSION,
    now: Date.now(),
    usedMemory: usedMemory(instance).total,
    aofBase: options.aofBase ?? false,
  });
}

/**
 * Replaces the dataset with an RDB file's. The file is decoded aside first, so a bad file
 * (RdbFormatError) leaves the instance untouched; WATCHers and blocked clients of every key
 * that changed are told.
 */
export function loadRdb(buffer: Buffer, instance: Instance): RdbLoadResult {
  const fresh = new Keyspace(instance.keyspace.now, instance.keyspace.memoryModel);
  const result = loadRdbInto(buffer, fresh, {
    now: instance.keyspace.now(),
    warn: (m) => instance.logger.warn(m),
  });
  for (const db of instance.keyspace.dbs) {
    const incoming = fresh.db(db.index);
    if (db.size === 0 && incoming.size === 0) continue;
    const touched = new Set([...db.values.keys(), ...incoming.values.keys()]);
    db.swapContents(incoming);
    for (const key of touched) instance.keyspace.signalModified(db.index, key);
  }
  const status = rdbStatus(instance);
  status.lastLoadKeysLoaded = result.keysLoaded;
  status.lastLoadKeysExpired = result.keysExpired;
  return result;
}

function rdbPath(instance: Instance): string {
  return join(instance.config.get('dir'), instance.config.get('dbfilename'));
}

/**
 * SAVE: writes the dataset to DIR/dbfilename through a temp file, fsync and rename (as
 * rdbSave), so a crash leaves the old file or the new one. Throws Error('ERR ...') on failure.
 */
export function saveRdbFile(instance: Instance): void {
  const started = performance.now();
  const status = rdbStatus(instance);
  const path = rdbPath(instance);
  const temp = join(instance.config.get('dir'), `temp-${process.pid}.rdb`);
  try {
    const data = saveRdb(instance);
    const fd = openSync(temp, 'w');
    try {
      writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
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
export function loadRdbFileAtStart(instance: Instance): boolean {
  const path = rdbPath(instance);
  if (!existsSync(path)) return false;
  const started = performance.now();
  instance.keyspace.loading = true;
  try {
    const result = loadRdb(readFileSync(path), instance);
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
