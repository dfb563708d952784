// Random sorted-set steps. Scores, bounds and counts come from small pools that include the
// awkward values (inf, -0, exclusive bounds, bad floats, negative counts, offsets past the end).
// Lex-range commands only make sense when all scores are equal (Redis leaves the rest
// unspecified), so they run on their own keys "zlex0".."zlex1", which only get score 0.
import type { KeySpace, Rng, Step, StepGenerator } from './case-types.js';

function gen(name: string, weight: number, next: (rng: Rng, s: KeySpace) => Step): StepGenerator {
  return { name, weight, next };
}

function several<T>(rng: Rng, n: number, make: () => T): T[] {
  return Array.from({ length: 1 + rng.int(n) }, make);
}

const SCORES = ['0', '1', '-1', '2.5', '-0', 'inf', '-inf', '+inf', '1e3', '0.1', '3', '7', '-3.5', '1e17', '0x10'];
const BAD_SCORES = ['x', 'nan', '', '1e400', ' 1'];
const BOUNDS = ['-inf', '+inf', '0', '(0', '1', '(1', '2.5', '(2.5', '3', '(3', '1e3', '-0', '(-1'];
const BAD_BOUNDS = ['x', '(', '', 'nan', '((1'];
const LEX_BOUNDS = ['-', '+', '[f1', '(f1', '[f3', '(f3', '[', '(', '[-1', '(0', '[f'];
const BAD_LEX_BOUNDS = ['f1', 'x', '-x', '++'];

const score = (r: Rng) => (r.chance(0.05) ? r.pick(BAD_SCORES) : r.pick(SCORES));
const bound = (r: Rng) => (r.chance(0.05) ? r.pick(BAD_BOUNDS) : r.pick(BOUNDS));
const lexBound = (r: Rng) => (r.chance(0.05) ? r.pick(BAD_LEX_BOUNDS) : r.pick(LEX_BOUNDS));
const index = (r: Rng) => String(r.int(13) - 6);
const lexKey = (r: Rng) => `zlex${r.int(2)}`;

function limit(r: Rng): string[] {
  if (!r.chance(0.4)) return [];
  return ['LIMIT', r.pick(['0', '1', '2', '5', '20', '-1']), r.pick(['0', '1', '2', '3', '-1', '-5'])];
}

const withScores = (r: Rng) => (r.chance(0.5) ? ['WITHSCORES'] : []);

function zaddOptions(r: Rng): string[] {
  const opts: string[] = [];
  for (const o of ['NX', 'XX', 'GT', 'LT', 'CH', 'INCR']) if (r.chance(0.15)) opts.push(r.chance(0.2) ? o.toLowerCase() : o);
  return opts;
}

/** Inputs of the algebra commands: mostly sorted sets, sometimes sets or other keys. */
const algebraKeys = (r: Rng, s: KeySpace): string[] => several(r, 3, () => s.key(r.chance(0.8) ? 'zset' : 'set'));

/** numkeys, the keys, and (where allowed) WEIGHTS and AGGREGATE. */
function algebraArgs(r: Rng, s: KeySpace, weighted: boolean): string[] {
  const keys = algebraKeys(r, s);
  const args = [String(keys.length), ...keys];
  if (weighted && r.chance(0.4)) args.push('WEIGHTS', ...keys.map(() => score(r)));
  if (weighted && r.chance(0.4)) args.push('AGGREGATE', r.pick(['SUM', 'MIN', 'MAX', 'max']));
  return args;
}

export const generators: StepGenerator[] = [
  gen('zadd', 6, (r, s) => {
    const opts = zaddOptions(r);
    const pairs = opts.includes('INCR') && r.chance(0.8) ? 1 : 1 + r.int(4);
    return ['ZADD', s.key('zset'), ...opts, ...Array.from({ length: pairs }, () => [score(r), s.field()]).flat()];
  }),
  gen('zincrby', 2, (r, s) => ['ZINCRBY', s.key('zset'), score(r), s.field()]),
  gen('zrem', 2, (r, s) => ['ZREM', s.key('zset'), ...several(r, 3, s.field)]),
  gen('zcard', 1, (r, s) => ['ZCARD', s.key('zset')]),
  gen('zscore', 2, (r, s) => (r.chance(0.5) ? ['ZSCORE', s.key('zset'), s.field()] : ['ZMSCORE', s.key('zset'), ...several(r, 3, s.field)])),
  gen('zrank', 2, (r, s) => [r.pick(['ZRANK', 'ZREVRANK']), s.key('zset'), s.field()]),
  gen('zrange', 4, (r, s) => {
    const cmd = r.pick(['ZRANGE', 'ZREVRANGE']);
    const rev = cmd === 'ZRANGE' && r.chance(0.3) ? ['REV'] : [];
    return [cmd, s.key('zset'), index(r), index(r), ...rev, ...withScores(r)];
  }),
  gen('zrangebyscore', 4, (r, s) => {
    const form = r.int(3);
    if (form === 0) return ['ZRANGEBYSCORE', s.key('zset'), bound(r), bound(r), ...withScores(r), ...limit(r)];
    if (form === 1) return ['ZREVRANGEBYSCORE', s.key('zset'), bound(r), bound(r), ...limit(r), ...withScores(r)];
    return ['ZRANGE', s.key('zset'), bound(r), bound(r), 'BYSCORE', ...(r.chance(0.4) ? ['REV'] : []), ...limit(r), ...withScores(r)];
  }),
  gen('zcount', 2, (r, s) => ['ZCOUNT', s.key('zset'), bound(r), bound(r)]),
  gen('zpop', 3, (r, s) => [r.pick(['ZPOPMIN', 'ZPOPMAX']), s.key('zset'), ...(r.chance(0.5) ? [r.pick(['0', '1', '2', '10', '-1'])] : [])]),
  // A short timeout: an empty key times out the same way on both sides.
  gen('bzpop', 1, (r, s) => [r.pick(['BZPOPMIN', 'BZPOPMAX']), ...several(r, 2, () => s.key('zset')), r.pick(['0.01', '0.02'])]),
  gen('zremrange', 2, (r, s) =>
    r.chance(0.5) ? ['ZREMRANGEBYSCORE', s.key('zset'), bound(r), bound(r)] : ['ZREMRANGEBYRANK', s.key('zset'), index(r), index(r)],
  ),
  gen('zscan', 1, (r, s) => ['ZSCAN', s.key('zset'), '0', 'COUNT', '1000', ...(r.chance(0.4) ? ['MATCH', r.pick(['f*', '-*', '?'])] : [])]),
  gen('zset-rename', 0.5, (r, s) => ['RENAME', s.key('zset'), s.key('zset')]),

  // the set algebra (sets as inputs too), ZRANGESTORE, ZMPOP / BZMPOP, ZRANDMEMBER of the whole set
  gen('zalgebra', 3, (r, s) => {
    const cmd = r.pick(['ZUNION', 'ZINTER', 'ZDIFF']);
    return [cmd, ...algebraArgs(r, s, cmd !== 'ZDIFF'), ...withScores(r)];
  }),
  gen('zalgebra-store', 2, (r, s) => {
    const cmd = r.pick(['ZUNIONSTORE', 'ZINTERSTORE', 'ZDIFFSTORE']);
    return [cmd, s.key('zset'), ...algebraArgs(r, s, cmd !== 'ZDIFFSTORE')];
  }),
  gen('zintercard', 1, (r, s) => {
    const keys = algebraKeys(r, s);
    return ['ZINTERCARD', String(keys.length), ...keys, ...(r.chance(0.5) ? ['LIMIT', r.pick(['0', '1', '2', '-1'])] : [])];
  }),
  gen('zrangestore', 2, (r, s) => {
    const form = r.int(3);
    if (form === 0) return ['ZRANGESTORE', s.key('zset'), s.key('zset'), index(r), index(r), ...(r.chance(0.3) ? ['REV'] : [])];
    if (form === 1) return ['ZRANGESTORE', s.key('zset'), s.key('zset'), bound(r), bound(r), 'BYSCORE', ...(r.chance(0.4) ? ['REV'] : []), ...limit(r)];
    return ['ZRANGESTORE', lexKey(r), lexKey(r), lexBound(r), lexBound(r), 'BYLEX', ...(r.chance(0.4) ? ['REV'] : []), ...limit(r)];
  }),
  gen('zmpop', 2, (r, s) => {
    const keys = several(r, 2, () => s.key('zset'));
    const tail = [r.pick(['MIN', 'MAX', 'min']), ...(r.chance(0.5) ? ['COUNT', r.pick(['1', '2', '10', '0'])] : [])];
    // A short timeout: an empty key times out the same way on both sides.
    if (r.chance(0.3)) return ['BZMPOP', r.pick(['0.01', '0.02']), String(keys.length), ...keys, ...tail];
    return ['ZMPOP', String(keys.length), ...keys, ...tail];
  }),
  gen('zrandmember-whole', 1, (r, s) => ['ZRANDMEMBER', s.key('zset'), '100', ...withScores(r)]),

  // lex ranges, on keys whose members all score 0
  gen('zlex-add', 3, (r, s) => ['ZADD', lexKey(r), ...several(r, 4, () => ['0', s.field()]).flat()]),
  gen('zlex-rem', 1, (r, s) => ['ZREM', lexKey(r), ...several(r, 2, s.field)]),
  gen('zlex-range', 3, (r) => {
    const form = r.int(3);
    if (form === 0) return ['ZRANGEBYLEX', lexKey(r), lexBound(r), lexBound(r), ...limit(r)];
    if (form === 1) return ['ZREVRANGEBYLEX', lexKey(r), lexBound(r), lexBound(r), ...limit(r)];
    return ['ZRANGE', lexKey(r), lexBound(r), lexBound(r), 'BYLEX', ...(r.chance(0.4) ? ['REV'] : []), ...limit(r)];
  }),
  gen('zlex-count', 1, (r) => ['ZLEXCOUNT', lexKey(r), lexBound(r), lexBound(r)]),
  gen('zlex-remrange', 1, (r) => ['ZREMRANGEBYLEX', lexKey(r), lexBound(r), lexBound(r)]),
];
