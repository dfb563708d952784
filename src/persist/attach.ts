// Wires the append-only file into an Instance: opens (or creates) DIR/appendonlydir in the
// Redis 7 multi-part layout (see manifest.ts), replays it, then logs every later write.
import { join } from 'node:path';
import type { Instance } from '../commands/core/instance.js';
import { AofPersistence } from './aof.js';
import { lockDir } from './dir-lock.js';
import { nodeFs, type AofFs } from './fs-layer.js';
import { loadFiles } from './loader.js';
import { incrName, manifestName, parseManifest, writeManifest, type Manifest } from './manifest.js';
import type { FsyncPolicy } from './writer.js';

export interface PersistOptions {
  dir: string;
  appendfsync: FsyncPolicy;
  /** The file layer; tests inject one that fails (ENOSPC, EIO). */
  fs?: AofFs;
  /** Who holds the directory's lock, as the error of a second opener names it. */
  owner?: string;
}

/** Loads the append-only file in `dir` into the instance and logs every later write to it. */
export async function attachPersistence(
  instance: Instance,
  options: PersistOptions,
  onClose: (fn: () => Promise<void>) => void,
): Promise<AofPersistence> {
  const { persistence, stop } = await loadAof(instance, options);
  onClose(async () => stop());
  return persistence;
}

/** A running AOF and what turns it off (flush, close, unlock), synchronously. */
export interface RunningAof {
  persistence: AofPersistence;
  stop: () => void;
}

/** At start-up: locks `dir`, replays its AOF into the instance, then logs every later write. */
export async function loadAof(instance: Instance, options: PersistOptions): Promise<RunningAof> {
  // Before anything is read: a second process must not load (or append to) the same files.
  const lock = lockDir(options.dir, options.owner ?? `pid ${process.pid}`, instance.logger);
  try {
    const fs = options.fs ?? nodeFs;
    const { aofDir, prefix, manifest } = prepareAofDir(instance, fs, options);
    const started = performance.now();
    const stats = await loadFiles(instance, fs, aofDir, manifestFiles(manifest));
    if (stats.commands > 0) {
      const sec = ((performance.now() - started) / 1000).toFixed(3);
      instance.logger.info(`sluice: DB loaded from append only file: ${sec} seconds (${stats.commands} commands)`);
    }
    const persistence = install(instance, new AofPersistence(instance, fs, aofDir, prefix, manifest, fsyncPolicy(instance)));
    return { persistence, stop: stopper(instance, persistence, lock) };
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** The files a manifest names, in load order. */
export function manifestFiles(manifest: Manifest): string[] {
  return [...(manifest.base !== null ? [manifest.base.name] : []), ...manifest.incrs.map((f) => f.name)];
}

function stopper(instance: Instance, persistence: AofPersistence, lock: { release(): void }): () => void {
  return () => {
    try {
      detach(instance, persistence);
    } finally {
      lock.release();
    }
  };
}

/**
 * CONFIG SET appendonly yes at run time, as Redis's startAppendOnly: locks the directory and
 * rewrites the current dataset as the new base. Until that rewrite completes, writes go to a temp
 * file the manifest does not name, so a crash meanwhile leaves the directory as it was.
 * Returns what turns it off again (flush, close, unlock).
 */
export function startAofNow(instance: Instance, options: PersistOptions): RunningAof {
  const lock = lockDir(options.dir, options.owner ?? `pid ${process.pid}`, instance.logger);
  try {
    const fs = options.fs ?? nodeFs;
    const { aofDir, prefix, manifest } = prepareAofDir(instance, fs, options);
    const pending = join(aofDir, `temp-${prefix}.enabling.incr.aof`);
    const persistence = new AofPersistence(instance, fs, aofDir, prefix, manifest, fsyncPolicy(instance), pending);
    install(instance, persistence);
    persistence.startRewrite();
    return { persistence, stop: stopper(instance, persistence, lock) };
  } catch (err) {
    instance.config.setRaw('appendonly', 'no');
    lock.release();
    throw err;
  }
}

/** Creates DIR/appendonlydir and its manifest if missing, and sets the config it implies. */
function prepareAofDir(instance: Instance, fs: AofFs, options: PersistOptions): { aofDir: string; prefix: string; manifest: Manifest } {
  const prefix = instance.config.get('appendfilename');
  const aofDir = join(options.dir, instance.config.get('appenddirname'));
  instance.config.setRaw('dir', options.dir);
  instance.config.setRaw('appendonly', 'yes');
  instance.config.setRaw('appendfsync', options.appendfsync);
  fs.mkdir(aofDir);
  // Leftovers of a rewrite or manifest update interrupted by a crash; never referenced.
  for (const name of fs.readdir(aofDir)) if (name.startsWith('temp-')) fs.unlink(join(aofDir, name));

  const manifestPath = join(aofDir, manifestName(prefix));
  let manifest: Manifest;
  if (fs.exists(manifestPath)) {
    manifest = parseManifest(fs.readFile(manifestPath).toString('utf8'), manifestPath);
  } else {
    manifest = { base: null, incrs: [], history: [] };
  }
  if (manifest.incrs.length === 0) {
    const seq = Math.max(manifest.base?.seq ?? 0, 1);
    manifest.incrs.push({ name: incrName(prefix, seq), seq, type: 'i' });
    fs.close(fs.openAppend(join(aofDir, manifest.incrs[0]!.name)));
    writeManifest(fs, aofDir, prefix, manifest);
  }
  return { aofDir, prefix, manifest };
}

function fsyncPolicy(instance: Instance): () => FsyncPolicy {
  return () => {
    const v = instance.config.get('appendfsync');
    return v === 'always' || v === 'no' ? v : 'everysec';
  };
}

/** Makes `persistence` the instance's log and INFO persistence's source. */
function install(instance: Instance, persistence: AofPersistence): AofPersistence {
  const withoutAof = instance.info.lines('persistence');
  instance.persistence = persistence;
  instance.info.register('persistence', () =>
    instance.persistence === persistence || withoutAof === undefined ? persistenceInfo(instance, persistence) : withoutAof(),
  );
  return persistence;
}

/** Flushes and closes the log; the instance runs without an AOF afterwards. */
function detach(instance: Instance, persistence: AofPersistence): void {
  persistence.close();
  if (instance.persistence === persistence) {
    instance.persistence = null;
    instance.config.setRaw('appendonly', 'no');
  }
}

/** INFO persistence, field for field as Redis 7.0 (RDB fields describe SAVE/BGSAVE, which rewrite the AOF). */
function persistenceInfo(instance: Instance, p: AofPersistence): string[] {
  const saving = p.saving ? 1 : 0;
  const [keysDone, keysTotal] = p.rewriteProgress;
  const lines: Array<[string, string | number]> = [
    ['loading', instance.keyspace.loading ? 1 : 0],
    ['async_loading', 0],
    ['current_cow_peak', 0],
    ['current_cow_size', 0],
    ['current_cow_size_age', 0],
    ['current_fork_perc', '0.00'],
    ['current_save_keys_processed', keysDone],
    ['current_save_keys_total', keysTotal],
    ['rdb_changes_since_last_save', instance.dirty],
    ['rdb_bgsave_in_progress', saving],
    ['rdb_last_save_time', instance.lastSaveTime],
    ['rdb_last_bgsave_status', p.lastRewriteOk ? 'ok' : 'err'],
    ['rdb_last_bgsave_time_sec', -1],
    ['rdb_current_bgsave_time_sec', -1],
    ['rdb_saves', 0],
    ['rdb_last_cow_size', 0],
    ['rdb_last_load_keys_expired', 0],
    ['rdb_last_load_keys_loaded', 0],
    ...p.infoFields().slice(0, 9),
    ['aof_last_cow_size', 0],
    ['module_fork_in_progress', 0],
    ['module_fork_last_cow_size', 0],
    ...p.infoFields().slice(9),
    ['aof_pending_bio_fsync', 0],
    ['aof_delayed_fsync', 0],
  ];
  return lines.map(([k, v]) => `${k}:${v}`);
}
