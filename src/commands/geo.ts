// The GEO commands of Redis 7.0 (geo.c): GEOADD (a ZADD of geohash scores, propagated as that
// ZADD), GEOPOS, GEODIST, GEOHASH, GEORADIUS[_RO], GEORADIUSBYMEMBER[_RO], GEOSEARCH and
// GEOSEARCHSTORE. A position is a sorted-set member whose score is its 52-bit geohash
// (engine/geohash.ts); searches scan the nine geohash boxes around the centre in Redis's order,
// so unsorted results, COUNT ANY's early stop and (through pqsort) ties come out as in Redis.
// Arguments are checked in georadiusGeneric's order, so a bad command gets Redis's error.
import { NOTIFY_GENERIC } from './keyspace-events.js';
import { keyBytes, keyOf } from '../engine/keyspace.js';
import type { SortedSetValue } from '../engine/sorted-set.js';
import {
  boxScores,
  decodeScore,
  distance,
  distanceWithin,
  formatDistance,
  formatF,
  formatHumanDouble,
  GEO_LAT_MAX,
  GEO_LAT_MIN,
  GEO_LONG_MAX,
  GEO_LONG_MIN,
  geohashString,
  scoreOf,
  searchBoxes,
  type Shape,
} from '../engine/geohash.js';
import { DoubleReply, fail, NULL_ARRAY, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, isKeyword, lower } from './args.js';
import { pqsort } from './pqsort.js';
import { zaddGeneric } from './sorted-sets.js';
import { lookupTyped } from './typed-lookup.js';
import { parseScore } from './zset-args.js';
import { storeSortedSet } from './zset-results.js';
import { command, type CommandSpec, type Context } from './types.js';

/** getDoubleFromObjectOrReply. */
function doubleArg(arg: Buffer, message: string = Errors.notFloat): number {
  const v = parseScore(arg);
  if (v === undefined) fail(message);
  return v;
}

/** extractLongLatOrReply: both parsed first, then the range checked. */
function lonLatArgs(argv: Buffer[], at: number): [number, number] {
  const x = doubleArg(argv[at]!);
  const y = doubleArg(argv[at + 1]!);
  if (x < GEO_LONG_MIN || x > GEO_LONG_MAX || y < GEO_LAT_MIN || y > GEO_LAT_MAX) fail(Errors.geoInvalidPair(formatF(x), formatF(y)));
  return [x, y];
}

/** extractUnitOrReply: the unit's size in meters. */
function unitArg(arg: Buffer): number {
  const u = lower(arg);
  if (u === 'm') return 1;
  if (u === 'km') return 1000;
  if (u === 'ft') return 0.3048;
  if (u === 'mi') return 1609.34;
  fail(Errors.geoUnit);
}

/** A member's position, or undefined when it is not in the set. */
function memberPosition(zset: SortedSetValue, member: Buffer): [number, number] | undefined {
  const score = zset.score(keyOf(member));
  return score === undefined ? undefined : decodeScore(score);
}

const distanceReply = (d: number): Buffer => Buffer.from(formatDistance(d), 'latin1');
const coordinateReply = (v: number): DoubleReply => new DoubleReply(v, formatHumanDouble(v));

// --- GEOADD / GEOPOS / GEODIST / GEOHASH ---------------------------------------------------------

/** GEOADD key [NX|XX] [CH] lon lat member ...: ZADD with the geohashes as scores, logged as that ZADD. */
function geoadd(ctx: Context, argv: Buffer[]): Reply {
  let nx = false;
  let xx = false;
  let at = 2;
  for (; at < argv.length; at++) {
    const opt = lower(argv[at]!);
    if (opt === 'nx') nx = true;
    else if (opt === 'xx') xx = true;
    else if (opt !== 'ch') break;
  }
  if ((argv.length - at) % 3 !== 0 || (xx && nx)) fail(Errors.syntax);
  const zaddArgv: Buffer[] = [Buffer.from('zadd'), ...argv.slice(1, at)];
  for (let i = at; i < argv.length; i += 3) {
    const [x, y] = lonLatArgs(argv, i);
    zaddArgv.push(Buffer.from(String(scoreOf(x, y))), argv[i + 2]!);
  }
  const { reply, changed } = zaddGeneric(ctx, zaddArgv, false);
  if (changed) ctx.propagate(zaddArgv);
  return reply;
}

function geopos(ctx: Context, argv: Buffer[]): Reply {
  const zset = lookupTyped(ctx.db, keyOf(argv[1]!), 'zset');
  const out: Reply[] = [];
  for (let i = 2; i < argv.length; i++) {
    const xy = zset === undefined ? undefined : memberPosition(zset, argv[i]!);
    out.push(xy === undefined ? NULL_ARRAY : [coordinateReply(xy[0]), coordinateReply(xy[1])]);
  }
  return out;
}

function geodist(ctx: Context, argv: Buffer[]): Reply {
  let toMeters = 1;
  if (argv.length === 5) toMeters = unitArg(argv[4]!);
  else if (argv.length > 5) fail(Errors.syntax);
  const zset = lookupTyped(ctx.db, keyOf(argv[1]!), 'zset');
  if (zset === undefined) return null;
  const a = memberPosition(zset, argv[2]!);
  const b = memberPosition(zset, argv[3]!);
  if (a === undefined || b === undefined) return null;
  return distanceReply(distance(a[0], a[1], b[0], b[1]) / toMeters);
}

function geohash(ctx: Context, argv: Buffer[]): Reply {
  const zset = lookupTyped(ctx.db, keyOf(argv[1]!), 'zset');
  const out: Reply[] = [];
  for (let i = 2; i < argv.length; i++) {
    const score = zset?.score(keyOf(argv[i]!));
    out.push(score === undefined ? null : Buffer.from(geohashString(score), 'latin1'));
  }
  return out;
}

// --- the searches --------------------------------------------------------------------------------

type Variant = 'georadius' | 'georadius_ro' | 'georadiusbymember' | 'georadiusbymember_ro' | 'geosearch' | 'geosearchstore';

interface Point {
  member: string;
  score: number;
  x: number;
  y: number;
  dist: number;
}

/**
 * membersOfAllNeighbors: the members of the nine boxes that lie in the shape, box by box in
 * score order; a box equal to the one processed just before is skipped (huge radii), and with
 * `limit` (COUNT ANY) the scan stops once that many were found.
 */
function pointsInShape(zset: SortedSetValue, shape: Shape, limit: number): Point[] {
  const boxes = searchBoxes(shape);
  const found: Point[] = [];
  let last = 0;
  for (let i = 0; i < boxes.length; i++) {
    const box = boxes[i]!;
    if (box.bits === 0n && box.step === 0) continue;
    if (last !== 0 && box.bits === boxes[last]!.bits && box.step === boxes[last]!.step) continue;
    if (found.length > 0 && limit > 0 && found.length >= limit) break;
    const [min, max] = boxScores(box);
    const start = zset.countBelowScore(min, false);
    const end = zset.countBelowScore(max, false);
    if (start < end) {
      for (const e of zset.slice(start, end)) {
        const [x, y] = decodeScore(e.score);
        const dist = distanceWithin(shape, x, y);
        if (dist !== undefined) found.push({ member: e.member, score: e.score, x, y, dist });
        if (found.length > 0 && limit > 0 && found.length >= limit) break;
      }
    }
    last = i;
  }
  return found;
}

const ascending = (a: Point, b: Point): number => (a.dist > b.dist ? 1 : a.dist === b.dist ? 0 : -1);
const descending = (a: Point, b: Point): number => -ascending(a, b);

/** georadiusGeneric. */
function search(variant: Variant) {
  const byCoords = variant === 'georadius' || variant === 'georadius_ro';
  const byMember = variant === 'georadiusbymember' || variant === 'georadiusbymember_ro';
  const noStore = variant === 'georadius_ro' || variant === 'georadiusbymember_ro';
  const isSearch = variant === 'geosearch' || variant === 'geosearchstore';
  const isSearchStore = variant === 'geosearchstore';
  return (ctx: Context, argv: Buffer[]): Reply => {
    const srcIndex = isSearchStore ? 2 : 1;
    const zset = lookupTyped(ctx.db, keyOf(argv[srcIndex]!), 'zset');
    let storeKey: Buffer | null = null;
    let storeDist = false;
    let xy: [number, number] = [0, 0];
    let circle: { radius: number; conversion: number } | null = null;
    let box: { width: number; height: number; conversion: number } | null = null;
    let base: number;
    if (byCoords) {
      base = 6;
      xy = lonLatArgs(argv, 2);
      circle = radiusArgs(argv, 4);
    } else if (byMember) {
      base = 5;
      if (zset !== undefined) {
        const at = memberPosition(zset, argv[2]!);
        if (at === undefined) fail(Errors.geoMemberUndecodable);
        xy = at;
        circle = radiusArgs(argv, 3);
      }
    } else {
      base = isSearchStore ? 3 : 2;
      if (isSearchStore) storeKey = argv[1]!;
    }

    let withDist = false;
    let withHash = false;
    let withCoord = false;
    let fromMember = false;
    let fromLonLat = false;
    let sort: 'none' | 'asc' | 'desc' = 'none';
    let any = false;
    let count = 0;
    const remaining = argv.length - base;
    for (let i = 0; i < remaining; i++) {
      const argAt = (k: number) => argv[base + i + k]!;
      const opt = lower(argAt(0));
      if (opt === 'withdist') withDist = true;
      else if (opt === 'withhash') withHash = true;
      else if (opt === 'withcoord') withCoord = true;
      else if (opt === 'any') any = true;
      else if (opt === 'asc') sort = 'asc';
      else if (opt === 'desc') sort = 'desc';
      else if (opt === 'count' && i + 1 < remaining) {
        const n = int64Arg(argAt(1));
        if (n <= 0n) fail(Errors.countMustBePositive);
        count = Number(n);
        i++;
      } else if ((opt === 'store' || opt === 'storedist') && i + 1 < remaining && !noStore && !isSearch) {
        storeKey = argAt(1);
        storeDist = opt === 'storedist';
        i++;
      } else if (opt === 'storedist' && isSearch && isSearchStore) storeDist = true;
      else if (opt === 'frommember' && i + 1 < remaining && isSearch && !fromLonLat) {
        // Without the key the arguments are still parsed, to pick the reply.
        if (zset !== undefined) {
          const at = memberPosition(zset, argAt(1));
          if (at === undefined) fail(Errors.geoMemberUndecodable);
          xy = at;
        }
        fromMember = true;
        i++;
      } else if (opt === 'fromlonlat' && i + 2 < remaining && isSearch && !fromMember) {
        xy = lonLatArgs(argv, base + i + 1);
        fromLonLat = true;
        i += 2;
      } else if (opt === 'byradius' && i + 2 < remaining && isSearch && box === null) {
        circle = radiusArgs(argv, base + i + 1);
        i += 2;
      } else if (opt === 'bybox' && i + 3 < remaining && isSearch && circle === null) {
        box = boxArgs(argv, base + i + 1);
        i += 3;
      } else fail(Errors.syntax);
    }

    if (storeKey !== null && (withDist || withHash || withCoord)) {
      fail(Errors.geoStoreWith(isSearchStore ? 'GEOSEARCHSTORE' : 'STORE option in GEORADIUS'));
    }
    const name = argv[0]!.toString('latin1');
    if (isSearch && !(fromMember || fromLonLat)) fail(Errors.geoFromOne(name));
    if (isSearch && circle === null && box === null) fail(Errors.geoByOne(name));
    if (any && count === 0) fail(Errors.geoAnyWithoutCount);

    if (zset === undefined) {
      if (storeKey === null) return [];
      const dst = keyOf(storeKey);
      if (ctx.db.delete(dst)) {
        ctx.modified(dst);
        ctx.notify(NOTIFY_GENERIC, 'del', dst);
      }
      return 0;
    }
    if (count !== 0 && sort === 'none' && !any) sort = 'asc';

    const shape: Shape =
      circle !== null
        ? { type: 'circle', xy, conversion: circle.conversion, radius: circle.radius }
        : { type: 'box', xy, conversion: box!.conversion, width: box!.width, height: box!.height };
    const points = pointsInShape(zset, shape, any ? count : 0);
    if (points.length === 0 && storeKey === null) return [];

    const returned = count === 0 || points.length < count ? points.length : count;
    if (sort !== 'none') {
      const cmp = sort === 'asc' ? ascending : descending;
      // glibc's qsort is a merge sort (stable); pqsort, for a partial result, is not.
      if (returned === points.length) points.sort(cmp);
      else pqsort(points, cmp, 0, returned - 1);
    }

    if (storeKey === null) {
      const options = (withDist ? 1 : 0) + (withCoord ? 1 : 0) + (withHash ? 1 : 0);
      const out: Reply[] = [];
      for (let i = 0; i < returned; i++) {
        const p = points[i]!;
        if (options === 0) {
          out.push(keyBytes(p.member));
          continue;
        }
        const item: Reply[] = [keyBytes(p.member)];
        if (withDist) item.push(distanceReply(p.dist / shape.conversion));
        if (withHash) item.push(Math.trunc(p.score));
        if (withCoord) item.push([coordinateReply(p.x), coordinateReply(p.y)]);
        out.push(item);
      }
      return out;
    }
    const entries = points.slice(0, returned).map((p) => ({ member: p.member, score: storeDist ? p.dist / shape.conversion : p.score }));
    const stored = storeSortedSet(ctx, storeKey, entries, 'upfront', isSearch ? 'geosearchstore' : 'georadiusstore');
    // Redis counts one change per stored member.
    if (returned > 1) ctx.addDirty(returned - 1);
    return stored;
  };
}

/** extractDistanceOrReply: radius and unit. */
function radiusArgs(argv: Buffer[], at: number): { radius: number; conversion: number } {
  const radius = doubleArg(argv[at]!, Errors.geoNeedRadius);
  if (radius < 0) fail(Errors.geoRadiusNegative);
  return { radius, conversion: unitArg(argv[at + 1]!) };
}

/** extractBoxOrReply: width, height and unit. */
function boxArgs(argv: Buffer[], at: number): { width: number; height: number; conversion: number } {
  const width = doubleArg(argv[at]!, Errors.geoNeedWidth);
  const height = doubleArg(argv[at + 1]!, Errors.geoNeedHeight);
  if (height < 0 || width < 0) fail(Errors.geoBoxNegative);
  return { width, height, conversion: unitArg(argv[at + 2]!) };
}

/**
 * The keys of GEORADIUS/GEORADIUSBYMEMBER as their key specs find them: the source, then the
 * key after the first STORE and the first STOREDIST from `startFrom` on (the last argument is
 * never taken for a keyword, as getKeysUsingKeySpecs stops before it).
 */
function storeKeys(startFrom: number) {
  return (argv: Buffer[]): number[] => {
    const keys = [1];
    for (const keyword of ['store', 'storedist']) {
      for (let i = startFrom; i < argv.length - 1; i++) {
        if (isKeyword(argv[i], keyword)) {
          keys.push(i + 1);
          break;
        }
      }
    }
    return keys;
  };
}

const ONE_KEY = { first: 1, last: 1, step: 1 };
const cat = (access: string) => ({ categories: [access, 'geo', 'slow'] });

export const commands: CommandSpec[] = [
  command('geoadd', -5, ['write', 'denyoom'], ONE_KEY, geoadd, cat('write')),
  command('geopos', -2, ['readonly'], ONE_KEY, geopos, cat('read')),
  command('geodist', -4, ['readonly'], ONE_KEY, geodist, cat('read')),
  command('geohash', -2, ['readonly'], ONE_KEY, geohash, cat('read')),
  command('georadius', -6, ['write', 'denyoom', 'movablekeys'], ONE_KEY, search('georadius'), { keys: storeKeys(6), ...cat('write') }),
  command('georadius_ro', -6, ['readonly'], ONE_KEY, search('georadius_ro'), cat('read')),
  command('georadiusbymember', -5, ['write', 'denyoom', 'movablekeys'], ONE_KEY, search('georadiusbymember'), {
    keys: storeKeys(5),
    ...cat('write'),
  }),
  command('georadiusbymember_ro', -5, ['readonly'], ONE_KEY, search('georadiusbymember_ro'), cat('read')),
  command('geosearch', -7, ['readonly'], ONE_KEY, search('geosearch'), cat('read')),
  command('geosearchstore', -8, ['write', 'denyoom'], { first: 1, last: 2, step: 1 }, search('geosearchstore'), cat('write')),
];
