// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN] (lcsCommand, t_string.c of Redis 7.0):
// the longest common subsequence of two strings by the dynamic-programming table Redis builds,
// walked back the same way, so that the string and the match ranges (IDX, last match first) are
// byte for byte Redis's. A missing key is an empty string.
import { keyOf } from '../engine/keyspace.js';
import { fail, MapReply, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, lower } from './args.js';
import { command, type CommandSpec, type Context } from './types.js';

const UINT32_MAX = 0xffffffff;

function stringOrEmpty(ctx: Context, key: Buffer): Buffer | undefined {
  const value = ctx.db.get(keyOf(key));
  if (value === undefined) return Buffer.alloc(0);
  return Buffer.isBuffer(value) ? value : undefined;
}

function lcs(ctx: Context, argv: Buffer[]): Reply {
  const a = stringOrEmpty(ctx, argv[1]!);
  const b = stringOrEmpty(ctx, argv[2]!);
  if (a === undefined || b === undefined) fail(Errors.lcsNotStrings);
  let getLen = false;
  let getIdx = false;
  let withMatchLen = false;
  let minMatchLen = 0n;
  for (let j = 3; j < argv.length; j++) {
    const opt = lower(argv[j]!);
    const more = argv.length - 1 - j;
    if (opt === 'idx') getIdx = true;
    else if (opt === 'len') getLen = true;
    else if (opt === 'withmatchlen') withMatchLen = true;
    else if (opt === 'minmatchlen' && more > 0) {
      minMatchLen = int64Arg(argv[++j]!);
      if (minMatchLen < 0n) minMatchLen = 0n;
    } else fail(Errors.syntax);
  }
  if (getLen && getIdx) fail(Errors.lcsLenAndIdx);
  if (a.length >= UINT32_MAX - 1 || b.length >= UINT32_MAX - 1) fail(Errors.lcsTooLong);
  const alen = a.length;
  const blen = b.length;
  const width = blen + 1;
  const cells = (alen + 1) * width;
  if (cells * 4 > ctx.instance.config.getNumber('proto-max-bulk-len')) {
    fail(Errors.lcsOverBulkLen);
  }
  let table: Uint32Array;
  try {
    table = new Uint32Array(cells);
  } catch {
    fail(Errors.lcsAllocation);
  }
  for (let i = 1; i <= alen; i++) {
    const row = i * width;
    const up = row - width;
    const ai = a[i - 1];
    for (let j = 1; j <= blen; j++) {
      if (ai === b[j - 1]) table[row + j] = table[up + j - 1]! + 1;
      else {
        const l1 = table[up + j]!;
        const l2 = table[row + j - 1]!;
        table[row + j] = l1 > l2 ? l1 : l2;
      }
    }
  }
  const length = table[alen * width + blen]!;
  if (getLen) return length;

  // Walk back from the end: the string right to left, and each contiguous run of matches as a range.
  const result = Buffer.alloc(length);
  const matches: Reply[] = [];
  let idx = length;
  let aStart = alen; // alen: no range open
  let aEnd = 0;
  let bStart = 0;
  let bEnd = 0;
  let i = alen;
  let j = blen;
  while (i > 0 && j > 0) {
    let emit = false;
    if (a[i - 1] === b[j - 1]) {
      result[idx - 1] = a[i - 1]!;
      if (aStart === alen) {
        aStart = aEnd = i - 1;
        bStart = bEnd = j - 1;
      } else if (aStart === i && bStart === j) {
        aStart--;
        bStart--;
      } else emit = true;
      if (aStart === 0 || bStart === 0) emit = true;
      idx--;
      i--;
      j--;
    } else {
      if (table[(i - 1) * width + j]! > table[i * width + j - 1]!) i--;
      else j--;
      if (aStart !== alen) emit = true;
    }
    if (emit) {
      const matchLen = aEnd - aStart + 1;
      if (getIdx && (minMatchLen === 0n || BigInt(matchLen) >= minMatchLen)) {
        const range: Reply[] = [[aStart, aEnd], [bStart, bEnd]];
        if (withMatchLen) range.push(matchLen);
        matches.push(range);
      }
      aStart = alen;
    }
  }
  if (getIdx) return new MapReply([[Buffer.from('matches'), matches], [Buffer.from('len'), length]]);
  return result;
}

export const commands: CommandSpec[] = [
  command('lcs', -3, ['readonly'], { first: 1, last: 2, step: 1 }, lcs, { categories: ['read', 'string', 'slow'] }),
];
