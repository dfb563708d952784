// Replays the AOF files named by the manifest through the command table (a client of kind
// 'aof', so handlers never block and nothing is propagated while loading); a base file that is
// an RDB file, as Redis 7 writes with aof-use-rdb-preamble yes, is decoded by src/rdb/ first,
// then any commands after it are replayed; plain XADDs, most
// of a stream log, go straight to the engine (replay-xadd.ts). Files are read in windows
// (file-window.ts), not whole. A torn last record
// of the last file (a crash mid-write) is cut off with a warning; a MULTI without its EXEC at
// the end is cut off too (as Redis reverts an incomplete transaction). Anything malformed
// elsewhere refuses to start, naming the file and byte offset. A well-formed command that fails
// (a bad stream id, say) is logged and skipped under `propagation-error-behavior ignore` (Redis's
// default) and refuses to start under `panic`, as Redis 7 does.
import { join } from 'node:path';
import type { Instance } from '../commands/core/instance.js';
import { ErrorReply } from '../resp/reply.js';
import { RdbFormatError } from '../rdb/constants.js';
import { isRdb, loadRdb } from '../rdb/rdb-file.js';
import { librariesOf } from '../commands/lua/function-libraries.js';
import { createLibraries } from './rdb-snapshot.js';
import { AofFormatError, AofReader, recordArgv, recordViews } from './aof-reader.js';
import { FileWindow } from './file-window.js';
import { nameAt, XaddReplayer } from './replay-xadd.js';
import type { AofFs } from './fs-layer.js';

export class AofLoadError extends Error {}

export interface LoadStats {
  commands: number;
  errors: number;
  /** Set when a torn tail was cut off. */
  truncated: { file: string; offset: number; size: number } | null;
}

const MAX_ERROR_WARNINGS = 5;
const SELECT = Buffer.from('select');
const MULTI = Buffer.from('multi');
const EXEC = Buffer.from('exec');

function lowerName(b: Buffer): string {
  return b.toString('latin1').toLowerCase();
}

export async function loadFiles(instance: Instance, fs: AofFs, dir: string, files: string[]): Promise<LoadStats> {
  const stats: LoadStats = { commands: 0, errors: 0, truncated: null };
  const client = instance.newClient('aof');
  instance.keyspace.loading = true;
  try {
    for (let f = 0; f < files.length; f++) {
      const name = files[f]!;
      const path = join(dir, name);
      if (!fs.exists(path)) {
        if (name.includes('.incr.')) continue; // Redis tolerates a missing (empty) incr file
        throw new AofLoadError(`The AOF file ${name} doesn't exist`);
      }
      await loadOne(instance, fs, client, path, name, f === files.length - 1, stats);
    }
  } finally {
    instance.keyspace.loading = false;
    instance.removeClient(client);
  }
  return stats;
}

async function loadOne(
  instance: Instance,
  fs: AofFs,
  client: ReturnType<Instance['newClient']>,
  path: string,
  name: string,
  isLast: boolean,
  stats: LoadStats,
): Promise<void> {
  const win = new FileWindow(fs, path);
  if (isRdb(win.data)) {
    // An RDB preamble (Redis 7's default base): decoded from the whole file, expired keys
    // included; commands after it (a pre-7 single-file AOF) are read on from its end.
    let end: number;
    try {
      const result = loadRdb(fs.readFile(path), instance.keyspace, {
        now: instance.keyspace.now(),
        aofPreamble: true,
        warn: (m) => instance.logger.warn(m),
      });
      createLibraries(librariesOf(instance), result.functions);
      end = result.end;
      instance.logger.info(`sluice: loaded the RDB preamble of ${name} (${result.keysLoaded} keys)`);
    } catch (err) {
      if (err instanceof RdbFormatError) throw new AofLoadError(`Bad RDB preamble in the append only file ${name}: ${err.message}`);
      throw err;
    }
    if (end >= win.size) return;
    win.seek(end);
  }
  const xadds = new XaddReplayer(instance);
  let reader = new AofReader(win.data);
  let multi: Array<{ db: number; argv: Buffer[] }> | null = null;
  let multiOffset = 0;
  const bad = (offset: number, reason: string) =>
    new AofLoadError(
      `Bad file format reading the append only file ${name} at byte offset ${offset}: ${reason}. ` +
        `Refusing to start; make a backup of the file and repair or truncate it at that offset.`,
    );
  const failed = (argv: Buffer[], reply: unknown, offset: number) => {
    if (!(reply instanceof ErrorReply)) return;
    if (reply.message.startsWith('ERR unknown command')) {
      throw new AofLoadError(`Unknown command '${argv[0]!.toString('utf8')}' reading the append only file ${name} at byte offset ${offset}`);
    }
    const cmd = lowerName(argv[0]!);
    const text = reply.message.startsWith('ERR ') ? reply.message.slice(4) : reply.message;
    if (instance.config.get('propagation-error-behavior') === 'panic') {
      throw new AofLoadError(
        `This server panicked sending an error to its AOF-loading-client after processing the command '${cmd}': ` +
          `'${text}' (append only file ${name}, byte offset ${offset}). propagation-error-behavior is panic; ` +
          `with ignore (the default) the command is skipped and loading goes on.`,
      );
    }
    if (stats.errors++ < MAX_ERROR_WARNINGS) {
      instance.logger.error(
        `sluice: == CRITICAL == This server is sending an error to its AOF-loading-client: '${text}' after processing the command '${cmd}' ` +
          `(${name} byte offset ${offset}; skipped)`,
      );
    }
  };
  /** Runs one command; a promise only when its handler returned one (no await per record). */
  const run = (argv: Buffer[], offset: number, views: boolean): Promise<void> | undefined => {
    stats.commands++;
    // Views into the window must not be stored: the slow path gets the record's own copy.
    if (views) argv = argv.map((a) => Buffer.from(a));
    xadds.forget();
    const reply = instance.execute(client, argv);
    if (reply instanceof Promise) return reply.then((r) => failed(argv, r, offset));
    failed(argv, reply, offset);
    return undefined;
  };
  for (;;) {
    let record;
    try {
      record = reader.next();
    } catch (err) {
      if (err instanceof AofFormatError) throw bad(win.base + err.offset, err.reason);
      throw err;
    }
    if ((record === null || record === 'torn') && !win.atEnd) {
      // The window ends here (or inside this record): read on from the first unread record.
      win.advance(win.base + reader.offset);
      reader = new AofReader(win.data);
      continue;
    }
    if (record === null || record === 'torn') {
      const torn = record === 'torn';
      if (!torn && multi === null) return;
      const cut = multi !== null ? multiOffset : win.base + reader.offset;
      if (!isLast) throw bad(cut, torn ? 'unexpected end of file' : 'MULTI without EXEC');
      instance.logger.warn(
        `sluice: !!! Warning: ${torn ? 'short read' : 'incomplete MULTI/EXEC transaction'} while loading the AOF file ${name}; ` +
          `truncating it from ${win.size} to ${cut} bytes (the last write was interrupted) !!!`,
      );
      fs.truncate(path, cut);
      stats.truncated = { file: name, offset: cut, size: win.size };
      return;
    }
    const data = win.data;
    if (multi === null && xadds.tryApply(client.db, data, record)) {
      stats.commands++;
      continue;
    }
    const offset = win.base + record.offset;
    const nameFrom = record.starts[0]!;
    const nameLength = record.lengths[0]!;
    const is = (lower: Buffer) => nameAt(data, nameFrom, nameLength, lower);
    if (is(SELECT)) {
      const argv = recordViews(data, record);
      const db = Number(argv[1]?.toString('latin1'));
      if (argv.length !== 2 || !Number.isInteger(db) || db < 0 || db >= instance.keyspace.dbs.length) {
        throw bad(offset, 'invalid SELECT');
      }
      client.db = db;
    } else if (is(MULTI)) {
      if (multi !== null) throw bad(offset, 'nested MULTI');
      multi = [];
      multiOffset = offset;
    } else if (is(EXEC)) {
      if (multi === null) throw bad(offset, 'EXEC without MULTI');
      const queued = multi;
      multi = null;
      const db = client.db;
      for (const q of queued) {
        client.db = q.db;
        const pending = run(q.argv, offset, false);
        if (pending !== undefined) await pending;
      }
      client.db = db;
    } else if (multi !== null) {
      // Kept past this window: a private copy.
      multi.push({ db: client.db, argv: recordArgv(win.data, record) });
    } else {
      const pending = run(recordViews(data, record), offset, true);
      if (pending !== undefined) await pending;
    }
  }
}
