// Hash and set commands, compared byte for byte with redis-server.
import { cli } from './cli.js';
import type { DiffCase } from './case-types.js';

export const cases: DiffCase[] = [
  {
    name: 'HSET / HMSET / HSETNX / HGET / HMGET / HGETALL in insertion order',
    steps: cli`
      HSET h b 2 a 1
      HSET h b 20 c 3
      HGETALL h
      HKEYS h
      HVALS h
      HMSET h d 4
      HSETNX h a x
      HSETNX h e 5
      HGET h a
      HGET h nofield
      HGET nokey a
      HMGET h a nofield e
      HMGET nokey a b
      HGETALL nokey
      HKEYS nokey
      HSET h a
      HSET h a 1 b
      HMSET h a 1 b
      HSET h
      HLEN h
      HLEN nokey
      HSTRLEN h b
      HSTRLEN h nofield
      HEXISTS h a
      HEXISTS h zz
      HEXISTS nokey a
    `,
  },
  {
    name: 'HDEL removes the key with its last field',
    steps: cli`
      HSET h a 1 b 2
      HDEL h a a zz
      HDEL nokey a
      HSET h a 1
      HGETALL h
      HDEL h a b
      EXISTS h
      HDEL h
    `,
  },
  {
    name: 'HINCRBY and HINCRBYFLOAT',
    steps: cli`
      HINCRBY h n 5
      HINCRBY h n -7
      HINCRBY h n x
      HSET h big 9223372036854775807 s str sp " 1"
      HINCRBY h big 1
      HINCRBY h s 1
      HINCRBY h sp 1
      HINCRBYFLOAT h f 0.1
      HINCRBYFLOAT h f 0.2
      HINCRBYFLOAT h n 1.5e3
      HINCRBYFLOAT h s 1
      HINCRBYFLOAT h f inf
      HINCRBYFLOAT h f x
      HINCRBYFLOAT h big 1
      HGETALL h
      HINCRBYFLOAT new f -inf
      EXISTS new
    `,
  },
  {
    name: 'WRONGTYPE from every hash command',
    steps: cli`
      SET s v
      HSET s f v
      HSETNX s f v
      HGET s f
      HMGET s f
      HGETALL s
      HDEL s f
      HLEN s
      HEXISTS s f
      HKEYS s
      HVALS s
      HINCRBY s f 1
      HINCRBY s f x
      HINCRBYFLOAT s f 1
      HSTRLEN s f
    `,
  },
  {
    name: 'SADD / SREM / SCARD / SISMEMBER / SMISMEMBER',
    steps: cli`
      SADD s a b a
      SADD s b c
      SCARD s
      SCARD nokey
      SISMEMBER s a
      SISMEMBER s zz
      SISMEMBER nokey a
      SMISMEMBER s a zz c
      SMISMEMBER nokey a
      SREM s a a zz
      SREM nokey a
      SREM s b c
      EXISTS s
      SADD s
      SREM s
      SMISMEMBER s
    `,
  },
  {
    name: 'SMEMBERS: integer sets sorted (intset), others masked (hash order)',
    steps: cli`
      SADD ints 10 -3 7 0 9223372036854775807 -9223372036854775808
      SMEMBERS ints
      SADD ints 2
      SMEMBERS ints
      SMEMBERS nokey
      SADD mixed 3 x 1
      SMEMBERS mixed  => sorted
      SREM mixed x
      SMEMBERS mixed  => sorted
      SADD notint 01 1
      SMEMBERS notint  => sorted
    `,
  },
  {
    name: 'WRONGTYPE from every set command',
    steps: cli`
      HSET h f v
      SADD h m
      SREM h m
      SCARD h
      SISMEMBER h m
      SMISMEMBER h m
      SMEMBERS h
    `,
  },
];

const range = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

cases.push(
  {
    name: 'a 512-member integer set is still an intset (sorted); the 513th member makes it a hashtable',
    steps: cli`
      SADD big ${range(512, (i) => String((i * 7919) % 100003))}
      SMEMBERS big
      SCARD big
      SADD big -1
      SMEMBERS big  => sorted
      SREM big -1
      SMEMBERS big  => sorted
    `,
  },
  {
    name: 'large hashes (over 128 fields or a 65-byte value) leave listpack order: masked',
    steps: cli`
      HSET h ${range(128, (i) => [`f${i}`, String(i)]).flat()}
      HGETALL h
      HSET h one-more x
      HGETALL h  => sortedMap
      HKEYS h  => sorted
      HLEN h
      HSET w a 1 b ${'x'.repeat(64)}
      HGETALL w
      HSET w c ${'x'.repeat(65)}
      HGETALL w  => sortedMap
    `,
  },
  {
    name: 'databases are separate; FLUSHALL clears them all',
    steps: cli`
      SET k db0
      SELECT 1
      GET k
      HSET k f db1
      DBSIZE
      SELECT 0
      GET k
      FLUSHDB
      SELECT 1
      HGETALL k
      FLUSHALL
      EXISTS k
    `,
  },
  {
    name: 'MULTI / EXEC of keyspace, string, hash and set commands, errors inside included',
    steps: cli`
      MULTI
      SET k 1
      INCR k
      HSET k f v
      SADD s a b
      EXPIRE k 100
      TTL k
      RENAME nokey x
      EXEC
      MULTI
      SET k
      EXEC
    `,
  },
);
