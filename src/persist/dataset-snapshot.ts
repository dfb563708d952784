// The whole dataset as an in-memory image, and loading one back (DEBUG RELOAD). Today's image is
// the AOF rewrite's serialisation (serialize.ts: per key, the commands that recreate it, streams
// with their groups, PELs and last ids), replayed through the command table, and the function
// libraries' codes, created before the keys as an RDB file's are. The DatasetSerializer
// interface is what an RDB codec would implement to replace it.
import type { Instance } from '../commands/core/instance.js';
import { librariesOf } from '../commands/lua/function-libraries.js';
import { RdbFormatError } from '../rdb/constants.js';
import { ErrorReply } from '../resp/reply.js';
import { createLibraries } from './rdb-snapshot.js';
import { serializeKey, type Argv } from './serialize.js';

export interface DatasetSerializer<Image> {
  /** Every database's keys, values and expiry times, detached from the live objects. */
  save(instance: Instance): Image;
  /**
   * Loads an image into the keyspace. A key that already exists is replaced when `replace`
   * is set, else the load stops with an error (Redis's RELOAD NOFLUSH without MERGE).
   */
  load(instance: Instance, image: Image, options: { replace: boolean }): void;
}

export class DatasetLoadError extends Error {}

interface KeyImage {
  db: number;
  key: string;
  commands: Argv[];
}

export interface CommandImage {
  keys: KeyImage[];
  /** Each function library's code. */
  functions: Buffer[];
}

function toBuffer(arg: Buffer | string): Buffer {
  return typeof arg === 'string' ? Buffer.from(arg) : arg;
}

export const commandSerializer: DatasetSerializer<CommandImage> = {
  save(instance) {
    const image: CommandImage = { keys: [], functions: librariesOf(instance).codes().map((code) => Buffer.from(code)) };
    for (const db of instance.keyspace.dbs) {
      for (const [key, value] of db.values) {
        const commands: Argv[] = [];
        serializeKey(key, value, db.expires.get(key), commands);
        // Copied: a later write must not change the image through a shared Buffer.
        image.keys.push({ db: db.index, key, commands: commands.map((argv) => argv.map((a) => Buffer.from(toBuffer(a)))) });
      }
    }
    return image;
  },

  load(instance, image, { replace }) {
    // Libraries first, as an RDB file holds them; a library of the same name is replaced only
    // with `replace` (rdbFunctionLoad under RDBFLAGS_ALLOW_DUP).
    try {
      createLibraries(librariesOf(instance), image.functions, replace);
    } catch (err) {
      if (err instanceof RdbFormatError) throw new DatasetLoadError(err.message);
      throw err;
    }
    // Replayed as the AOF is: an 'aof' client never blocks, and nothing reaches the log.
    const client = instance.newClient('aof');
    client.authenticated = true;
    const persistence = instance.persistence;
    instance.persistence = null;
    instance.keyspace.loading = true;
    try {
      for (const { db, key, commands } of image.keys) {
        const target = instance.keyspace.db(db);
        if (target.values.has(key)) {
          if (!replace) throw new DatasetLoadError(`duplicated key '${key}' in database ${db}`);
          target.delete(key);
        }
        client.db = db;
        for (const argv of commands) {
          const reply = instance.execute(client, argv.map(toBuffer));
          if (reply instanceof ErrorReply) throw new DatasetLoadError(`'${String(argv[0])}' of key '${key}' failed: ${reply.message}`);
          if (reply instanceof Promise) throw new DatasetLoadError(`'${String(argv[0])}' of key '${key}' blocked`);
        }
      }
    } finally {
      instance.keyspace.loading = false;
      instance.persistence = persistence;
      instance.removeClient(client);
    }
  },
};

/**
 * Empties every database and drops the function libraries, as Redis's emptyData (without
 * EMPTYDB_NOFUNCTIONS) before a reload: WATCHes are touched, blocked clients told.
 */
export function emptyDataset(instance: Instance): void {
  instance.touchAllWatched(null);
  for (const db of instance.keyspace.dbs) db.clear();
  instance.blocked.dbFlushed(null);
  librariesOf(instance).flush();
}
