// SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC] [ALPHA] [STORE dest]
// and SORT_RO (sort.c of Redis 7.0). Elements of a list, set or sorted set are sorted as numbers
// (strtod, ties broken by the bytes, so the result is deterministic) or with ALPHA as bytes, by
// themselves or by the weights a BY pattern names (`weight_*`, or `h_*->field` in a hash). A BY
// pattern without '*' means "do not sort": a list or sorted set keeps its order, a set is sorted
// ALPHA anyway when the result is stored (so replicas and the AOF get the same list).
// Elements are handled as latin1 strings, one char per byte, as keys are.
import { NOTIFY_GENERIC, NOTIFY_LIST } from './keyspace-events.js';
import { Buffer } from 'node:buffer';
import { HashValue } from '../engine/hash.js';
import { keyBytes, keyOf } from '../engine/keyspace.js';
import { ListValue } from '../engine/list.js';
import { newList } from './lists.js';
import { SetValue } from '../engine/set.js';
import { SortedSetValue } from '../engine/sorted-set.js';
import { fail, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { clientReadsAnyKey } from './acl/in-command-checks.js';
import { int64Arg, lower } from './args.js';
import { command, type CommandSpec, type Context } from './types.js';

interface Options {
  desc: boolean;
  alpha: boolean;
  limitStart: bigint;
  limitCount: bigint;
  by: string | null;
  dontSort: boolean;
  gets: string[];
  store: Buffer | null;
}

function parseOptions(argv: Buffer[], readOnly: boolean, readsAnyKey: () => boolean): Options {
  const o: Options = { desc: false, alpha: false, limitStart: 0n, limitCount: -1n, by: null, dontSort: false, gets: [], store: null };
  for (let j = 2; j < argv.length; j++) {
    const left = argv.length - j - 1;
    const opt = lower(argv[j]!);
    if (opt === 'asc') o.desc = false;
    else if (opt === 'desc') o.desc = true;
    else if (opt === 'alpha') o.alpha = true;
    else if (opt === 'limit' && left >= 2) {
      o.limitStart = int64Arg(argv[j + 1]!);
      o.limitCount = int64Arg(argv[j + 2]!);
      j += 2;
    } else if (!readOnly && opt === 'store' && left >= 1) o.store = argv[++j]!;
    else if (opt === 'by' && left >= 1) {
      o.by = keyOf(argv[++j]!);
      // A constant pattern: nothing to look up, nothing to sort.
      o.dontSort = !o.by.includes('*');
      // A real pattern reads keys the arguments do not name: the ACL user must read them all.
      if (!o.dontSort && !readsAnyKey()) fail(Errors.sortByAcl);
    } else if (opt === 'get' && left >= 1) {
      if (!readsAnyKey()) fail(Errors.sortGetAcl);
      o.gets.push(keyOf(argv[++j]!));
    }
    else fail(Errors.syntax);
  }
  return o;
}

/**
 * lookupKeyByPattern: `#` is the element itself; otherwise the first '*' is replaced by the
 * element, and `->field` after it reads that field of a hash. Undefined when there is no '*',
 * no such key, or a key of another type.
 */
function lookupByPattern(ctx: Context, pattern: string, element: string): string | undefined {
  if (pattern === '#') return element;
  const star = pattern.indexOf('*');
  if (star === -1) return undefined;
  const arrow = pattern.indexOf('->', star + 1);
  const field = arrow !== -1 && arrow + 2 < pattern.length ? pattern.slice(arrow + 2) : null;
  const key = pattern.slice(0, star) + element + pattern.slice(star + 1, field === null ? pattern.length : arrow);
  const value = ctx.db.get(key);
  if (value === undefined) return undefined;
  if (field !== null) {
    if (!(value instanceof HashValue)) return undefined;
    return value.getString(field);
  }
  return Buffer.isBuffer(value) ? keyOf(value) : undefined;
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const HEX = /^[+-]?0x[0-9a-f]+$/i;
const INFINITY = /^[+-]?inf(inity)?$/i;

/** strtod over the whole string, as SORT reads a weight; undefined where Redis reports an error. */
function weight(text: string): number | undefined {
  const s = text.replace(/^[ \t\n\v\f\r]+/, '');
  if (s === '') return 0; // strtod consumed nothing and stopped at the terminator
  if (INFINITY.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (HEX.test(s)) return (s.startsWith('-') ? -1 : 1) * parseInt(s.replace(/^[+-]?0x/i, ''), 16);
  if (!DECIMAL.test(s)) return undefined;
  const n = Number(s);
  // ERANGE: overflow to infinity, or a non-zero mantissa that underflowed to zero.
  if (!Number.isFinite(n) || (n === 0 && /[1-9]/.test(s.replace(/e.*$/i, '')))) return undefined;
  return n;
}

function elementsOf(value: ListValue | SetValue | SortedSetValue | undefined): string[] {
  if (value === undefined) return [];
  if (value instanceof ListValue) return value.range(0, value.length - 1).map((b) => keyOf(b));
  if (value instanceof SetValue) return value.list();
  const members: string[] = [];
  for (const e of value.entries()) members.push(e.member);
  return members;
}

interface Item {
  element: string;
  score: number;
  /** ALPHA with BY: the weight's text, null when its key is missing. */
  by: string | null;
}

function compare(o: Options): (a: Item, b: Item) => number {
  const bytes = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  let cmp: (a: Item, b: Item) => number;
  if (!o.alpha) cmp = (a, b) => (a.score > b.score ? 1 : a.score < b.score ? -1 : bytes(a.element, b.element));
  else if (o.by !== null) {
    cmp = (a, b) => {
      if (a.by === null || b.by === null) return a.by === b.by ? 0 : a.by === null ? -1 : 1;
      return bytes(a.by, b.by);
    };
  } else cmp = (a, b) => bytes(a.element, b.element);
  return o.desc ? (a, b) => -cmp(a, b) : cmp;
}

function sortGeneric(readOnly: boolean) {
  return (ctx: Context, argv: Buffer[]): Reply => {
    let readsAny: boolean | null = null;
    const o = parseOptions(argv, readOnly, () => (readsAny ??= clientReadsAnyKey(ctx.instance, ctx.client, readOnly ? 'sort_ro' : 'sort', argv)));
    const value = ctx.db.get(keyOf(argv[1]!));
    if (value !== undefined && !(value instanceof ListValue || value instanceof SetValue || value instanceof SortedSetValue)) {
      fail(Errors.wrongType);
    }
    // A set is sorted even "unsorted" when stored or asked by a script, so the stored list and
    // what the script sees are the same everywhere (replicas, the AOF).
    if (o.dontSort && value instanceof SetValue && (o.store !== null || ctx.client.fromScript)) {
      o.dontSort = false;
      o.alpha = true;
      o.by = null;
    }
    let elements = elementsOf(value);
    const length = elements.length;
    // LIMIT, clamped as Redis does (start past the end gives an empty range).
    const len = BigInt(length);
    let start = o.limitStart < 0n ? 0n : o.limitStart > len ? len : o.limitStart;
    const count = o.limitCount < -1n ? -1n : o.limitCount > len ? len : o.limitCount;
    let end = count < 0n ? len - 1n : start + count - 1n;
    if (start >= len) {
      start = len - 1n;
      end = len - 2n;
    }
    if (end >= len) end = len - 1n;

    let conversionError = false;
    if (o.dontSort) {
      // A list or sorted set in its own order, reversed by DESC; a set in its iteration order.
      if (o.desc && !(value instanceof SetValue)) elements = elements.reverse();
    } else {
      const items: Item[] = elements.map((element) => ({ element, score: 0, by: null }));
      for (const item of items) {
        const byValue = o.by === null ? item.element : lookupByPattern(ctx, o.by, item.element);
        if (byValue === undefined) continue;
        if (o.alpha) {
          if (o.by !== null) item.by = byValue;
        } else {
          const w = weight(byValue);
          if (w === undefined) conversionError = true;
          else item.score = w;
        }
      }
      items.sort(compare(o));
      elements = items.map((i) => i.element);
    }
    if (conversionError) fail(Errors.sortScoresNotDouble);

    const picked = end >= start ? elements.slice(Number(start), Number(end) + 1) : [];
    const out: Array<string | null> = [];
    for (const element of picked) {
      if (o.gets.length === 0) out.push(element);
      for (const pattern of o.gets) out.push(lookupByPattern(ctx, pattern, element) ?? null);
    }
    if (o.store === null) return out.map((e) => (e === null ? null : keyBytes(e)));
    const dest = keyOf(o.store);
    if (out.length > 0) {
      const list = newList(ctx);
      for (const e of out) list.pushTail(keyBytes(e ?? ''));
      list.packEnds();
      ctx.db.set(dest, list);
      ctx.modified(dest);
      ctx.addDirty(out.length - 1);
      ctx.notify(NOTIFY_LIST, 'sortstore', dest);
    } else if (ctx.db.delete(dest)) {
      ctx.modified(dest);
      ctx.notify(NOTIFY_GENERIC, 'del', dest);
    }
    return out.length;
  };
}

/** sortGetKeys: the key sorted, and the last STORE destination. */
function sortKeys(argv: Buffer[]): number[] {
  const keys = [1];
  let store = -1;
  for (let i = 2; i < argv.length; i++) {
    const opt = lower(argv[i]!);
    if (opt === 'limit') i += 2;
    else if (opt === 'get' || opt === 'by') i += 1;
    else if (opt === 'store' && i + 1 < argv.length) store = ++i;
  }
  if (store !== -1) keys.push(store);
  return keys;
}

const CATEGORIES = ['set', 'sortedset', 'list', 'slow', 'dangerous'];
const ONE_KEY = { first: 1, last: 1, step: 1 };

export const commands: CommandSpec[] = [
  command('sort', -2, ['write', 'denyoom', 'movablekeys'], ONE_KEY, sortGeneric(false), { keys: sortKeys, categories: ['write', ...CATEGORIES] }),
  command('sort_ro', -2, ['readonly', 'movablekeys'], ONE_KEY, sortGeneric(true), { keys: () => [1], categories: ['read', ...CATEGORIES] }),
];
