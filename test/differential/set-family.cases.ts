// The rest of Redis 7.0's set family (SPOP, SRANDMEMBER, SMOVE, SINTER / SUNION / SDIFF and
// their STORE forms, SINTERCARD, SSCAN), compared byte for byte with redis-server. Random picks
// are compared by shape only (a mask saying so), and what they leave behind exactly: a set of one
// member, or a count covering the whole set, makes SPOP / SRANDMEMBER deterministic.
import { cli } from './cli.js';
import type { DiffCase } from './case-types.js';
import type { Normaliser } from './normalize.js';
import { scanReply, sorted } from './normalize.js';

/** A random pick: the reply's type and, for an aggregate, how many elements. */
const shape: Normaliser = (frame) => `${frame.type}${frame.children?.length ?? ''}`;

const range = (n: number, f: (i: number) => string): string[] => Array.from({ length: n }, (_, i) => f(i));

export const cases: DiffCase[] = [
  {
    name: 'SPOP: single pops, deletion of the emptied key, null for a missing key',
    steps: cli`
      SADD one x
      SPOP one
      EXISTS one
      SPOP one
      SPOP nokey
      SADD ints 5
      SPOP ints
      SADD s a b c
      SPOP s  => ${shape}
      SCARD s
      SPOP s  => ${shape}
      SPOP s  => ${shape}
      EXISTS s
    `,
  },
  {
    name: 'SPOP with a count: 0, the whole set (intset order), more than the set, errors before lookup',
    steps: cli`
      SADD ints 30 -2 7 1000
      SPOP ints 0
      SCARD ints
      SPOP ints 4
      EXISTS ints
      SADD ints 3 1 2
      SPOP ints 100
      SPOP ints 1
      SPOP nokey 3
      SPOP nokey 0
      SPOP nokey -1
      SPOP nokey x
      SPOP ints -1
      SPOP ints 1.5
      SPOP ints 9223372036854775807
      SPOP ints 9223372036854775808
      SPOP ints 1 2
      SADD s a b c d e f g h i j
      SPOP s 3  => ${shape}
      SCARD s
      SPOP s 6  => ${shape}
      SCARD s
      SPOP s 1  => ${shape}
      EXISTS s
      SADD one m
      SPOP one 1
    `,
  },
  {
    name: 'SRANDMEMBER: single, counts (positive, negative, over the size), errors',
    steps: cli`
      SRANDMEMBER nokey
      SRANDMEMBER nokey 5
      SRANDMEMBER nokey -5
      SRANDMEMBER nokey 0
      SADD one m
      SRANDMEMBER one
      SRANDMEMBER one 1
      SRANDMEMBER one -3
      SRANDMEMBER one 10
      SADD ints 9 -1 4
      SRANDMEMBER ints 3
      SRANDMEMBER ints 100
      SRANDMEMBER ints 9223372036854775807
      SRANDMEMBER ints 0
      SRANDMEMBER ints  => ${shape}
      SRANDMEMBER ints 2  => ${shape}
      SRANDMEMBER ints -7  => ${shape}
      SRANDMEMBER ints 1  => ${shape}
      SRANDMEMBER nokey -9223372036854775808
      SRANDMEMBER ints -9223372036854775808
      SRANDMEMBER ints 9223372036854775808
      SRANDMEMBER ints x
      SRANDMEMBER ints 1 2
      SCARD ints
      SADD big ${range(40, (i) => `m${i}`)}
      SRANDMEMBER big 5  => ${shape}
      SRANDMEMBER big 30  => ${shape}
      SRANDMEMBER big 40  => sorted
      SRANDMEMBER big -50  => ${shape}
    `,
  },
  {
    name: 'SMOVE: moves, creates and deletes keys, same key, missing source, WRONGTYPE',
    steps: cli`
      SADD src a b
      SMOVE src dst a
      SMEMBERS src
      SMEMBERS dst
      SMOVE src dst zz
      SMOVE src dst b
      EXISTS src
      SMEMBERS dst  => sorted
      SADD src a
      SMOVE src dst a
      EXISTS src
      SCARD dst
      SMOVE dst dst a
      SMOVE dst dst zz
      SMOVE nokey dst a
      SET str v
      SMOVE nokey str a
      SMOVE dst str a
      SMOVE str dst a
      SCARD dst
      SADD ints 1 2
      SMOVE ints dst 1
      SMEMBERS ints
      SMOVE ints newints 2
      OBJECT ENCODING newints
      SMOVE dst
    `,
  },
  {
    name: 'SINTER / SUNION / SDIFF on intsets: deterministic order, missing keys, same key twice',
    steps: cli`
      SADD a 1 2 3 4 5
      SADD b 4 5 6 7
      SADD c 5 4 100
      SINTER a b
      SINTER a b c
      SINTER a
      SINTER a a
      SINTER a nokey
      SINTER nokey a
      SUNION a b c
      SUNION a nokey
      SUNION nokey
      SDIFF a b
      SDIFF a b c
      SDIFF b a
      SDIFF a
      SDIFF a nokey
      SDIFF nokey a
      SDIFF a a
      SDIFF a b a
      SINTERCARD 2 a b
      SINTERCARD 3 a b c
      SINTERCARD 2 a nokey
      SINTERCARD 1 a
      SINTERCARD 1 a LIMIT 2
      SINTERCARD 1 a LIMIT 0
      SINTERCARD 1 a LIMIT 100
      SINTERCARD 1 a limit 3
    `,
  },
  {
    name: 'SINTER / SUNION / SDIFF with strings (hashtable order masked), mixed with intsets',
    steps: cli`
      SADD s1 a b c 1 2
      SADD s2 b c d 2 3
      SADD i 1 2 3
      SINTER s1 s2  => sorted
      SINTER s1 i
      SINTER i s1 s2
      SUNION s1 s2  => sorted
      SUNION i s1  => sorted
      SDIFF s1 s2  => sorted
      SDIFF s1 s2 i  => sorted
      SDIFF i s1
      SINTERCARD 2 s1 s2
      SINTERCARD 3 s1 s2 i
    `,
  },
  {
    name: 'STORE forms: overwrite any type, drop the TTL, delete the destination on an empty result',
    steps: cli`
      SADD a 1 2 3
      SADD b 2 3 4
      SET dst v
      EXPIRE dst 100
      SINTERSTORE dst a b
      TYPE dst
      TTL dst
      SMEMBERS dst
      OBJECT ENCODING dst
      SUNIONSTORE dst a b
      SMEMBERS dst
      SDIFFSTORE dst a b
      SMEMBERS dst
      SINTERSTORE dst a nokey
      EXISTS dst
      SINTERSTORE dst a nokey
      SUNIONSTORE dst nokey
      SDIFFSTORE dst a a
      EXISTS dst
      SUNIONSTORE a a b
      SMEMBERS a
      SDIFFSTORE a a b
      SMEMBERS a
      SINTERSTORE b b a
      SMEMBERS b
      SADD w x y
      SUNIONSTORE u w a
      OBJECT ENCODING u
      SMEMBERS u  => sorted
      SDIFFSTORE d u w
      OBJECT ENCODING d
      SMEMBERS d
      HSET h f v
      SINTERSTORE h a a
      TYPE h
    `,
  },
  {
    name: 'WRONGTYPE and argument errors of the algebra commands',
    steps: cli`
      SADD s 1 2
      SET str v
      SINTER s str
      SINTER nokey str
      SINTER str nokey
      SUNION s str
      SDIFF s str
      SDIFF nokey str
      SINTERSTORE dst s str
      SUNIONSTORE dst s str
      SDIFFSTORE dst str s
      EXISTS dst
      SINTERCARD 2 s str
      SINTERCARD 2 nokey str
      SINTERCARD 0 s
      SINTERCARD -1 s
      SINTERCARD x s
      SINTERCARD 3 s str
      SINTERCARD 1 s LIMIT
      SINTERCARD 1 s LIMIT -1
      SINTERCARD 1 s LIMIT x
      SINTERCARD 1 s FOO 1
      SINTERCARD 1 s s
      SINTERCARD 9223372036854775808 s
      SINTER
      SINTERSTORE dst
      SINTERCARD 1
      SPOP
      SPOP str
      SPOP str 1
      SRANDMEMBER str
      SRANDMEMBER str 2
      SSCAN str 0
    `,
  },
  {
    name: 'SSCAN: intsets whole with cursor 0, MATCH / COUNT, errors, hashtable sets',
    steps: cli`
      SADD ints 10 -5 3 42 7
      SSCAN ints 0
      SSCAN ints 123
      SSCAN ints 0 COUNT 1
      SSCAN ints 0 MATCH 4*
      SSCAN ints 0 MATCH *0 COUNT 2
      SSCAN ints 0 COUNT 0
      SSCAN ints 0 COUNT x
      SSCAN ints 0 MATCH
      SSCAN ints 0 FOO bar
      SSCAN ints x
      SSCAN ints -1
      SSCAN nokey 0
      SSCAN nokey 0 COUNT 0
      SSCAN nokey x
      SADD strs a b c hello hallo
      SSCAN strs 0 COUNT 1000  => ${scanReply}
      SSCAN strs 0 MATCH h?llo COUNT 1000  => ${scanReply}
      SSCAN strs 0 MATCH zz* COUNT 1000  => ${scanReply}
    `,
  },
  {
    name: 'RESP shapes: SPOP/SINTER/SUNION/SDIFF count replies are sets, SRANDMEMBER arrays',
    steps: cli`
      SADD ints 1 2 3
      SPOP nokey 2
      SINTER nokey ints
      SUNION nokey
      SDIFF nokey ints
      SRANDMEMBER ints 5
      SRANDMEMBER nokey 5
      SPOP ints 3
      MULTI
      SADD m 1 2
      SPOP m 5
      SMOVE x y z
      SINTERCARD 1 m
      EXEC
    `,
  },
  {
    name: 'COMMAND INFO of the set family',
    protocols: [2],
    steps: cli`
      COMMAND INFO SPOP  => commandInfoHead
      COMMAND INFO SRANDMEMBER  => commandInfoHead
      COMMAND INFO SMOVE  => commandInfoHead
      COMMAND INFO SINTER  => commandInfoHead
      COMMAND INFO SINTERSTORE  => commandInfoHead
      COMMAND INFO SINTERCARD  => commandInfoHead
      COMMAND INFO SUNION  => commandInfoHead
      COMMAND INFO SUNIONSTORE  => commandInfoHead
      COMMAND INFO SDIFF  => commandInfoHead
      COMMAND INFO SDIFFSTORE  => commandInfoHead
      COMMAND INFO SSCAN  => commandInfoHead
      COMMAND GETKEYS SINTERCARD 2 a b LIMIT 1
      COMMAND GETKEYS SINTERSTORE d a b
      COMMAND GETKEYS SMOVE a b m
    `,
  },
];

cases.push({
  name: 'SSCAN of a hashtable set walks it all; a 513-member integer set is a hashtable',
  steps: cli`
    SADD big ${range(513, (i) => String(i * 3))}
    OBJECT ENCODING big
    SSCAN big 0 COUNT 10000  => ${scanReply}
    SINTER big big  => sorted
    SINTERCARD 1 big LIMIT 7
    SPOP big 513  => sorted
    EXISTS big
  `,
});

cases.push({
  name: 'set-max-intset-entries: SADD, SMOVE, the STORE forms and SPOP build intsets up to it (restored to 512)',
  steps: cli`
    CONFIG SET set-max-intset-entries 3
    SADD a 5 1 3
    OBJECT ENCODING a
    SMEMBERS a
    SADD a 2
    OBJECT ENCODING a
    SMEMBERS a  => sorted
    SADD b 9 8 7 6 5
    SINTERSTORE i a b
    OBJECT ENCODING i
    SUNIONSTORE u a b
    OBJECT ENCODING u
    SADD small 4
    SMOVE b small 9
    OBJECT ENCODING small
    SMEMBERS small
    SMOVE b small 8
    OBJECT ENCODING small
    SDIFFSTORE d small a
    OBJECT ENCODING d
    SMEMBERS d  => sorted
    SPOP d 3  => sorted
    CONFIG SET set-max-intset-entries 0
    SADD zero 1
    OBJECT ENCODING zero
    CONFIG SET set-max-intset-entries 512
    SADD back 1
    OBJECT ENCODING back
  `,
});
