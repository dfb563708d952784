// List commands, compared byte for byte with redis-server 7.0 in RESP2 and RESP3 (errors,
// null shapes and the non-blocking paths of the blocking commands included). Blocking across
// clients is covered by test/commands/lists-blocking.test.ts, as a script here is one client.
import { cli } from './cli.js';
import type { DiffCase } from './case-types.js';

export const cases: DiffCase[] = [
  {
    name: 'LPUSH / RPUSH / LPUSHX / RPUSHX / LLEN / LRANGE',
    steps: cli`
      LPUSH l a b c
      RPUSH l 1 2 007 -0 ""
      LRANGE l 0 -1
      LLEN l
      LPUSHX nokey a
      RPUSHX nokey a b
      EXISTS nokey
      LPUSHX l x y
      RPUSHX l z
      LRANGE l 0 -1
      TYPE l
      LLEN nokey
      LPUSH l
      RPUSH
      LPUSHX l
      LLEN
      LLEN l x
    `,
  },
  {
    name: 'LRANGE index arithmetic',
    steps: cli`
      RPUSH l a b c d e
      LRANGE l 1 3
      LRANGE l -3 -1
      LRANGE l -100 100
      LRANGE l 3 1
      LRANGE l 5 10
      LRANGE l -1 -5
      LRANGE l 0 0
      LRANGE l -9223372036854775808 9223372036854775807
      LRANGE l 0 9223372036854775808
      LRANGE l x 1
      LRANGE l 0 1.5
      LRANGE nokey 0 -1
      LRANGE nokey x -1
      LRANGE l 0
    `,
  },
  {
    name: 'LPOP / RPOP with and without COUNT, null shapes per protocol',
    steps: cli`
      RPUSH l a b c d e
      LPOP l
      RPOP l
      LPOP l 2
      RPOP l 0
      RPOP l 10
      EXISTS l
      LPOP l
      RPOP l
      LPOP l 1
      RPOP l 0
      LPOP l -1
      LPOP l x
      RPUSH l a
      LPOP l -1
      LPOP l 1 2
      RPOP l 9223372036854775807
      LPOP
    `,
  },
  {
    name: 'LINDEX and LSET',
    steps: cli`
      RPUSH l a b c
      LINDEX l 0
      LINDEX l -1
      LINDEX l 3
      LINDEX l -4
      LINDEX l x
      LINDEX nokey x
      LINDEX nokey 0
      LSET l 1 B
      LSET l -1 C
      LSET l 3 x
      LSET l -4 x
      LSET l x x
      LSET nokey 0 x
      LSET nokey x x
      LRANGE l 0 -1
      LSET l 0
    `,
  },
  {
    name: 'LINSERT before and after the first pivot',
    steps: cli`
      RPUSH l a b a
      LINSERT l BEFORE a x
      LINSERT l after a y
      LINSERT l AFTER zz y
      LINSERT l middle a y
      LINSERT nokey BEFORE a x
      LINSERT nokey bad a x
      EXISTS nokey
      LRANGE l 0 -1
      LINSERT l BEFORE a
    `,
  },
  {
    name: 'LREM from the head, from the tail, all',
    steps: cli`
      RPUSH l a b a c a b a
      LREM l 2 a
      LRANGE l 0 -1
      LREM l -1 b
      LRANGE l 0 -1
      LREM l 0 a
      LREM l 0 zz
      LRANGE l 0 -1
      LREM l 0 b
      LREM l 0 c
      EXISTS l
      LREM l 1 a
      LREM l x a
      RPUSH l a a a
      LREM l -9223372036854775808 a
      EXISTS l
    `,
  },
  {
    name: 'LTRIM, deleting the key when nothing is left',
    steps: cli`
      RPUSH l a b c d e
      LTRIM l 1 -2
      LRANGE l 0 -1
      LTRIM l 0 100
      LRANGE l 0 -1
      LTRIM l -2 -1
      LRANGE l 0 -1
      LTRIM l 5 10
      EXISTS l
      LTRIM l 0 1
      LTRIM l x 1
      RPUSH l a b
      LTRIM l 1 0
      EXISTS l
    `,
  },
  {
    name: 'LPOS with RANK, COUNT and MAXLEN',
    steps: cli`
      RPUSH l a b c a b c a
      LPOS l a
      LPOS l c
      LPOS l zz
      LPOS l a RANK 2
      LPOS l a RANK -1
      LPOS l a RANK -2
      LPOS l a RANK 4
      LPOS l a COUNT 0
      LPOS l a COUNT 2
      LPOS l a COUNT 2 RANK 2
      LPOS l a COUNT 0 RANK -1
      LPOS l a COUNT 0 MAXLEN 4
      LPOS l a RANK -1 MAXLEN 1
      LPOS l a RANK -1 MAXLEN 2
      LPOS l zz COUNT 1
      LPOS l a RANK 0
      LPOS l a RANK x
      LPOS l a COUNT -1
      LPOS l a COUNT x
      LPOS l a MAXLEN -1
      LPOS l a MAXLEN x
      LPOS l a RANK
      LPOS l a BAD 1
      LPOS l a RANK -9223372036854775808
      LPOS l a RANK -9223372036854775808 COUNT 2
      LPOS l a RANK 9223372036854775807 COUNT 2
      LPOS nokey a
      LPOS nokey a COUNT 1
      LPOS nokey a RANK 0
    `,
  },
  {
    name: 'LMOVE and RPOPLPUSH, including a list onto itself',
    steps: cli`
      RPUSH src a b c
      LMOVE src dst LEFT RIGHT
      LMOVE src dst right left
      LRANGE dst 0 -1
      RPOPLPUSH src dst
      EXISTS src
      LRANGE dst 0 -1
      LMOVE src dst LEFT LEFT
      RPOPLPUSH src dst
      LMOVE dst dst LEFT RIGHT
      RPOPLPUSH dst dst
      LRANGE dst 0 -1
      RPUSH one x
      LMOVE one one LEFT LEFT
      LRANGE one 0 -1
      LMOVE src dst UP LEFT
      LMOVE dst src LEFT DOWN
      SET str v
      LMOVE dst str LEFT LEFT
      RPOPLPUSH dst str
      LMOVE str dst LEFT LEFT
      LMOVE nokey str LEFT LEFT
      LRANGE dst 0 -1
      LMOVE src dst LEFT
    `,
  },
  {
    name: 'LMPOP: numkeys, direction and COUNT parsing, the first non-empty list',
    steps: cli`
      RPUSH b 1 2 3
      RPUSH c x
      LMPOP 3 a b c LEFT
      LMPOP 3 a b c RIGHT COUNT 5
      LMPOP 3 a b c left count 1
      LMPOP 3 a b c LEFT
      EXISTS b c
      LMPOP 0 a LEFT
      LMPOP -1 a LEFT
      LMPOP x a LEFT
      LMPOP 2 a LEFT
      LMPOP 5 a LEFT
      LMPOP 9223372036854775807 a LEFT
      LMPOP 1 a MIDDLE
      LMPOP 1 a LEFT COUNT
      LMPOP 1 a LEFT COUNT 0
      LMPOP 1 a LEFT COUNT -1
      LMPOP 1 a LEFT COUNT x
      LMPOP 1 a LEFT COUNT 1 COUNT 1
      LMPOP 1 a LEFT BAD
      SET s v
      LMPOP 2 a s LEFT
      RPUSH a z
      LMPOP 2 a s LEFT
      LMPOP 1 a
    `,
  },
  {
    name: 'BLPOP / BRPOP / BLMPOP with data present, never blocking',
    steps: cli`
      RPUSH b 1 2 3
      BLPOP a b 0
      BRPOP a b 1
      BLPOP b b 0
      EXISTS b
      RPUSH b 1 2 3
      BLMPOP 0 2 a b RIGHT COUNT 2
      BLMPOP 0.5 2 a b LEFT COUNT 9
      RPUSH a x
      BLMPOP 0 2 a b LEFT
      SET s v
      BLPOP s a 0
      RPUSH a x
      BLPOP a s 0
      BLMPOP 0 1 s LEFT
    `,
  },
  {
    name: 'blocking pops time out with the null of each reply shape',
    steps: cli`
      BLPOP a 0.01
      BRPOP a b 0.01
      BLMOVE a b LEFT RIGHT 0.01
      BRPOPLPUSH a b 0.01
      BLMPOP 0.01 1 a LEFT
      BLPOP a 1e-5
      BLPOP a 0x1p-8
      EXISTS a b
    `,
  },
  {
    name: 'blocking timeouts parsed as Redis does',
    steps: cli`
      BLPOP a x
      BLPOP a -1
      BLPOP a -0.5
      BLPOP a inf
      BLPOP a -inf
      BLPOP a nan
      BLPOP a " 1"
      BLPOP a 1e20
      BLPOP a 9223372036854775807
      BLPOP a 9223372036854776
      BLPOP a ""
      BRPOP a 1.2.3
      BLMOVE a b LEFT RIGHT -1
      BLMOVE a b LEFT BAD -1
      BLMOVE a b LEFT RIGHT x
      BRPOPLPUSH a b -1
      BLMPOP -1 1 a LEFT
      BLMPOP x 0 a LEFT
      BLMPOP x 1 a BAD
      BLMPOP x 1 a LEFT
      RPUSH a v
      BLPOP a -1
      BLPOP a x
      BLPOP a
      BLMOVE a b LEFT RIGHT
      BLMPOP 0 1 a
    `,
  },
  {
    name: 'BLMOVE / BRPOPLPUSH with data present, WRONGTYPE destinations',
    steps: cli`
      RPUSH src a b c
      BLMOVE src dst LEFT RIGHT 0
      BRPOPLPUSH src dst 0
      BLMOVE src src RIGHT LEFT 0
      LRANGE dst 0 -1
      LRANGE src 0 -1
      SET str v
      BLMOVE src str LEFT RIGHT 0
      BRPOPLPUSH str dst 0
      BLMOVE nokey str LEFT RIGHT 0.01
      LRANGE src 0 -1
    `,
  },
  {
    name: 'inside MULTI the blocking commands act as if timed out',
    steps: cli`
      MULTI
      BLPOP a 0
      BRPOP a 0
      BLMOVE a b LEFT LEFT 0
      BRPOPLPUSH a b 0
      BLMPOP 0 1 a LEFT
      RPUSH a x y z
      BLPOP a 0
      BLMOVE a b LEFT LEFT 0
      BLMPOP 0 1 a LEFT COUNT 3
      BLPOP a -1
      EXEC
      LRANGE b 0 -1
    `,
  },
  {
    name: 'WRONGTYPE from every list command; lists refused by other types',
    steps: cli`
      SET s v
      LPUSH s a
      RPUSH s a
      LPUSHX s a
      RPUSHX s a
      LPOP s
      RPOP s 2
      LLEN s
      LRANGE s 0 -1
      LINDEX s 0
      LINDEX s x
      LSET s 0 x
      LSET s x x
      LINSERT s BEFORE a b
      LREM s 0 a
      LTRIM s 0 1
      LPOS s a
      LMOVE s d LEFT LEFT
      RPOPLPUSH s d
      LMPOP 1 s LEFT
      BLPOP s 0
      BRPOP s 0
      BLMOVE s d LEFT LEFT 0
      BRPOPLPUSH s d 0
      BLMPOP 0 1 s LEFT
      RPUSH l a
      GET l
      HSET l f v
      SADD l m
      XADD l * f v
      INCR l
      APPEND l x
      TYPE l
    `,
  },
  {
    name: 'keyspace commands on lists: RENAME, EXPIRE, SCAN TYPE, COPY-free moves',
    steps: cli`
      RPUSH l a b
      RENAME l m
      LRANGE m 0 -1
      EXPIRE m 1000
      TTL m  => positive
      RPUSH m c
      TTL m  => positive
      LPOP m 3
      TTL m
      RPUSH x 1
      SET str v
      SCAN 0 COUNT 100 TYPE list  => scanReply
      SET x v
      TYPE x
      DEL m x
      RPUSH p a
      PEXPIRE p 1
      @sleep 20
      LLEN p
      EXISTS p
    `,
  },
  {
    name: 'a long list across many chunks keeps order under pushes, pops, inserts and removals',
    steps: cli`
      RPUSH l ${Array.from({ length: 300 }, (_, i) => String(i))}
      LPUSH l ${Array.from({ length: 200 }, (_, i) => `h${i}`)}
      LINDEX l 250
      LINDEX l -250
      LINSERT l BEFORE 150 mid
      LSET l 400 set
      LREM l 0 h7
      LPOS l mid
      LRANGE l 190 210
      LPOP l 130
      RPOP l 140
      LTRIM l 10 -10
      LRANGE l 0 -1
      LLEN l
    `,
  },
];

const listCommands =
  'lpush rpush lpushx rpushx lpop rpop llen lrange lindex lset linsert lrem ltrim lpos lmove rpoplpush lmpop blpop brpop blmove brpoplpush blmpop';

cases.push({
  name: 'COMMAND INFO: arity, flags, key positions and ACL categories of the list commands',
  steps: listCommands.split(' ').map((name) => ({ argv: ['COMMAND', 'INFO', name], mask: 'commandInfoHead' as const })),
});

cases.push({
  name: 'COMMAND GETKEYS of the list commands with movable keys',
  steps: cli`
    COMMAND GETKEYS LMPOP 2 a b LEFT
    COMMAND GETKEYS BLMPOP 0 2 a b RIGHT COUNT 3
    COMMAND GETKEYS BLPOP a b 0
    COMMAND GETKEYS BLMOVE a b LEFT LEFT 0
  `,
});

// Which list commands touch a WATCHed key (EXEC replies null exactly when Redis signalled it).
const touchProbes: Array<[string[][], string[]]> = [
  [[], ['LPUSHX', 'k', 'a']],
  [[['RPUSH', 'k', 'a', 'b']], ['LTRIM', 'k', '0', '-1']],
  [[['RPUSH', 'k', 'a', 'b']], ['LTRIM', 'k', '0', '0']],
  [[['RPUSH', 'k', 'a', 'b']], ['LREM', 'k', '0', 'zz']],
  [[['RPUSH', 'k', 'a', 'b']], ['LINSERT', 'k', 'BEFORE', 'zz', 'x']],
  [[['RPUSH', 'k', 'a', 'b']], ['LSET', 'k', '5', 'x']],
  [[['RPUSH', 'k', 'a', 'b']], ['LPOP', 'k', '0']],
  [[['RPUSH', 'k', 'a', 'b']], ['LMOVE', 'k', 'other', 'LEFT', 'LEFT']],
  [[['RPUSH', 'other', 'a']], ['LMOVE', 'other', 'k', 'LEFT', 'LEFT']],
  [[['RPUSH', 'k', 'a']], ['LMPOP', '1', 'k', 'LEFT']],
];

cases.push({
  name: 'list commands and WATCH',
  steps: touchProbes.flatMap(([setup, cmd]) => [
    ['FLUSHALL'],
    ...setup,
    ['WATCH', 'k'],
    cmd,
    ['MULTI'],
    ['PING'],
    ['EXEC'],
  ]),
});
