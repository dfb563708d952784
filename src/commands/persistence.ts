// SAVE, BGSAVE, BGREWRITEAOF, LASTSAVE. With a data directory and no AOF (`sluice server
// --dir D --appendonly no`, or after CONFIG SET appendonly no), SAVE and BGSAVE write the RDB file DIR/dbfilename (persist/rdb-snapshot.ts through core/persistence.ts's SnapshotControl; BGSAVE saves synchronously and replies as Redis's fork
// does). With the AOF on, the AOF is what a restart loads, so they map onto an AOF rewrite (a
// compacted snapshot) and reply as Redis does. The AOF is reached through the Persistence
// interface (core/persistence.ts; src/persist/aof.ts implements it), so this layer does not
// import the persistence layer.
import { OK, SimpleString, fail, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { lower } from './args.js';
import type { InstanceView } from './types.js';
import type { Persistence, SnapshotControl } from './core/persistence.js';
import { command, type CommandSpec, type Context } from './types.js';

function control(instance: InstanceView): Persistence {
  if (instance.persistence === null) fail(Errors.noPersistence);
  return instance.persistence;
}

function bgrewriteaof(ctx: Context): Reply {
  const p = control(ctx.instance);
  if (p.rewriting) fail(Errors.rewriteInProgress);
  p.startRewrite();
  return new SimpleString('Background append only file rewriting started');
}

function bgsave(ctx: Context, argv: Buffer[]): Reply {
  let schedule = false;
  if (argv.length > 2) fail(Errors.syntax);
  if (argv.length === 2) {
    if (lower(argv[1]!) !== 'schedule') fail(Errors.syntax);
    schedule = true;
  }
  if (ctx.instance.persistence === null && ctx.instance.snapshots !== null) {
    rdbSave(ctx.instance.snapshots);
    return new SimpleString('Background saving started');
  }
  const p = control(ctx.instance);
  if (p.saving) fail(Errors.saveInProgress);
  if (p.rewriting) {
    if (!schedule) {
      fail(Errors.bgsaveDuringRewrite);
    }
    p.schedule();
    p.waitForSave().catch(() => undefined);
    return new SimpleString('Background saving scheduled');
  }
  // Register before starting so completion counts as a save (LASTSAVE, dirty reset).
  p.waitForSave().catch(() => undefined);
  p.startRewrite();
  return new SimpleString('Background saving started');
}

function rdbSave(snapshots: SnapshotControl): void {
  try {
    snapshots.saveFile();
  } catch {
    fail(Errors.bare);
  }
}

function save(ctx: Context): Reply {
  if (ctx.instance.persistence === null && ctx.instance.snapshots !== null) {
    rdbSave(ctx.instance.snapshots);
    return OK;
  }
  const p = control(ctx.instance);
  if (p.rewriting) fail(Errors.saveInProgress);
  try {
    p.rewriteNow();
  } catch (err) {
    fail((err as Error).message.startsWith('ERR') ? (err as Error).message : `ERR ${(err as Error).message}`);
  }
  ctx.instance.dirty = 0;
  ctx.instance.lastSaveTime = Math.floor(Date.now() / 1000);
  return new SimpleString('OK');
}

const admin = ['admin', 'slow', 'dangerous'];

export const commands: CommandSpec[] = [
  command('save', 1, ['admin', 'noscript', 'no_multi'], null, save, {
    categories: admin,
    summary: 'Synchronously saves the database(s) to disk',
    since: '1.0.0',
    group: 'server',
  }),
  command('bgsave', -1, ['admin', 'noscript'], null, bgsave, {
    categories: admin,
    summary: 'Asynchronously saves the database(s) to disk',
    since: '1.0.0',
    group: 'server',
  }),
  command('bgrewriteaof', 1, ['admin', 'noscript'], null, bgrewriteaof, {
    categories: admin,
    summary: 'Asynchronously rewrites the append-only file to disk',
    since: '1.0.0',
    group: 'server',
  }),
  command('lastsave', 1, ['loading', 'stale', 'fast'], null, (ctx) => ctx.instance.lastSaveTime, {
    categories: ['admin', 'fast', 'dangerous'],
    summary: 'Returns the Unix timestamp of the last successful save to disk',
    since: '1.0.0',
    group: 'server',
  }),
];
