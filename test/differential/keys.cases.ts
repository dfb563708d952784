// Generic keyspace commands, compared byte for byte with redis-server.
import { cli } from './cli.js';
import type { DiffCase } from './case-types.js';
import type { Normaliser } from './normalize.js';

export const cases: DiffCase[] = [
  {
    name: 'SWAPDB exchanges two databases; its argument errors',
    steps: cli`
      SET k in-0
      RPUSH l a b
      PEXPIRE l 100000
      SELECT 1
      SET other in-1
      SWAPDB 0 1
      GET k
      LRANGE l 0 -1
      EXISTS other
      SELECT 0
      GET other
      EXISTS k l
      SWAPDB 0 0
      GET other
      SWAPDB a 1
      SWAPDB 0 b
      SWAPDB a b
      SWAPDB 0 16
      SWAPDB -1 0
      SWAPDB 0
      COMMAND INFO SWAPDB  => commandInfoHead
      SELECT 1
      FLUSHDB
      SELECT 0
    `,
  },
  {
    name: 'SWAPDB touches WATCHed keys that exist on either side (EXEC aborted); a key missing from both is untouched',
    steps: cli`
      FLUSHALL
      SET x 30
      WATCH x
      SWAPDB 0 1
      MULTI
      PING
      EXEC
      FLUSHALL
      SELECT 1
      SET x 30
      SELECT 0
      WATCH x
      SWAPDB 0 1
      MULTI
      PING
      EXEC
      FLUSHALL
      WATCH nowhere
      SWAPDB 0 1
      MULTI
      PING
      EXEC
      FLUSHALL
    `,
  },
  {
    name: 'DEL, UNLINK, EXISTS count keys (duplicates included for EXISTS)',
    steps: cli`
      MSET a 1 b 2 c 3
      EXISTS a a b nokey
      DEL a a nokey
      UNLINK b c
      EXISTS a b c
      DEL
      DBSIZE
    `,
  },
  {
    name: 'TYPE of every kind',
    steps: cli`
      SET s v
      HSET h f v
      SADD z m
      TYPE s
      TYPE h
      TYPE z
      TYPE none
      TYPE
    `,
  },
  {
    name: 'KEYS patterns (order masked: Redis replies in hash order)',
    steps: cli`
      MSET hello 1 hallo 2 hxllo 3 h*llo 4 other 5
      KEYS *  => sorted
      KEYS h?llo  => sorted
      KEYS h[ae]llo  => sorted
      KEYS h[^e]llo  => sorted
      KEYS h\*llo  => sorted
      KEYS nomatch*
      KEYS other
    `,
  },
  {
    name: 'COMMAND LIST FILTERBY PATTERN and CONFIG GET match as KEYS does, without case',
    steps: cli`
      COMMAND LIST FILTERBY PATTERN x\add  => sorted
      COMMAND LIST FILTERBY PATTERN XA?D  => sorted
      COMMAND LIST FILTERBY PATTERN x[a-c]*m  => sorted
      COMMAND LIST FILTERBY PATTERN config|[gs]et  => sorted
      CONFIG GET Maxmem?ry
      CONFIG GET [M]axmemory
    `,
  },
  {
    name: 'SCAN options and errors',
    steps: cli`
      MSET a1 1 a2 2 b1 3
      HSET hh f v
      SCAN 0 COUNT 1000  => scanReply
      SCAN 0 MATCH a* COUNT 1000  => scanReply
      SCAN 0 TYPE hash COUNT 1000  => scanReply
      SCAN 0 TYPE nosuchtype COUNT 1000  => scanReply
      SCAN abc
      SCAN 0 COUNT 0
      SCAN 0 COUNT x
      SCAN 0 MATCH
      SCAN 0 FOO bar
      SCAN 18446744073709551616
    `,
  },
  {
    name: 'RENAME and RENAMENX keep the TTL and replace any type',
    steps: cli`
      SET src v EX 1000
      HSET dst f v
      RENAME src dst
      TYPE dst
      GET dst
      TTL dst  => positive
      EXISTS src
      RENAME nokey x
      RENAMENX nokey x
      RENAME dst dst
      RENAMENX dst dst
      SET other 1
      RENAMENX dst other
      RENAMENX dst fresh
      GET fresh
    `,
  },
  {
    name: 'FLUSHDB / FLUSHALL arguments',
    steps: cli`
      SET a 1
      FLUSHDB ASYNC
      DBSIZE
      SET a 1
      FLUSHDB sync
      FLUSHDB bogus
      FLUSHDB SYNC ASYNC
      FLUSHALL maybe
      FLUSHALL ASYNC
      FLUSHALL
      DBSIZE
    `,
  },
  {
    name: 'EXPIRE family: NX XX GT LT, errors, past times delete the key',
    steps: cli`
      SET k v
      EXPIRE k 100 XX
      EXPIRE k 100 GT
      EXPIRE k 100 LT
      TTL k  => positive
      EXPIRE k 200 NX
      EXPIRE k 200 GT
      EXPIRE k 50 GT
      EXPIRE k 500 LT
      EXPIRE k 10 lt
      EXPIRE k 10 NX XX
      EXPIRE k 10 GT LT
      EXPIRE k 10 NX GT
      EXPIRE k 10 BOGUS
      EXPIRE k ten
      EXPIRE k 10.5
      EXPIRE k 9223372036854775807
      PEXPIRE k 9223372036854775807
      EXPIREAT k -9223372036854775808
      EXPIRE nokey 10
      EXPIRE nokey 10 BOGUS
      EXPIRE k
      PEXPIRE k 0
      EXISTS k
      SET k v
      EXPIREAT k 1
      GET k
      SET k v
      PEXPIREAT k 1
      EXISTS k
      SET k v
      EXPIRE k -1
      EXISTS k
    `,
  },
  {
    name: 'TTL, PTTL, EXPIRETIME, PEXPIRETIME, PERSIST',
    steps: cli`
      TTL nokey
      PTTL nokey
      EXPIRETIME nokey
      PEXPIRETIME nokey
      SET k v
      TTL k
      PTTL k
      EXPIRETIME k
      PEXPIRETIME k
      PERSIST k
      PERSIST nokey
      EXPIREAT k 4000000000
      EXPIRETIME k
      PEXPIRETIME k
      PEXPIREAT k 4000000000123
      EXPIRETIME k
      PEXPIRETIME k
      EXPIRE k 100
      TTL k
      PTTL k  => positive
      PERSIST k
      TTL k
    `,
  },
  {
    name: 'lazy expiry: a key past its PX is gone for every command',
    steps: cli`
      SET k v PX 1
      HSET h f v
      PEXPIRE h 1
      @sleep 15
      GET k
      EXISTS k h
      TYPE h
      TTL k
      HGET h f
      KEYS *
      RENAME k x
    `,
  },
  {
    name: 'RANDOMKEY (the key itself is random: masked)',
    steps: cli`
      RANDOMKEY
      SET only 1
      RANDOMKEY
      SET two 2
      RANDOMKEY  => typeOnly
    `,
  },
  {
    name: 'arity errors of keyspace commands',
    steps: cli`
      DEL
      EXISTS
      KEYS
      KEYS a b
      SCAN
      RENAME a
      DBSIZE x
      TTL
      PERSIST
      RANDOMKEY x
    `,
  },
];

/** COMMAND INFO without the key specs and tips (owned by COMMAND's implementation, not by the specs). */
const specHead: Normaliser = (frame) => {
  const info = frame.children?.[0];
  if (info?.children === undefined) return frame.raw;
  return info.children.slice(0, 7).map((c) => c.raw.toString('latin1')).join('');
};

const families = [
  'del unlink exists type keys scan rename renamenx dbsize flushdb flushall randomkey expire pexpire expireat pexpireat ttl pttl expiretime pexpiretime persist',
  'get set setnx setex psetex getdel getex mget mset msetnx incr decr incrby decrby incrbyfloat append strlen getrange setrange',
  'hset hmset hsetnx hget hmget hgetall hdel hlen hstrlen hexists hkeys hvals hincrby hincrbyfloat',
  'sadd srem scard sismember smismember smembers',
];

cases.push({
  name: 'COMMAND INFO: arity, flags, key positions and ACL categories of every command here',
  steps: families.flatMap((f) => f.split(' ')).map((name) => ({ argv: ['COMMAND', 'INFO', name], mask: specHead })),
});

// Which commands touch a WATCHed key: a client's own write invalidates its WATCH too, so one
// connection shows it: WATCH, the command, then MULTI/EXEC is null exactly when Redis signalled
// the key as modified. Each pair is [set-up, command under test].
const touchProbes: Array<[string[][], string[]]> = [
  [[['SET', 'k', 'v']], ['DEL', 'k']],
  [[], ['DEL', 'k']],
  [[['SET', 'k', 'v']], ['EXPIRE', 'k', '100']],
  [[['SET', 'k', 'v', 'EX', '100']], ['EXPIRE', 'k', '200', 'NX']],
  [[['SET', 'k', 'v', 'EX', '100']], ['EXPIRE', 'k', '50', 'GT']],
  [[['SET', 'k', 'v']], ['EXPIRE', 'k', '-1']],
  [[['SET', 'k', 'v']], ['PERSIST', 'k']],
  [[['SET', 'k', 'v', 'EX', '100']], ['PERSIST', 'k']],
  [[['SET', 'k', 'v']], ['RENAME', 'k', 'other']],
  [[['SET', 'k', 'v'], ['SET', 'other', 'v']], ['RENAMENX', 'other', 'k']],
  [[['SET', 'k', 'v']], ['RENAME', 'k', 'k']],
  [[['SET', 'k', 'v']], ['SET', 'k', 'v2', 'NX']],
  [[['SET', 'k', 'v']], ['SET', 'k', 'v']],
  [[['SET', 'k', 'v']], ['GETEX', 'k']],
  [[['SET', 'k', 'v']], ['GETEX', 'k', 'PERSIST']],
  [[['SET', 'k', 'v']], ['GETEX', 'k', 'EX', '100']],
  [[['SET', 'k', 'v']], ['MSETNX', 'k', '1', 'z', '2']],
  [[['SET', 'k', '1']], ['INCRBY', 'k', '0']],
  [[['SET', 'k', 'v']], ['APPEND', 'k', '']],
  [[['SET', 'k', 'v']], ['SETRANGE', 'k', '0', '']],
  [[['SET', 'k', 'v']], ['GETDEL', 'k']],
  [[['HSET', 'k', 'f', 'v']], ['HSET', 'k', 'f', 'v']],
  [[['HSET', 'k', 'f', 'v']], ['HSETNX', 'k', 'f', 'x']],
  [[['HSET', 'k', 'f', 'v']], ['HDEL', 'k', 'nofield']],
  [[['HSET', 'k', 'f', 'v']], ['HDEL', 'k', 'f']],
  [[['HSET', 'k', 'f', '1']], ['HINCRBY', 'k', 'f', '0']],
  [[['SADD', 'k', 'a']], ['SADD', 'k', 'a']],
  [[['SADD', 'k', 'a']], ['SREM', 'k', 'b']],
  [[['SADD', 'k', 'a', 'b']], ['SREM', 'k', 'a']],
  [[['SET', 'k', 'v']], ['FLUSHDB']],
  [[], ['FLUSHALL']],
  [[['SET', 'k', 'v']], ['FLUSHALL']],
];

cases.push({
  name: 'WATCH sees exactly the commands that really change a key',
  protocols: [2],
  steps: touchProbes.flatMap(([setup, probe]) => [
    ['FLUSHALL'],
    ...setup,
    ['WATCH', 'k'],
    probe,
    ['MULTI'],
    ['PING'],
    ['EXEC'],
  ]),
});
