// Sorted-set commands, compared byte for byte with redis-server in RESP2 and RESP3.
import { cli } from './cli.js';
import type { DiffCase } from './case-types.js';
import { type Normaliser, sortedMap } from './normalize.js';

/** ZSCAN of a skiplist-encoded set: Redis walks its hash table, so compare the pairs as a set. */
const zscanPairs: Normaliser = (frame) => {
  const [cursor, pairs] = frame.children ?? [];
  if (cursor === undefined || pairs === undefined) return frame.raw;
  return `${cursor.raw.toString('latin1')}|${sortedMap(pairs).toString()}`;
};

const LONG_MEMBER = 'm'.repeat(70);
/** 130 members: past zset-max-listpack-entries, so Redis holds a skiplist. */
const MANY = Array.from({ length: 130 }, (_, i) => [String(i % 7), `e${i}`]).flat();

export const cases: DiffCase[] = [
  {
    name: 'ZADD / ZSCORE / ZMSCORE / ZCARD and score formatting',
    steps: cli`
      ZADD z 1 a 1.5 b 0.1 c 1e17 d 123456789012345678 e -inf lo +inf hi
      ZADD z -0 zero 3 a
      ZSCORE z a
      ZSCORE z c
      ZSCORE z zero
      ZSCORE z hi
      ZSCORE z lo
      ZSCORE z nomember
      ZSCORE nokey a
      ZMSCORE z a nomember d e
      ZMSCORE nokey a b
      ZCARD z
      ZCARD nokey
      ZRANGE z 0 -1 WITHSCORES
      ZADD z 0x10 hex 1. dot .5 half 1E3 exp 4.9e-324 tiny
      ZRANGE z 0 -1 WITHSCORES
      ZADD z 0.00001 e5 5e-5 e5b 1e-7 e7 366376387901483.125 tie -366376387901483.125 ntie 99999999999999980 big
      ZRANGE z 0 -1 WITHSCORES
      ZINCRBY z 0.375 tie
      TYPE z
      ZADD z
      ZADD z 1
      ZADD z 1 a 2
      ZADD z x a
      ZADD z nan a
      ZADD z " 1" a
      ZADD z "1 " a
      ZADD z "" a
      ZADD z 1e400 a
      ZADD z 1e-400 a
      ZADD z 1 a bad b
      ZMSCORE z
      ZSCORE z
    `,
  },
  {
    name: 'ZADD NX / XX / GT / LT / CH / INCR',
    steps: cli`
      ZADD z 1 a 2 b
      ZADD z NX 10 a 3 c
      ZADD z XX 10 a 4 d
      ZADD z XX CH 11 a 4 d 2 b
      ZADD z GT CH 5 a 5 b 7 new
      ZADD z LT CH 5 a 50 b 1 c
      ZADD z gt xx ch 100 a 100 nope
      ZRANGE z 0 -1 WITHSCORES
      ZADD z INCR 2.5 a
      ZADD z INCR NX 1 a
      ZADD z INCR XX 1 missing
      ZADD z INCR GT -1 a
      ZADD z INCR LT -1 a
      ZADD z INCR inf i
      ZADD z INCR -inf i
      ZADD z INCR 0 a
      ZADD z NX XX 1 a
      ZADD z GT LT 1 a
      ZADD z NX GT 1 a
      ZADD z NX LT 1 a
      ZADD z INCR 1 a 2 b
      ZADD z XX NX
      ZADD z CH
      ZADD nokey XX 1 a
      EXISTS nokey
      ZADD nokey XX INCR 1 a
      ZADD z2 INCR -0 negzero
      ZSCORE z2 negzero
      ZADD z2 0 zero -0 zero
      ZADD z2 CH -0 zero
      ZRANGE z 0 -1 WITHSCORES
    `,
  },
  {
    name: 'ZINCRBY',
    steps: cli`
      ZINCRBY z 1.5 a
      ZINCRBY z 0.1 a
      ZINCRBY z 0.2 a
      ZINCRBY z -10 b
      ZINCRBY z inf c
      ZINCRBY z -inf c
      ZINCRBY z abc a
      ZINCRBY z nx a
      ZINCRBY z incr a
      ZINCRBY z 1
      ZRANGE z 0 -1 WITHSCORES
      SET s v
      ZINCRBY s 1 a
      ZINCRBY s x a
    `,
  },
  {
    name: 'ZRANGE by rank, ZREVRANGE, ZRANK / ZREVRANK',
    steps: cli`
      ZADD z 1 a 2 b 3 c 4 d 5 e 3 cc 3 ca
      ZRANGE z 0 -1
      ZRANGE z 0 -1 WITHSCORES
      ZRANGE z 2 3 withscores
      ZRANGE z -3 -1
      ZRANGE z -100 100
      ZRANGE z 5 2
      ZRANGE z 7 10
      ZRANGE z -1 -2
      ZRANGE z 0 -1 REV
      ZRANGE z 0 2 REV WITHSCORES
      ZRANGE z 0 -9223372036854775808
      ZRANGE z -9223372036854775808 9223372036854775807
      ZREVRANGE z 0 -1
      ZREVRANGE z 1 3 WITHSCORES
      ZREVRANGE z 0 -1 REV
      ZREVRANGE z 0 -1 LIMIT 0 1
      ZRANGE z 0 -1 LIMIT 0 1
      ZRANGE z 0 -1 LIMIT 0 -1
      ZRANGE z 0 -1 LIMIT 1
      ZRANGE z 0 -1 LIMIT x 1
      ZRANGE z a -1
      ZRANGE z 0 -1 BOGUS
      ZRANGE z 0 -1 REV REV
      ZRANGE z 0 -1 BYSCORE BYLEX
      ZRANGE z 0
      ZRANGE nokey 0 -1
      ZRANGE nokey x -1
      ZRANK z a
      ZRANK z cc
      ZRANK z nomember
      ZRANK nokey a
      ZREVRANK z a
      ZREVRANK z ca
      ZREVRANK z nomember
      ZRANK z a WITHSCORE
    `,
  },
  {
    name: 'ZRANGEBYSCORE / ZREVRANGEBYSCORE / ZRANGE BYSCORE with bounds and LIMIT',
    steps: cli`
      ZADD z 1 a 2 b 3 c 4 d 5 e 3 cc -inf lo inf hi 0 zero
      ZRANGEBYSCORE z -inf +inf
      ZRANGEBYSCORE z -inf +inf WITHSCORES
      ZRANGEBYSCORE z (1 3
      ZRANGEBYSCORE z 1 (3
      ZRANGEBYSCORE z (1 (3 WITHSCORES
      ZRANGEBYSCORE z 3 3
      ZRANGEBYSCORE z (3 3
      ZRANGEBYSCORE z 5 1
      ZRANGEBYSCORE z (-inf (inf
      ZRANGEBYSCORE z "" ""
      ZRANGEBYSCORE z ( "( 3"
      ZRANGEBYSCORE z " 2" 1e400
      ZRANGEBYSCORE z -1e-400 0
      ZRANGEBYSCORE z 0x1 0x3
      ZRANGEBYSCORE z -inf +inf LIMIT 2 3
      ZRANGEBYSCORE z -inf +inf LIMIT 2 -1
      ZRANGEBYSCORE z -inf +inf LIMIT 2 0
      ZRANGEBYSCORE z -inf +inf LIMIT -1 3
      ZRANGEBYSCORE z -inf +inf LIMIT 100 3
      ZRANGEBYSCORE z -inf +inf LIMIT 8 10 WITHSCORES
      ZRANGEBYSCORE z -inf +inf WITHSCORES LIMIT 1 2 WITHSCORES
      ZRANGEBYSCORE z -inf +inf LIMIT 1
      ZRANGEBYSCORE z -inf +inf REV
      ZRANGEBYSCORE z -inf +inf BYSCORE
      ZRANGEBYSCORE z a 1
      ZRANGEBYSCORE z 1 nan
      ZRANGEBYSCORE z 1 2x
      ZRANGEBYSCORE z ((1 2
      ZRANGEBYSCORE nokey a 1
      ZRANGEBYSCORE nokey 0 1
      ZREVRANGEBYSCORE z +inf -inf
      ZREVRANGEBYSCORE z 3 (1 WITHSCORES
      ZREVRANGEBYSCORE z 1 3
      ZREVRANGEBYSCORE z +inf -inf LIMIT 1 3
      ZREVRANGEBYSCORE z +inf -inf LIMIT 7 -5 WITHSCORES
      ZRANGE z (1 4 BYSCORE
      ZRANGE z 4 (1 BYSCORE REV WITHSCORES
      ZRANGE z -inf inf BYSCORE LIMIT 1 2
      ZRANGE z inf -inf REV BYSCORE LIMIT 1 2
      ZRANGE z -inf inf BYSCORE LIMIT 20 2
      ZRANGE z x inf BYSCORE
    `,
  },
  {
    name: 'ZRANGEBYLEX / ZREVRANGEBYLEX / ZRANGE BYLEX / ZLEXCOUNT',
    steps: cli`
      ZADD z 0 a 0 b 0 c 0 d 0 e 0 aa 0 ab 0 "" 0 ${'\u00ff'}
      ZRANGEBYLEX z - +
      ZRANGEBYLEX z [a [c
      ZRANGEBYLEX z (a (c
      ZRANGEBYLEX z [aa (b
      ZRANGEBYLEX z [ (a
      ZRANGEBYLEX z ( +
      ZRANGEBYLEX z + -
      ZRANGEBYLEX z - -
      ZRANGEBYLEX z + +
      ZRANGEBYLEX z [c [a
      ZRANGEBYLEX z [b (b
      ZRANGEBYLEX z [b [b
      ZRANGEBYLEX z - + LIMIT 2 3
      ZRANGEBYLEX z - + LIMIT 2 -1
      ZRANGEBYLEX z - + LIMIT -2 3
      ZRANGEBYLEX z - + LIMIT 50 3
      ZRANGEBYLEX z - + LIMIT 0 0
      ZRANGEBYLEX z - + WITHSCORES
      ZRANGEBYLEX z a +
      ZRANGEBYLEX z -a +
      ZRANGEBYLEX z - +x
      ZRANGEBYLEX nokey a +
      ZRANGEBYLEX nokey - +
      ZREVRANGEBYLEX z + -
      ZREVRANGEBYLEX z [c (a
      ZREVRANGEBYLEX z - +
      ZREVRANGEBYLEX z + - LIMIT 1 2
      ZRANGE z [b [d BYLEX
      ZRANGE z [d [b BYLEX REV
      ZRANGE z + - BYLEX REV LIMIT 0 3
      ZRANGE z - + BYLEX WITHSCORES
      ZRANGE z - x BYLEX
      ZLEXCOUNT z - +
      ZLEXCOUNT z [b (d
      ZLEXCOUNT z (d [b
      ZLEXCOUNT z b [d
      ZLEXCOUNT nokey - +
      ZLEXCOUNT nokey x +
    `,
  },
  {
    name: 'ZCOUNT',
    steps: cli`
      ZADD z 1 a 2 b 3 c inf d -inf e
      ZCOUNT z -inf +inf
      ZCOUNT z (1 3
      ZCOUNT z (1 (1
      ZCOUNT z 3 1
      ZCOUNT z inf inf
      ZCOUNT z (inf inf
      ZCOUNT z x 1
      ZCOUNT nokey 0 1
      ZCOUNT nokey x 1
    `,
  },
  {
    name: 'ZREM / ZREMRANGEBYSCORE / ZREMRANGEBYRANK / ZREMRANGEBYLEX delete the emptied key',
    steps: cli`
      ZADD z 1 a 2 b 3 c 4 d 5 e
      ZREM z a a nomember
      ZREM nokey a
      ZREMRANGEBYSCORE z (2 3
      ZRANGE z 0 -1 WITHSCORES
      ZREMRANGEBYSCORE z x 3
      ZREMRANGEBYSCORE nokey 0 3
      ZREMRANGEBYSCORE nokey x 3
      ZREMRANGEBYRANK z -1 -1
      ZREMRANGEBYRANK z 5 10
      ZREMRANGEBYRANK z 1 0
      ZREMRANGEBYRANK z x 0
      ZRANGE z 0 -1
      ZREMRANGEBYRANK z 0 100
      EXISTS z
      ZADD z 0 a 0 b 0 c 0 d
      ZREMRANGEBYLEX z (a [c
      ZREMRANGEBYLEX z a [c
      ZREMRANGEBYLEX nokey - +
      ZRANGE z 0 -1
      ZREMRANGEBYLEX z - +
      EXISTS z
      ZADD z 1 a 2 b
      ZREM z a b c
      EXISTS z
      ZREM z
    `,
  },
  {
    name: 'ZPOPMIN / ZPOPMAX with and without count',
    steps: cli`
      ZADD z 1 a 2 b 3 c 4 d 5 e 2.5 f
      ZPOPMIN z
      ZPOPMAX z
      ZPOPMIN z 2
      ZPOPMAX z 1
      ZPOPMIN z 0
      ZPOPMIN z -1
      ZPOPMIN z x
      ZPOPMIN z 1 2
      ZPOPMAX z 100
      EXISTS z
      ZPOPMIN z
      ZPOPMIN z 3
      SET s v
      ZPOPMIN s
      ZPOPMIN s 0
      ZPOPMAX s 2
    `,
  },
  {
    name: 'BZPOPMIN / BZPOPMAX without blocking, and inside MULTI',
    steps: cli`
      ZADD z 1 a 2 b 3 c
      BZPOPMIN nokey z 0
      BZPOPMAX z 0.5
      BZPOPMIN z x
      BZPOPMIN z -1
      BZPOPMIN z inf
      BZPOPMIN z
      SET s v
      BZPOPMIN s z 0
      BZPOPMIN nokey s 0
      MULTI
      BZPOPMIN nokey 0
      BZPOPMAX z 0
      BZPOPMIN z 0
      EXEC
      EXISTS z
    `,
  },
  {
    name: 'WRONGTYPE from every sorted-set command, and other types on a zset',
    steps: cli`
      SET s v
      ZADD s 1 a
      ZADD s x a
      ZREM s a
      ZCARD s
      ZSCORE s a
      ZMSCORE s a
      ZRANGE s 0 -1
      ZRANGE s x -1
      ZRANGEBYSCORE s 0 1
      ZREVRANGEBYSCORE s 1 0
      ZRANGEBYLEX s - +
      ZREVRANGEBYLEX s + -
      ZREVRANGE s 0 -1
      ZRANK s a
      ZREVRANK s a
      ZCOUNT s 0 1
      ZLEXCOUNT s - +
      ZREMRANGEBYSCORE s 0 1
      ZREMRANGEBYRANK s 0 1
      ZREMRANGEBYLEX s - +
      ZSCAN s 0
      ZADD z 1 a
      GET z
      HGET z a
      SADD z a
      XLEN z
      TYPE z
      SCAN 0 TYPE zset
    `,
  },
  {
    name: 'ZSCAN on a small set: everything at once, in order, with MATCH',
    steps: cli`
      ZADD z 1 a 1.5 b -0 c 1e17 d 123456789012345678 e 4611686018427387904 f 4611686018427387905 g inf h 0.1 i -7 j
      ZSCAN z 0
      ZSCAN z 0 COUNT 2
      ZSCAN z 0 MATCH [a-c]
      ZSCAN z 0 MATCH *
      ZSCAN z 123
      ZSCAN z x
      ZSCAN z -1
      ZSCAN z 0 COUNT 0
      ZSCAN z 0 COUNT x
      ZSCAN z 0 TYPE zset
      ZSCAN z 0 MATCH
      ZSCAN nokey 0
      ZSCAN nokey 0 COUNT 0
      ZSCAN nokey x
    `,
  },
  {
    name: 'Big and long-member sets (skiplist in Redis): order, -0, ranks, pops',
    steps: cli`
      ZADD big ${MANY}
      ZCARD big
      ZRANGE big 0 -1 WITHSCORES
      ZRANGE big 10 20 REV
      ZRANK big e77
      ZREVRANK big e77
      ZRANGEBYSCORE big (2 3 LIMIT 5 7 WITHSCORES
      ZCOUNT big 1 (5
      ZADD big -0 negzero
      ZSCORE big negzero
      ZINCRBY big -0 negzero2
      ZPOPMIN big 3
      ZPOPMAX big 3
      ZREMRANGEBYRANK big 10 -10
      ZRANGE big 0 -1 WITHSCORES
      ZADD long 1 ${LONG_MEMBER} -0 x
      ZRANGE long 0 -1 WITHSCORES
      ZSCAN long 0 COUNT 100  => ${zscanPairs}
      ZSCAN big 0 COUNT 1000  => ${zscanPairs}
      ZSCAN big 0 COUNT 1000 MATCH e1*  => ${zscanPairs}
    `,
  },
  {
    name: 'Keyspace: RENAME, EXPIRE, DEL, WATCH on sorted sets',
    steps: cli`
      ZADD z 1 a 2 b
      RENAME z z2
      ZRANGE z2 0 -1 WITHSCORES
      EXPIRE z2 1000
      ZADD z2 3 c
      TTL z2  => positive
      ZPOPMIN z2 5
      TTL z2
      ZADD z 1 a
      DEL z
      EXISTS z
      ZADD w 1 a
      WATCH w
      ZADD w 1 a
      MULTI
      ZCARD w
      EXEC
      WATCH w
      ZINCRBY w 1 a
      MULTI
      ZCARD w
      EXEC
    `,
  },
];

/** COMMAND INFO's head: name, arity, flags, key positions, ACL categories (not key specs or tips). */
const commandInfoHead: Normaliser = (frame) => {
  const info = frame.children?.[0];
  if (info?.children === undefined) return frame.raw;
  return info.children.slice(0, 7).map((c) => c.raw.toString('latin1')).join('');
};

const SORTED_SET_COMMANDS =
  'zadd zincrby zrem zremrangebyscore zremrangebyrank zremrangebylex zcard zscore zmscore zrank zrevrank zcount zlexcount zrange zrangebyscore zrevrangebyscore zrangebylex zrevrangebylex zrevrange zpopmin zpopmax bzpopmin bzpopmax zscan';

cases.push({
  name: 'COMMAND INFO of every sorted-set command: arity, flags, key positions, ACL categories',
  steps: [
    ...SORTED_SET_COMMANDS.split(' ').map((name) => ({ argv: ['COMMAND', 'INFO', name], mask: commandInfoHead })),
    ...cli`
      COMMAND GETKEYS BZPOPMIN a b c 0
      COMMAND GETKEYS ZADD z 1 a
      COMMAND GETKEYS ZRANGE z 0 -1 REV
    `,
  ],
});

// Which sorted-set commands touch a WATCHed key (signalModifiedKey): WATCH, the command, then
// MULTI/EXEC is null exactly when Redis signalled the key. Each pair is [set-up, command].
const touchProbes: Array<[string[][], string[]]> = [
  [[['ZADD', 'k', '1', 'a']], ['ZADD', 'k', '1', 'a']],
  [[['ZADD', 'k', '1', 'a']], ['ZADD', 'k', '2', 'a']],
  [[['ZADD', 'k', '1', 'a']], ['ZADD', 'k', 'NX', '2', 'a']],
  [[['ZADD', 'k', '1', 'a']], ['ZADD', 'k', 'GT', '0', 'a']],
  [[['ZADD', 'k', '1', 'a']], ['ZADD', 'k', 'INCR', '0', 'a']],
  [[], ['ZADD', 'k', 'XX', '1', 'a']],
  [[['ZADD', 'k', '1', 'a']], ['ZINCRBY', 'k', '0', 'a']],
  [[['ZADD', 'k', '1', 'a']], ['ZINCRBY', 'k', '1', 'a']],
  [[['ZADD', 'k', '1', 'a']], ['ZREM', 'k', 'b']],
  [[['ZADD', 'k', '1', 'a', '2', 'b']], ['ZREM', 'k', 'a']],
  [[['ZADD', 'k', '1', 'a']], ['ZREMRANGEBYSCORE', 'k', '5', '6']],
  [[['ZADD', 'k', '1', 'a']], ['ZREMRANGEBYSCORE', 'k', '0', '6']],
  [[['ZADD', 'k', '1', 'a']], ['ZREMRANGEBYRANK', 'k', '3', '6']],
  [[['ZADD', 'k', '0', 'a']], ['ZREMRANGEBYLEX', 'k', '[b', '+']],
  [[['ZADD', 'k', '0', 'a']], ['ZREMRANGEBYLEX', 'k', '-', '+']],
  [[['ZADD', 'k', '1', 'a']], ['ZPOPMIN', 'k', '0']],
  [[['ZADD', 'k', '1', 'a', '2', 'b']], ['ZPOPMAX', 'k']],
  [[], ['ZPOPMIN', 'k']],
  [[['ZADD', 'k', '1', 'a']], ['BZPOPMIN', 'k', '0']],
];

cases.push({
  name: 'WATCH sees exactly the sorted-set commands that really change a key',
  protocols: [2],
  steps: touchProbes.flatMap(([setup, probe]) => [['FLUSHALL'], ...setup, ['WATCH', 'k'], probe, ['MULTI'], ['PING'], ['EXEC']]),
});
