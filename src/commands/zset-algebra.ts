// ZUNION / ZINTER / ZDIFF, their STORE forms and ZINTERCARD, as zunionInterDiffGenericCommand of
// Redis 7.0 (t_zset.c). Inputs may be sorted sets or sets (a set member scores 1); a missing key
// is empty; any other type is WRONGTYPE, checked for every key in order before the options are
// read. A weighted score that is NaN (inf * 0) counts as 0, and so does a SUM of inf and -inf.
// A STORE form overwrites its destination whatever its type (dropping its TTL), as a listpack
// while the result fits zset-max-listpack-entries/-value, or deletes it when the result is
// empty. The STORE forms are logged as themselves: their result is a function of the data.
import { keyOf } from '../engine/keyspace.js';
import { SetValue } from '../engine/set.js';
import { compareEntries, type ScoreEntry, SortedSetValue } from '../engine/sorted-set.js';
import { fail, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, isKeyword, lower, parseInt64 } from './args.js';
import type { Context } from './types.js';
import { parseScore } from './zset-args.js';
import { entriesReply, storeSortedSet } from './zset-results.js';

type Op = 'union' | 'inter' | 'diff';
type Aggregate = 'sum' | 'min' | 'max';

/** One input: its value (undefined for a missing key) and weight. */
interface Source {
  value: SortedSetValue | SetValue | undefined;
  weight: number;
}

function sourceSize(s: Source): number {
  return s.value?.size ?? 0;
}

/** The input's members with their scores (1 for a set member). */
function* sourceEntries(s: Source): IterableIterator<ScoreEntry> {
  const v = s.value;
  if (v === undefined) return;
  if (v instanceof SortedSetValue) {
    yield* v.entries();
    return;
  }
  for (const member of v.list()) yield { member, score: 1 };
}

function sourceScore(s: Source, member: string): number | undefined {
  const v = s.value;
  if (v === undefined) return undefined;
  if (v instanceof SortedSetValue) return v.score(member);
  return v.has(member) ? 1 : undefined;
}

/** zunionInterAggregate: a SUM that is NaN is 0; MIN/MAX keep the target against a NaN value. */
function aggregate(target: number, value: number, how: Aggregate): number {
  if (how === 'sum') {
    const sum = target + value;
    return Number.isNaN(sum) ? 0 : sum;
  }
  if (how === 'min') return value < target ? value : target;
  return value > target ? value : target;
}

interface Parsed {
  sources: Source[];
  aggregate: Aggregate;
  withScores: boolean;
  limit: number;
}

/**
 * numkeys, the keys (looked up, WRONGTYPE first), then WEIGHTS / AGGREGATE / WITHSCORES / LIMIT
 * as each form allows them; everything else is a syntax error.
 */
function parse(ctx: Context, argv: Buffer[], numkeysAt: number, name: string, op: Op, store: boolean, cardOnly: boolean): Parsed {
  const setnum = int64Arg(argv[numkeysAt]!);
  if (setnum < 1n) fail(Errors.atLeastOneInputKey(name));
  if (setnum > BigInt(argv.length - (numkeysAt + 1))) fail(Errors.syntax);
  const n = Number(setnum);
  const sources: Source[] = [];
  let j = numkeysAt + 1;
  for (let i = 0; i < n; i++, j++) {
    const value = ctx.db.get(keyOf(argv[j]!));
    if (value !== undefined && !(value instanceof SortedSetValue) && !(value instanceof SetValue)) fail(Errors.wrongType);
    sources.push({ value: value as SortedSetValue | SetValue | undefined, weight: 1 });
  }
  let how: Aggregate = 'sum';
  let withScores = false;
  let limit = 0;
  while (j < argv.length) {
    const remaining = argv.length - j;
    if (op !== 'diff' && !cardOnly && remaining >= n + 1 && isKeyword(argv[j], 'weights')) {
      j++;
      for (let i = 0; i < n; i++, j++) {
        const w = parseScore(argv[j]!);
        if (w === undefined) fail(Errors.weightNotFloat);
        sources[i]!.weight = w;
      }
    } else if (op !== 'diff' && !cardOnly && remaining >= 2 && isKeyword(argv[j], 'aggregate')) {
      const a = lower(argv[j + 1]!);
      if (a !== 'sum' && a !== 'min' && a !== 'max') fail(Errors.syntax);
      how = a;
      j += 2;
    } else if (!store && !cardOnly && isKeyword(argv[j], 'withscores')) {
      withScores = true;
      j++;
    } else if (cardOnly && remaining >= 2 && isKeyword(argv[j], 'limit')) {
      // getPositiveLongFromObjectOrReply with its own message, for text as for a negative number.
      const v = parseInt64(argv[j + 1]!);
      if (v === undefined || v < 0n) fail(Errors.sintercardLimitNegative);
      limit = v > BigInt(Number.MAX_SAFE_INTEGER) ? 0 : Number(v);
      j += 2;
    } else {
      fail(Errors.syntax);
    }
  }
  return { sources, aggregate: how, withScores, limit };
}

/**
 * The inputs smallest first, as Redis sorts them before a union or an intersection (a stable
 * sort, as glibc's qsort is for such arrays): the order scores are aggregated in, which shows
 * in a SUM of floats or of inf and -inf.
 */
function bySize(sources: Source[]): Source[] {
  return sources.slice().sort((a, b) => sourceSize(a) - sourceSize(b));
}

/** The members of every input, each scored by the aggregate of its weighted scores. */
function union(sources: Source[], how: Aggregate): Map<string, number> {
  const acc = new Map<string, number>();
  for (const s of bySize(sources)) {
    for (const e of sourceEntries(s)) {
      let score = s.weight * e.score;
      if (Number.isNaN(score)) score = 0;
      const current = acc.get(e.member);
      acc.set(e.member, current === undefined ? score : aggregate(current, score, how));
    }
  }
  return acc;
}

/**
 * The members of the smallest input that every other input holds (the inputs taken smallest
 * first, as Redis sorts them); stops after `limit` members when it is not 0.
 */
function inter(sources: Source[], how: Aggregate, limit = 0): Map<string, number> {
  const out = new Map<string, number>();
  const inputs = bySize(sources);
  const first = inputs[0]!;
  if (sourceSize(first) === 0) return out;
  for (const e of sourceEntries(first)) {
    let score = first.weight * e.score;
    if (Number.isNaN(score)) score = 0;
    let inAll = true;
    for (let j = 1; j < inputs.length; j++) {
      const other = inputs[j]!;
      const value = other.value === first.value ? e.score : sourceScore(other, e.member);
      if (value === undefined) {
        inAll = false;
        break;
      }
      score = aggregate(score, value * other.weight, how);
    }
    if (!inAll) continue;
    out.set(e.member, score);
    if (limit > 0 && out.size >= limit) break;
  }
  return out;
}

/** The first input's members (with their scores) that no other input holds. */
function diff(sources: Source[]): Map<string, number> {
  const out = new Map<string, number>();
  const first = sources[0]!;
  // A later key naming the first set again removes everything.
  if (sourceSize(first) === 0 || sources.some((s, i) => i > 0 && s.value === first.value)) return out;
  for (const e of sourceEntries(first)) {
    if (!sources.some((s, i) => i > 0 && sourceScore(s, e.member) !== undefined)) out.set(e.member, e.score);
  }
  return out;
}

/** The result in sorted-set order: by score, then bytewise by member. */
function ordered(result: Map<string, number>): ScoreEntry[] {
  const entries: ScoreEntry[] = [];
  for (const [member, score] of result) entries.push({ member, score });
  return entries.sort((a, b) => compareEntries(a.score, a.member, b.score, b.member));
}

function algebraCommand(op: Op, store: boolean) {
  const name = `z${op}${store ? 'store' : ''}`;
  return (ctx: Context, argv: Buffer[]): Reply => {
    const p = parse(ctx, argv, store ? 2 : 1, name, op, store, false);
    const result = op === 'union' ? union(p.sources, p.aggregate) : op === 'inter' ? inter(p.sources, p.aggregate) : diff(p.sources);
    const entries = ordered(result);
    if (store) return storeSortedSet(ctx, argv[1]!, entries, 'upfront', name);
    return entriesReply(ctx, entries, p.withScores);
  };
}

export const zunion = algebraCommand('union', false);
export const zinter = algebraCommand('inter', false);
export const zdiff = algebraCommand('diff', false);
export const zunionstore = algebraCommand('union', true);
export const zinterstore = algebraCommand('inter', true);
export const zdiffstore = algebraCommand('diff', true);

/** ZINTERCARD numkeys key [key ...] [LIMIT limit] */
export function zintercard(ctx: Context, argv: Buffer[]): Reply {
  const p = parse(ctx, argv, 1, 'zintercard', 'inter', false, true);
  return inter(p.sources, 'sum', p.limit).size;
}

/**
 * Key positions of the commands that take numkeys at `at` (and, for a STORE form, the
 * destination at 1), for COMMAND GETKEYS.
 */
export function numkeysKeys(at: number, withDestination: boolean) {
  return (argv: Buffer[]): number[] => {
    const n = int64Arg(argv[at]!, Errors.getkeysInvalid);
    if (n < 1n || BigInt(at) + n >= BigInt(argv.length)) return [];
    const keys = Array.from({ length: Number(n) }, (_, i) => at + 1 + i);
    return withDestination ? [1, ...keys] : keys;
  };
}
