// A strict reader for append-only files: RESP arrays of bulk strings, plus '#' annotation
// lines (Redis 7 writes "#TS:..." lines). It reports exact byte offsets so the loader can tell
// a torn last record (the file ends inside it: a crash mid-write) from corruption (a byte that
// cannot be there), which must refuse to start.

export interface AofRecord {
  /** How many arguments the record has (the command name included). */
  count: number;
  /** Where each argument's bytes start in the data, and how long they are: [0, count). */
  starts: number[];
  lengths: number[];
  /** Byte offset of the record's first byte ('*'). */
  offset: number;
  /** Byte offset just past the record. */
  end: number;
}

/** A byte that cannot appear where it is: the file is corrupt at `offset`. */
export class AofFormatError extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`${reason} at byte offset ${offset}`);
  }
}

/** Thrown internally when the data ends inside a record. */
class Truncated {}
const TRUNCATED = new Truncated();

const CR = 13;
const LF = 10;

export class AofReader {
  private pos = 0;
  /** Where the last number() ended (past its CRLF): a field, not a tuple per argument. */
  private numberEnd = 0;
  /**
   * The record next() returns, refilled by each call: a log of a million XADDs would otherwise
   * leave three million small objects for the collector.
   */
  private readonly record: AofRecord = { count: 0, starts: [], lengths: [], offset: 0, end: 0 };

  constructor(private readonly data: Buffer) {}

  /** Offset of the next unread byte. */
  get offset(): number {
    return this.pos;
  }

  /**
   * The next record, `null` at a clean end of data, or `'torn'` when the data ends inside a
   * record (then `offset` is where that record starts). Throws AofFormatError on corruption.
   * The record is valid until the next call: copy what is kept (recordArgv).
   */
  next(): AofRecord | 'torn' | null {
    const data = this.data;
    // Skip annotation lines ("#TS:1700000000\r\n").
    while (this.pos < data.length && data[this.pos] === 0x23) {
      const nl = data.indexOf(LF, this.pos);
      if (nl < 0) return 'torn';
      this.pos = nl + 1;
    }
    if (this.pos >= data.length) return null;
    const start = this.pos;
    try {
      let p = start;
      if (data[p] !== 0x2a) throw new AofFormatError(p, "expected '*' at the start of a command");
      p++;
      const argc = this.number(p);
      if (argc < 1) throw new AofFormatError(p, 'command with no arguments');
      p = this.numberEnd;
      const record = this.record;
      const { starts, lengths } = record;
      for (let i = 0; i < argc; i++) {
        if (p >= data.length) throw TRUNCATED;
        if (data[p] !== 0x24) throw new AofFormatError(p, "expected '$' before an argument");
        const len = this.number(p + 1);
        p = this.numberEnd;
        if (p + len + 2 > data.length) throw TRUNCATED;
        starts[i] = p;
        lengths[i] = len;
        p += len;
        if (data[p] !== CR || data[p + 1] !== LF) throw new AofFormatError(p, 'expected CRLF after an argument');
        p += 2;
      }
      this.pos = p;
      record.count = argc;
      record.offset = start;
      record.end = p;
      return record;
    } catch (err) {
      if (err === TRUNCATED) {
        this.pos = start;
        return 'torn';
      }
      throw err;
    }
  }

  /** Parses decimal digits followed by CRLF at `p`; returns the value, sets numberEnd. */
  private number(p: number): number {
    const data = this.data;
    let value = 0;
    let digits = 0;
    for (;;) {
      if (p >= data.length) throw TRUNCATED;
      const c = data[p]!;
      if (c >= 0x30 && c <= 0x39) {
        value = value * 10 + (c - 0x30);
        if (++digits > 12) throw new AofFormatError(p, 'length too long');
        p++;
        continue;
      }
      if (c === CR && digits > 0) {
        if (p + 1 >= data.length) throw TRUNCATED;
        if (data[p + 1] !== LF) throw new AofFormatError(p + 1, 'expected LF after CR');
        this.numberEnd = p + 2;
        return value;
      }
      throw new AofFormatError(p, 'invalid character in a length');
    }
  }
}

/**
 * A record's arguments as Buffers over one private copy of its bytes: one allocation per
 * record, and stored values never pin the whole file in memory.
 */
export function recordArgv(data: Buffer, rec: AofRecord): Buffer[] {
  const copy = Buffer.allocUnsafe(rec.end - rec.offset);
  data.copy(copy, 0, rec.offset, rec.end);
  const argv: Buffer[] = new Array(rec.count);
  for (let i = 0; i < argv.length; i++) {
    const from = rec.starts[i]! - rec.offset;
    argv[i] = copy.subarray(from, from + rec.lengths[i]!);
  }
  return argv;
}

/** A record's arguments as views into `data` (valid only while `data` is). */
export function recordViews(data: Buffer, rec: AofRecord): Buffer[] {
  const argv: Buffer[] = new Array(rec.count);
  for (let i = 0; i < argv.length; i++) argv[i] = data.subarray(rec.starts[i]!, rec.starts[i]! + rec.lengths[i]!);
  return argv;
}
