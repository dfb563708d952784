// The AOF loader's direct path for the record that makes up most logs: a plain
// `XADD key <ms>-<seq> field value ...` (what XADD propagates when it had no options) whose id
// is above the stream's last id. It appends straight into the engine from the file's bytes,
// skipping the dispatcher, the options parser and any Buffer per argument, with the effects a
// replayed XADD has (dirty counter, modified-key signal, commandstats). Anything else (options,
// another id form, a key of another type, an id not above the top) returns false and goes
// through Instance.execute, which produces the exact reply or error.
import type { Instance } from '../commands/core/instance.js';
import type { AofRecord } from './aof-reader.js';
import { EntryFields } from '../engine/entry-fields.js';
import { type NodeLimits, Stream } from '../engine/stream.js';
import { compareIds, idsEqual, isZeroId, MAX_ID, tryParseDigitsIdAt } from '../engine/stream-id.js';

const XADD = Buffer.from('xadd');

/** data[from, from + len) equals `lower` (a command name) ignoring ASCII case. */
export function nameAt(data: Buffer, from: number, len: number, lower: Buffer): boolean {
  if (len !== lower.length) return false;
  for (let i = 0; i < len; i++) if ((data[from + i]! | 0x20) !== lower[i]) return false;
  return true;
}

/** data[from, from + expected.length) equals `expected` (a key: short, so a JS loop beats Buffer.compare's call). */
function sameBytes(data: Buffer, from: number, expected: Buffer): boolean {
  const n = expected.length;
  for (let i = 0; i < n; i++) if (data[from + i] !== expected[i]) return false;
  return true;
}

export class XaddReplayer {
  private readonly limits: NodeLimits;
  private readonly stats;
  /** XADD's commandstats counters (zeroed in place by CONFIG RESETSTAT, so safe to keep). */
  private readonly xaddStats;
  /** The last stream appended to (consecutive XADDs mostly hit one key): its db, name and value. */
  private lastDb = -1;
  private lastKeyBytes: Buffer | null = null;
  private lastKey = '';
  private lastStream: Stream | null = null;
  /** The record's fields and values, as ranges of the file's bytes. */
  private readonly entry = new EntryFields();

  constructor(private readonly instance: Instance) {
    const config = instance.config;
    this.limits = {
      maxBytes: config.getNumber('stream-node-max-bytes'),
      maxEntries: config.getNumber('stream-node-max-entries'),
    };
    this.stats = instance.stats;
    this.xaddStats = instance.stats.forCommand('xadd');
  }

  /** Any other command may have changed the keyspace: forget the cached stream. */
  forget(): void {
    this.lastDb = -1;
    this.lastKeyBytes = null;
    this.lastStream = null;
  }

  /** Applies the record in `db` if it is a plain XADD that succeeds; false to take the normal path. */
  tryApply(db: number, data: Buffer, rec: AofRecord): boolean {
    const { starts, lengths } = rec;
    const argc = rec.count;
    if (argc < 5 || argc % 2 === 0 || !nameAt(data, starts[0]!, lengths[0]!, XADD)) return false;
    const idFrom = starts[2]!;
    const idTo = idFrom + lengths[2]!;
    // An option keyword starts with a letter; "*" and "<ms>-*" are not what XADD logs.
    const first = data[idFrom]!;
    if (idTo === idFrom || first < 0x30 || first > 0x39) return false;
    // "<ms>-<seq>" of plain digits, read in place; any other form takes the normal path.
    const parsed = tryParseDigitsIdAt(data, idFrom, idTo);
    if (parsed === undefined) return false;
    const id = parsed.id;
    if (isZeroId(id)) return false;
    const database = this.instance.keyspace.db(db);
    const keyFrom = starts[1]!;
    const keyTo = keyFrom + lengths[1]!;
    const last = this.lastKeyBytes;
    const cached = db === this.lastDb && last !== null && last.length === keyTo - keyFrom && sameBytes(data, keyFrom, last);
    const key = cached ? this.lastKey : data.toString('latin1', keyFrom, keyTo);
    const value = cached ? this.lastStream! : database.get(key);
    let s: Stream;
    if (value === undefined) {
      s = new Stream();
    } else if (value instanceof Stream) {
      s = value;
      if (idsEqual(s.lastId, MAX_ID) || compareIds(id, s.lastId) <= 0) return false;
    } else {
      return false;
    }
    // The node copies what it keeps: the fields may stay in the file's bytes.
    const entry = this.entry;
    entry.clear();
    for (let i = 3; i < argc; i++) entry.push(data, starts[i]!, starts[i]! + lengths[i]!);
    s.appendFields(id, entry, this.limits);
    entry.clear();
    if (value === undefined) database.set(key, s);
    else if (cached) database.changed(s);
    if (!cached) {
      this.lastDb = db;
      this.lastKeyBytes = Buffer.from(data.subarray(keyFrom, keyTo));
      this.lastKey = key;
      this.lastStream = s;
    }
    this.instance.dirty++;
    this.instance.keyspace.signalModified(db, key);
    this.xaddStats.calls++;
    this.stats.commandsProcessed++;
    return true;
  }
}
