// Replays the AOF files named by the manifest through the command table (a base file that is
// an RDB file, as Redis 7 writes with aof-use-rdb-preamble yes, is decoded by src/rdb/ first) (a client of kind
// 'aof', so handlers never block and nothing is propagated while loading). A torn last record
// of the last file (a crash mid-write) is cut off with a warning; a MULTI without its EXEC at
// the end is cut off too (as Redis reverts an incomplete transaction). Anything malformed
// elsewhere refuses to start, naming the file and byte offset. A well-formed command that fails
// (a bad stream id, say) is logged and skipped under `propagation-error-behavior ignore` (Redis's
// default) and refuses to start under `panic`, as Redis 7 does.
import { join } from 'node:path';
import type { Instance } from '../commands/instance.js';
import { ErrorReply } from '../resp/reply.js';
import { RdbFormatError } from '../rdb/constants.js';
import { isRdb, loadRdb } from '../rdb/rdb-file.js';
import { AofFormatError, AofReader, recordArgv } from './aof-reader.js';
import type { AofFs } from './fs-layer.js';

export class AofLoadError extends Error {}

export interface LoadStats {
  commands: number;
  errors: number;
  /** Set when a torn tail was cut off. */
  truncated: { file: string; offset: number; size: number } | null;
}

const MAX_ERROR_WARNINGS = 5;

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
  const whole = fs.readFile(path);
  // An RDB preamble (Redis 7's default base, aof-use-rdb-preamble yes): the RDB part loads
  // first, expired keys included, and any commands after it (a pre-7 single-file AOF) follow.
  let skip = 0;
  if (isRdb(whole)) {
    try {
      const result = loadRdb(whole, instance.keyspace, {
        now: instance.keyspace.now(),
        aofPreamble: true,
        warn: (m) => instance.logger.warn(m),
      });
      skip = result.end;
      instance.logger.info(`sluice: loaded the RDB preamble of ${name} (${result.keysLoaded} keys)`);
    } catch (err) {
      if (err instanceof RdbFormatError) throw new AofLoadError(`Bad RDB preamble in the append only file ${name}: ${err.message}`);
      throw err;
    }
  }
  const data = skip > 0 ? whole.subarray(skip) : whole;
  const reader = new AofReader(data);
  let multi: Array<{ db: number; argv: Buffer[] }> | null = null;
  let multiOffset = 0;
  const bad = (offset: number, reason: string) =>
    new AofLoadError(
      `Bad file format reading the append only file ${name} at byte offset ${offset + skip}: ${reason}. ` +
        `Refusing to start; make a backup of the file and repair or truncate it at that offset.`,
    );
  const run = async (argv: Buffer[], offset: number) => {
    let reply = instance.execute(client, argv);
    if (reply instanceof Promise) reply = await reply;
    stats.commands++;
    if (reply instanceof ErrorReply) {
      if (reply.message.startsWith('ERR unknown command')) {
        throw new AofLoadError(`Unknown command '${argv[0]!.toString('utf8')}' reading the append only file ${name} at byte offset ${offset + skip}`);
      }
      const cmd = lowerName(argv[0]!);
      const text = reply.message.startsWith('ERR ') ? reply.message.slice(4) : reply.message;
      if (instance.config.get('propagation-error-behavior') === 'panic') {
        throw new AofLoadError(
          `This server panicked sending an error to its AOF-loading-client after processing the command '${cmd}': ` +
            `'${text}' (append only file ${name}, byte offset ${offset + skip}). propagation-error-behavior is panic; ` +
            `with ignore (the default) the command is skipped and loading goes on.`,
        );
      }
      if (stats.errors++ < MAX_ERROR_WARNINGS) {
        instance.logger.error(
          `sluice: == CRITICAL == This server is sending an error to its AOF-loading-client: '${text}' after processing the command '${cmd}' ` +
            `(${name} byte offset ${offset + skip}; skipped)`,
        );
      }
    }
  };
  for (;;) {
    let record;
    try {
      record = reader.next();
    } catch (err) {
      if (err instanceof AofFormatError) throw bad(err.offset, err.reason);
      throw err;
    }
    if (record === null || record === 'torn') {
      const torn = record === 'torn';
      if (!torn && multi === null) return;
      const cut = multi !== null ? multiOffset : reader.offset;
      if (!isLast) throw bad(cut, torn ? 'unexpected end of file' : 'MULTI without EXEC');
      instance.logger.warn(
        `sluice: !!! Warning: ${torn ? 'short read' : 'incomplete MULTI/EXEC transaction'} while loading the AOF file ${name}; ` +
          `truncating it from ${whole.length} to ${cut + skip} bytes (the last write was interrupted) !!!`,
      );
      fs.truncate(path, cut + skip);
      stats.truncated = { file: name, offset: cut + skip, size: whole.length };
      return;
    }
    const argv = recordArgv(data, record);
    const cmd = lowerName(argv[0]!);
    if (cmd === 'select') {
      const db = Number(argv[1]?.toString('latin1'));
      if (argv.length !== 2 || !Number.isInteger(db) || db < 0 || db >= instance.keyspace.dbs.length) {
        throw bad(record.offset, 'invalid SELECT');
      }
      client.db = db;
    } else if (cmd === 'multi') {
      if (multi !== null) throw bad(record.offset, 'nested MULTI');
      multi = [];
      multiOffset = record.offset;
    } else if (cmd === 'exec') {
      if (multi === null) throw bad(record.offset, 'EXEC without MULTI');
      const queued = multi;
      multi = null;
      const db = client.db;
      for (const q of queued) {
        client.db = q.db;
        await run(q.argv, record.offset);
      }
      client.db = db;
    } else if (multi !== null) {
      multi.push({ db: client.db, argv });
    } else {
      await run(argv, record.offset);
    }
  }
}
