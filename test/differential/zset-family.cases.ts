// The rest of Redis 7.0's sorted-set family (ZUNION / ZINTER / ZDIFF and their STORE forms,
// ZINTERCARD, ZRANGESTORE, ZRANDMEMBER, ZMPOP, BZMPOP without blocking), compared byte for byte
// with redis-server: replies, error texts and their order, OBJECT ENCODING of stored results.
// Random picks are compared by shape only (a mask saying so); a set of one member, or a count
// covering the whole set, makes ZRANDMEMBER deterministic and those are compared exactly.
import { cli } from './cli.js';
import type { DiffCase } from './case-types.js';
import type { Normaliser } from './normalize.js';

/** A random pick: the reply's type and, for an aggregate, how many elements. */
const shape: Normaliser = (frame) => `${frame.type}${frame.children?.length ?? ''}`;

const range = (n: number, f: (i: number) => string): string[] => Array.from({ length: n }, (_, i) => f(i));

export const cases: DiffCase[] = [
  {
    name: 'ZUNION / ZINTER / ZDIFF: scores, WITHSCORES, sets as inputs, missing keys, same key twice',
    steps: cli`
      ZADD a 1 x 2 y 3 z
      ZADD b 4 y 5 z 6 w
      SADD s y q
      SADD ints 1 2 3
      ZUNION 2 a b
      ZUNION 2 a b WITHSCORES
      ZUNION 3 a b s withscores
      ZUNION 2 a nokey WITHSCORES
      ZUNION 1 nokey
      ZUNION 2 a a WITHSCORES
      ZINTER 2 a b WITHSCORES
      ZINTER 3 a b s WITHSCORES
      ZINTER 2 a nokey WITHSCORES
      ZINTER 1 a
      ZINTER 2 a a WITHSCORES
      ZINTER 2 s ints WITHSCORES
      ZUNION 2 s ints WITHSCORES
      ZDIFF 2 a b WITHSCORES
      ZDIFF 2 b a WITHSCORES
      ZDIFF 1 a
      ZDIFF 2 a a
      ZDIFF 3 a nokey a
      ZDIFF 2 nokey a
      ZDIFF 2 a s WITHSCORES
      ZDIFF 2 s a WITHSCORES
      ZDIFF 2 ints nokey WITHSCORES
      ZDIFF 2 a nokey WITHSCORES
      ZUNION 2 a b WITHSCORES WITHSCORES
    `,
  },
  {
    name: 'WEIGHTS and AGGREGATE: SUM / MIN / MAX, inf * 0 and inf - inf count as 0, -0',
    steps: cli`
      ZADD a 1 x 2 y 3 z
      ZADD b 4 y 5 z 6 w
      ZADD inf inf i -inf n 0 zero 1.5 f
      ZUNION 2 a b WEIGHTS 2 3 WITHSCORES
      ZUNION 2 a b WEIGHTS 1 -1 AGGREGATE MIN WITHSCORES
      ZUNION 2 a b AGGREGATE max WITHSCORES
      ZUNION 2 a b AGGREGATE sum WEIGHTS 0.5 1e3 WITHSCORES
      ZINTER 2 a b WEIGHTS 2 3 AGGREGATE MAX WITHSCORES
      ZINTER 2 a b AGGREGATE MIN WITHSCORES
      ZUNION 1 inf WEIGHTS 0 WITHSCORES
      ZUNION 1 inf WEIGHTS -1 WITHSCORES
      ZUNION 1 inf WEIGHTS -0 WITHSCORES
      ZUNION 2 inf inf WEIGHTS 1 -1 WITHSCORES
      ZUNION 2 inf inf WEIGHTS 1 -1 AGGREGATE MIN WITHSCORES
      ZINTER 2 inf inf WEIGHTS 1 -1 WITHSCORES
      ZINTER 2 inf inf WEIGHTS 1 0 AGGREGATE MAX WITHSCORES
      ZINTER 2 inf inf WEIGHTS 0 1 AGGREGATE MIN WITHSCORES
      ZINTER 2 inf inf WEIGHTS inf -inf WITHSCORES
      ZUNION 2 a b WEIGHTS 1 2 WEIGHTS 3 4 AGGREGATE MIN AGGREGATE MAX WITHSCORES
      ZUNIONSTORE d 2 inf inf WEIGHTS 1 -1
      ZRANGE d 0 -1 WITHSCORES
      ZSCORE d zero
      ZUNIONSTORE d 1 inf WEIGHTS -1
      ZSCORE d zero
      ZUNIONSTORE big 1 inf WEIGHTS -1
    `,
  },
  {
    name: 'inputs are aggregated smallest first: the order shows in inf - inf (0) and float sums',
    steps: cli`
      ZADD big 1 a 2 b 3 c
      ZADD one inf a
      ZADD two -inf a 0 q
      ZADD f1 0.1 a
      ZADD f2 0.2 a 0 x
      ZADD f3 0.3 a 0 x 0 y
      ZUNION 3 one two big WITHSCORES
      ZUNION 3 big one two WITHSCORES
      ZUNION 3 big two one WITHSCORES
      ZINTER 3 big two one WITHSCORES
      ZINTER 3 two big one WITHSCORES
      ZUNION 3 f3 f2 f1 WITHSCORES
      ZUNION 3 f1 f2 f3 WITHSCORES
      ZINTER 3 f3 f1 f2 WEIGHTS 1e16 1 1 WITHSCORES
      ZUNION 3 f3 f1 f2 WEIGHTS 1e16 1 1 WITHSCORES
    `,
  },
  {
    name: 'argument errors of the algebra commands, in Redis order (numkeys, WRONGTYPE, options)',
    steps: cli`
      ZADD a 1 x
      SET str v
      ZUNION 0 a
      ZUNION -1 a
      ZUNION x a
      ZUNION 1.5 a
      ZUNION 3 a b
      ZUNION 9223372036854775808 a
      ZUNIONSTORE d 0 a
      ZINTERSTORE d -2 a
      ZDIFFSTORE d 0 a
      ZINTER 0 a
      ZDIFF 0 a
      ZUNION 2 a str
      ZUNION 2 str nokey
      ZINTER 2 nokey str
      ZDIFF 2 a str
      ZUNION 2 a str WEIGHTS x
      ZUNION 1 a WEIGHTS x
      ZUNION 1 a WEIGHTS nan
      ZUNION 1 a WEIGHTS " 1"
      ZUNION 1 a WEIGHTS 1e400
      ZUNION 1 a WEIGHTS
      ZUNION 2 a a WEIGHTS 1
      ZUNION 1 a AGGREGATE
      ZUNION 1 a AGGREGATE avg
      ZUNION 1 a FOO
      ZDIFF 1 a WEIGHTS 1
      ZDIFF 1 a AGGREGATE MIN
      ZUNIONSTORE d 1 a WITHSCORES
      ZINTERSTORE d 1 a WITHSCORES
      ZDIFFSTORE d 1 a WITHSCORES
      ZINTERCARD 1 a WITHSCORES
      ZINTERCARD 1 a WEIGHTS 1
      ZUNION 1 a LIMIT 1
      ZUNION
      ZUNION 1
      ZUNIONSTORE d 1
      ZDIFFSTORE d
      ZINTERCARD 1
    `,
  },
  {
    name: 'STORE forms: overwrite any type, drop the TTL, delete on an empty result, encodings',
    steps: cli`
      ZADD a 1 x 2 y 3 z
      ZADD b 4 y 5 z 6 w
      SADD s y q
      SET dst v
      EXPIRE dst 100
      ZUNIONSTORE dst 2 a b
      TYPE dst
      TTL dst
      OBJECT ENCODING dst
      ZRANGE dst 0 -1 WITHSCORES
      ZINTERSTORE dst 2 a b WEIGHTS 1 10 AGGREGATE MAX
      ZRANGE dst 0 -1 WITHSCORES
      ZDIFFSTORE dst 2 a b
      ZRANGE dst 0 -1 WITHSCORES
      ZINTERSTORE dst 3 a b s
      ZRANGE dst 0 -1 WITHSCORES
      ZUNIONSTORE dst 1 s
      ZRANGE dst 0 -1 WITHSCORES
      ZINTERSTORE dst 2 a nokey
      EXISTS dst
      ZINTERSTORE dst 2 a nokey
      ZDIFFSTORE dst 2 a a
      ZUNIONSTORE dst 1 nokey
      EXISTS dst
      ZUNIONSTORE a 2 a b
      ZRANGE a 0 -1 WITHSCORES
      ZDIFFSTORE a 2 a b
      ZRANGE a 0 -1 WITHSCORES
      HSET h f v
      ZINTERSTORE h 2 b b
      TYPE h
      ZRANGE h 0 -1 WITHSCORES
      ZADD long 1 ${'m'.repeat(65)} 2 short
      ZUNIONSTORE l 1 long
      OBJECT ENCODING l
      ZDIFFSTORE l 2 long nokey
      OBJECT ENCODING l
      ZADD many ${range(129, (i) => `${i} m${i}`).join(' ').split(' ')}
      ZUNIONSTORE m 1 many
      OBJECT ENCODING m
      ZINTERSTORE m 1 many
      OBJECT ENCODING m
      ZUNIONSTORE m2 2 many a
      OBJECT ENCODING m2
      ZCARD m2
      ZREMRANGEBYRANK many 0 1
      ZINTERSTORE m 1 many
      OBJECT ENCODING m
      ZDIFFSTORE m 2 many nokey
      OBJECT ENCODING m
      ZUNIONSTORE m 1 s
      OBJECT ENCODING m
    `,
  },
  {
    name: 'zset-max-listpack-entries / -value decide the encoding of stored results (restored after)',
    steps: cli`
      CONFIG SET zset-max-listpack-entries 3
      CONFIG SET zset-max-listpack-value 5
      ZADD a 1 x 2 y 3 z
      ZADD b 4 y 5 z 6 w
      ZUNIONSTORE u 2 a b
      OBJECT ENCODING u
      ZINTERSTORE i 2 a b
      OBJECT ENCODING i
      ZRANGESTORE r u 0 -1
      OBJECT ENCODING r
      ZRANGESTORE r u 0 2
      OBJECT ENCODING r
      ZRANGESTORE r u -inf +inf BYSCORE
      OBJECT ENCODING r
      ZRANGESTORE r u -inf +inf BYSCORE LIMIT 0 3
      OBJECT ENCODING r
      ZADD c 1 abcdef 2 x
      ZUNIONSTORE u 1 c
      OBJECT ENCODING u
      ZRANGESTORE r c 1 1
      OBJECT ENCODING r
      ZADD zero 0 a 0 b
      ZUNIONSTORE u 1 zero WEIGHTS -1
      OBJECT ENCODING u
      ZRANGE u 0 -1 WITHSCORES
      CONFIG SET zset-max-listpack-entries 0
      ZUNIONSTORE u 1 zero WEIGHTS -1
      OBJECT ENCODING u
      ZRANGE u 0 -1 WITHSCORES
      ZRANGESTORE r u 0 -1
      OBJECT ENCODING r
      ZRANGE r 0 -1 WITHSCORES
      ZRANGESTORE r u - + BYLEX
      OBJECT ENCODING r
      ZRANGE r 0 -1 WITHSCORES
      CONFIG SET zset-max-listpack-entries 128
      CONFIG SET zset-max-listpack-value 64
      ZUNIONSTORE u 1 zero
      OBJECT ENCODING u
    `,
  },
  {
    name: 'ZINTERCARD: LIMIT, sets, missing keys, errors',
    steps: cli`
      ZADD a 1 x 2 y 3 z 4 q
      ZADD b 4 y 5 z 6 w 7 x
      SADD s y z
      ZINTERCARD 2 a b
      ZINTERCARD 3 a b s
      ZINTERCARD 2 a nokey
      ZINTERCARD 1 a
      ZINTERCARD 1 a LIMIT 2
      ZINTERCARD 1 a LIMIT 0
      ZINTERCARD 2 a b LIMIT 100
      ZINTERCARD 2 a a limit 1
      ZINTERCARD 1 a LIMIT
      ZINTERCARD 1 a LIMIT -1
      ZINTERCARD 1 a LIMIT x
      ZINTERCARD 1 a LIMIT 9223372036854775807
      ZINTERCARD 1 a LIMIT 1 LIMIT 2
      ZINTERCARD 0 a
      ZINTERCARD -1 a
      ZINTERCARD x a
      ZINTERCARD 3 a b
      SET str v
      ZINTERCARD 2 a str
      ZINTERCARD 2 nokey str
      ZINTERCARD 2 a str LIMIT -1
    `,
  },
  {
    name: 'ZRANGESTORE: by rank, BYSCORE, BYLEX, REV, LIMIT, missing source, errors',
    steps: cli`
      ZADD z 1 a 2 b 3 c 4 d 5 e
      ZADD lex 0 a 0 b 0 c 0 d
      ZRANGESTORE d z 0 -1
      ZRANGE d 0 -1 WITHSCORES
      ZRANGESTORE d z 1 2 REV
      ZRANGE d 0 -1 WITHSCORES
      ZRANGESTORE d z -2 -1
      ZRANGE d 0 -1 WITHSCORES
      ZRANGESTORE d z (1 4 BYSCORE
      ZRANGE d 0 -1 WITHSCORES
      ZRANGESTORE d z 4 (1 BYSCORE REV LIMIT 1 2
      ZRANGE d 0 -1 WITHSCORES
      ZRANGESTORE d z -inf +inf BYSCORE LIMIT 2 -1
      ZRANGE d 0 -1 WITHSCORES
      ZRANGESTORE d lex [b + BYLEX
      ZRANGE d 0 -1 WITHSCORES
      ZRANGESTORE d lex + (b BYLEX REV LIMIT 0 1
      ZRANGE d 0 -1 WITHSCORES
      ZRANGESTORE d z 5 10
      EXISTS d
      ZRANGESTORE d z 2 1
      ZRANGESTORE d nokey 0 -1
      ZRANGESTORE d z 0 -1
      ZRANGESTORE d z 10 20 BYSCORE
      EXISTS d
      ZRANGESTORE d z 0 -1 WITHSCORES
      ZRANGESTORE d z 0 -1 LIMIT 0 1
      ZRANGESTORE d z x 1
      ZRANGESTORE d z x 1 BYSCORE
      ZRANGESTORE d z a b BYLEX
      ZRANGESTORE d z 0 1 BYSCORE BYLEX
      ZRANGESTORE d z 0 1 REV REV
      ZRANGESTORE d z 0 1 LIMIT 0
      SET str v
      ZRANGESTORE d str 0 -1
      ZRANGESTORE str z 0 0
      TYPE str
      ZRANGE str 0 -1 WITHSCORES
      ZRANGESTORE z z 1 2
      ZRANGE z 0 -1 WITHSCORES
      ZRANGESTORE d z
    `,
  },
  {
    name: 'ZRANDMEMBER: no count, counts (0, positive, negative, whole set), WITHSCORES, errors',
    steps: cli`
      ZRANDMEMBER nokey
      ZRANDMEMBER nokey 5
      ZRANDMEMBER nokey -5 WITHSCORES
      ZRANDMEMBER nokey 0
      ZADD one 5 m
      ZRANDMEMBER one
      ZRANDMEMBER one 1
      ZRANDMEMBER one 1 WITHSCORES
      ZRANDMEMBER one -3
      ZRANDMEMBER one -3 WITHSCORES
      ZRANDMEMBER one 10 withscores
      ZADD z 1 a 2 b 3 c -inf lo 1.5 half
      ZRANDMEMBER z 5
      ZRANDMEMBER z 100 WITHSCORES
      ZRANDMEMBER z 0
      ZRANDMEMBER z 0 WITHSCORES
      ZRANDMEMBER z  => ${shape}
      ZRANDMEMBER z 2  => ${shape}
      ZRANDMEMBER z 4 WITHSCORES  => ${shape}
      ZRANDMEMBER z -7  => ${shape}
      ZRANDMEMBER z -7 WITHSCORES  => ${shape}
      ZRANDMEMBER z 9223372036854775807
      ZRANDMEMBER z 9223372036854775807 WITHSCORES
      ZRANDMEMBER z -4611686018427387904 WITHSCORES
      ZRANDMEMBER z 4611686018427387903 WITHSCORES
      ZRANDMEMBER z -9223372036854775808
      ZRANDMEMBER z -9223372036854775808 WITHSCORES
      ZRANDMEMBER nokey -9223372036854775808
      ZRANDMEMBER z 9223372036854775808
      ZRANDMEMBER z x
      ZRANDMEMBER z 1 FOO
      ZRANDMEMBER z 1 WITHSCORES x
      ZRANDMEMBER z x FOO
      ZRANDMEMBER nokey 1 FOO
      SET str v
      ZRANDMEMBER str
      ZRANDMEMBER str 2
      ZRANDMEMBER str 0
      ZRANDMEMBER str 2 FOO
      ZADD big ${range(200, (i) => `${i} m${i}`).join(' ').split(' ')}
      ZRANDMEMBER big 5  => ${shape}
      ZRANDMEMBER big 150 WITHSCORES  => ${shape}
      ZRANDMEMBER big 200 WITHSCORES
      ZRANDMEMBER big -300  => ${shape}
    `,
  },
  {
    name: 'ZMPOP: MIN / MAX, COUNT, the first existing key, deletion, errors in Redis order',
    steps: cli`
      ZADD a 1 x 2 y 3 z
      ZADD b 10 p 20 q
      ZMPOP 1 a MIN
      ZMPOP 1 a max COUNT 1
      ZMPOP 3 nokey b a MIN COUNT 10
      EXISTS b
      ZMPOP 2 nokey a MAX COUNT 5
      EXISTS a
      ZMPOP 1 a MIN
      ZMPOP 2 nokey nokey2 MAX
      SET str v
      ZADD c 1 m
      ZMPOP 2 str c MIN
      ZMPOP 2 c str MIN
      ZMPOP 2 nokey str MIN
      ZMPOP 0 a MIN
      ZMPOP -1 a MIN
      ZMPOP x a MIN
      ZMPOP 2 a MIN
      ZMPOP 1 a
      ZMPOP 1 a LEFT
      ZMPOP 1 a MIN COUNT
      ZMPOP 1 a MIN COUNT 0
      ZMPOP 1 a MIN COUNT -1
      ZMPOP 1 a MIN COUNT x
      ZMPOP 1 a MIN COUNT 1 COUNT 2
      ZMPOP 1 a MIN FOO
      ZMPOP 1 c MIN COUNT 9223372036854775807
      ZMPOP 1 nokey MIN COUNT 9223372036854775808
      ZMPOP 1
      ZMPOP
    `,
  },
  {
    name: 'BZMPOP without blocking: served at once, errors before the timeout, MULTI replies a null array',
    steps: cli`
      ZADD a 1 x 2 y 3 z
      BZMPOP 0 1 a MIN
      BZMPOP 0.01 2 nokey a MAX COUNT 5
      EXISTS a
      BZMPOP 0.01 1 a MIN
      BZMPOP 0.01 2 a nokey MAX COUNT 2
      BZMPOP x 1 a MIN
      BZMPOP -1 1 a MIN
      BZMPOP x 0 a MIN
      BZMPOP x 1 a FOO
      BZMPOP x 1 a MIN COUNT 0
      BZMPOP 0 2 a MIN
      BZMPOP 0 1 a
      SET str v
      BZMPOP 0 1 str MIN
      BZMPOP x 1 str MIN
      MULTI
      BZMPOP 0 1 a MIN
      ZADD a 5 m 6 n
      BZMPOP 0 1 a MAX COUNT 5
      BZMPOP 0 2 nokey a MIN
      EXEC
      BZMPOP 0
      BZMPOP 0 1 a
    `,
  },
  {
    name: 'COMMAND INFO and GETKEYS of the new sorted-set commands',
    protocols: [2],
    steps: cli`
      COMMAND INFO ZUNION  => commandInfoHead
      COMMAND INFO ZINTER  => commandInfoHead
      COMMAND INFO ZDIFF  => commandInfoHead
      COMMAND INFO ZUNIONSTORE  => commandInfoHead
      COMMAND INFO ZINTERSTORE  => commandInfoHead
      COMMAND INFO ZDIFFSTORE  => commandInfoHead
      COMMAND INFO ZINTERCARD  => commandInfoHead
      COMMAND INFO ZRANGESTORE  => commandInfoHead
      COMMAND INFO ZRANDMEMBER  => commandInfoHead
      COMMAND INFO ZMPOP  => commandInfoHead
      COMMAND INFO BZMPOP  => commandInfoHead
      COMMAND GETKEYS ZUNION 2 a b WEIGHTS 1 2
      COMMAND GETKEYS ZUNIONSTORE d 2 a b
      COMMAND GETKEYS ZDIFFSTORE d 1 a
      COMMAND GETKEYS ZINTERCARD 2 a b LIMIT 1
      COMMAND GETKEYS ZRANGESTORE d s 0 -1
      COMMAND GETKEYS ZMPOP 2 a b MIN
      COMMAND GETKEYS BZMPOP 0 2 a b MIN COUNT 2
    `,
  },
  {
    name: 'ZRANGESTORE BYSCORE/BYLEX with a negative LIMIT offset stores nothing (deletes the destination, replies 0)',
    steps: cli`
      ZADD src 0 a 0 b 0 c
      SET dst x
      ZRANGESTORE dst src + - BYLEX REV LIMIT -1 1
      EXISTS dst
      ZRANGESTORE dst src 0 10 BYSCORE LIMIT -2 5
      ZRANGESTORE dst nosrc 0 10 BYSCORE LIMIT -2 5
    `,
  },
];
