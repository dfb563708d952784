// The AOF loader's direct path for the record that makes up most logs: a plain
// `XADD key <ms>-<seq> field value ...` (what XADD propagates when it had no options) whose id
// is above the stream's last id. It appends straight into the engine, skipping the dispatcher,
// the options parser and the argv copy, with the effects a replayed XADD has (dirty counter,
// modified-key signal, commandstats). Anything else (options, another id form, a key of another
// type, an id not above the top) returns false and goes through Instance.execute, which
// produces the exact reply or error.
import type { Instance } from '../commands/instance.js';
import { keyOf } from '../engine/keyspace.js';
import { type NodeLimits, Stream } from '../engine/stream.js';
import { compareIds, idsEqual, isZeroId, MAX_ID, type StreamId, tryParseStreamId } from '../engine/stream-id.js';

const XADD = Buffer.from('xadd');

/** argv[0] equals `lower` ignoring ASCII case. */
export function nameIs(name: Buffer, lower: Buffer): boolean {
  if (name.length !== lower.length) return false;
  for (let i = 0; i < lower.length; i++) if ((name[i]! | 0x20) !== lower[i]) return false;
  return true;
}

/** A canonical decimal of 1-15 digits in b[from, to), else -1. */
function smallDecimal(b: Buffer, from: number, to: number): number {
  const len = to - from;
  if (len < 1 || len > 15 || (b[from] === 0x30 && len > 1)) return -1;
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = b[i]! - 0x30;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/**
 * The id of "<ms>-<seq>" written as XADD logs it (canonical, each part below 10^15), without
 * the string round trip of the general parser; undefined for any other form (which then goes
 * through tryParseStreamId).
 */
function plainId(b: Buffer): StreamId | undefined {
  const dash = b.indexOf(0x2d);
  if (dash < 0) return undefined;
  const ms = smallDecimal(b, 0, dash);
  const seq = ms < 0 ? -1 : smallDecimal(b, dash + 1, b.length);
  return seq < 0 ? undefined : { ms: BigInt(ms), seq: BigInt(seq) };
}

export class XaddReplayer {
  private readonly limits: NodeLimits;
  private readonly stats;
  /** The last stream appended to (consecutive XADDs mostly hit one key): its db, name and value. */
  private lastDb = -1;
  private lastKeyBytes: Buffer | null = null;
  private lastKey = '';
  private lastStream: Stream | null = null;

  constructor(private readonly instance: Instance) {
    const config = instance.config;
    this.limits = {
      maxBytes: config.getNumber('stream-node-max-bytes'),
      maxEntries: config.getNumber('stream-node-max-entries'),
    };
    this.stats = instance.stats;
  }

  /** Any other command may have changed the keyspace: forget the cached stream. */
  forget(): void {
    this.lastDb = -1;
    this.lastKeyBytes = null;
    this.lastStream = null;
  }

  /** Applies `argv` in `db` if it is a plain XADD that succeeds; false to take the normal path. */
  tryApply(db: number, argv: Buffer[]): boolean {
    const argc = argv.length;
    if (argc < 5 || argc % 2 === 0 || !nameIs(argv[0]!, XADD)) return false;
    const idArg = argv[2]!;
    // An option keyword starts with a letter; "*" and "<ms>-*" are not what XADD logs.
    const first = idArg[0]!;
    if (first < 0x30 || first > 0x39) return false;
    let id = plainId(idArg);
    if (id === undefined) {
      const parsed = tryParseStreamId(idArg, { strict: true });
      if (parsed === undefined || !parsed.seqGiven) return false;
      id = parsed.id;
    }
    if (isZeroId(id)) return false;
    const database = this.instance.keyspace.db(db);
    const keyArg = argv[1]!;
    const cached = db === this.lastDb && this.lastKeyBytes !== null && keyArg.equals(this.lastKeyBytes);
    const key = cached ? this.lastKey : keyOf(keyArg);
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
    // The node copies what it keeps, so argv may be views into the file's bytes.
    s.append(id, argv.slice(3), this.limits);
    if (value === undefined) database.set(key, s);
    if (!cached) {
      this.lastDb = db;
      this.lastKeyBytes = Buffer.from(keyArg);
      this.lastKey = key;
      this.lastStream = s;
    }
    this.instance.dirty++;
    this.instance.keyspace.signalModified(db, key);
    this.stats.forCommand('xadd').calls++;
    this.stats.commandsProcessed++;
    return true;
  }
}
