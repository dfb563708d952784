// String commands, compared byte for byte with redis-server.
import { cli } from './cli.js';
import { type DiffCase, Rng } from './case-types.js';

export const cases: DiffCase[] = [
  {
    name: 'SET options: NX XX GET KEEPTTL and their conflicts',
    steps: cli`
      SET k v1
      SET k v2 NX
      SET k v2 XX
      SET new v XX
      SET k v3 GET
      SET k v4 NX GET
      SET absent v XX GET
      SET absent v NX GET
      GET k
      SET k v NX XX
      SET k v EX 10 PX 100
      SET k v EX 10 KEEPTTL
      SET k v KEEPTTL EXAT 1
      SET k v EX
      SET k v PERSIST
      SET k v BOGUS
      SET k v EX 10 EX 20
      TTL k
      SET k v KEEPTTL
      TTL k
      SET k v
      TTL k
      HSET h f v
      SET h v GET
      SET h v NX
      SET h v
      TYPE h
      SET k
    `,
  },
  {
    name: 'SET expiry arguments and their errors',
    steps: cli`
      SET k v EX 0
      SET k v EX -1
      SET k v PX 0
      SET k v EX x
      SET k v EX 1.5
      SET k v EX 9223372036854775807
      SET k v PX 9223372036854775807
      SET k v EXAT 0
      SET k v PXAT -5
      SET k v EX 100
      TTL k
      SET k v PX 100000
      TTL k
      SET k v EXAT 4000000000
      EXPIRETIME k
      SET k v PXAT 4000000000123
      PEXPIRETIME k
      SET past v PXAT 1
      GET past
      EXISTS past
    `,
  },
  {
    name: 'SETNX, SETEX, PSETEX, GETDEL',
    steps: cli`
      SETNX k 1
      SETNX k 2
      GET k
      SETEX k 100 v
      TTL k
      SETEX k 0 v
      SETEX k -1 v
      SETEX k x v
      PSETEX k 0 v
      PSETEX k 100000 v
      TTL k
      GETDEL k
      GETDEL k
      HSET h f v
      GETDEL h
      SETNX h v
      SETEX h 10 v
      TYPE h
    `,
  },
  {
    name: 'GETEX options',
    steps: cli`
      GETEX nokey
      GETEX nokey EX 0
      SET k v
      GETEX k
      GETEX k EX 100
      TTL k
      GETEX k PERSIST
      TTL k
      GETEX k PX 200000
      TTL k
      GETEX k EXAT 4000000000
      EXPIRETIME k
      GETEX k EX 0
      GETEX k EX x
      GETEX k EX
      GETEX k EX 10 PERSIST
      GETEX k PERSIST EX 10
      GETEX k KEEPTTL
      GETEX k NX
      GETEX k PXAT 1
      EXISTS k
      HSET h f v
      GETEX h
      GETEX h EX 0
    `,
  },
  {
    name: 'MGET, MSET, MSETNX',
    steps: cli`
      MSET a 1 b 2
      HSET h f v
      MGET a b nokey h
      MSET a
      MSET a 1 b
      MSETNX a 9 c 3
      MGET a c
      MSETNX c 3 d 4
      MGET c d
      MSETNX e 1 e 2
      GET e
      MSETNX x
      MSET h now-a-string
      TYPE h
    `,
  },
  {
    name: 'INCR family: parsing, overflow, TTL kept',
    steps: cli`
      INCR n
      INCRBY n 10
      DECR n
      DECRBY n -5
      INCRBY n -100
      SET n 9223372036854775806
      INCR n
      INCR n
      SET n -9223372036854775808
      DECR n
      DECRBY n -9223372036854775808
      INCRBY n 9223372036854775808
      INCRBY n x
      SET n " 1"
      INCR n
      SET n 01
      INCR n
      SET n +1
      INCR n
      SET n -0
      INCR n
      SET n 1.0
      INCR n
      SET n 5 EX 100
      INCR n
      TTL n
      HSET h f v
      INCR h
      INCRBY h x
    `,
  },
  {
    name: 'INCRBYFLOAT: long double arithmetic and formatting',
    steps: cli`
      INCRBYFLOAT f 0.1
      INCRBYFLOAT f 0.2
      SET f 10.50
      INCRBYFLOAT f 0.1
      INCRBYFLOAT f -5
      SET f 5.0e3
      INCRBYFLOAT f 2.0e2
      SET f 1000.1
      INCRBYFLOAT f 0.1
      INCRBYFLOAT f 1e300
      SET f 3
      INCRBYFLOAT f -3
      INCRBYFLOAT f -0.000001
      INCRBYFLOAT f .5
      INCRBYFLOAT f 5.
      INCRBYFLOAT f 1.5e-7
      INCRBYFLOAT f inf
      INCRBYFLOAT f nan
      INCRBYFLOAT f abc
      INCRBYFLOAT f ""
      INCRBYFLOAT f " 1"
      SET f abc
      INCRBYFLOAT f 1
      SET f 1 EX 100
      INCRBYFLOAT f 1
      TTL f
      SADD s m
      INCRBYFLOAT s 1
    `,
  },
  {
    name: 'APPEND, STRLEN, GETRANGE, SETRANGE',
    steps: cli`
      APPEND k Hello
      APPEND k " World"
      STRLEN k
      STRLEN nokey
      GETRANGE k 0 4
      GETRANGE k -5 -1
      GETRANGE k -1 -5
      GETRANGE k 5 1
      GETRANGE k 0 100
      GETRANGE k -100 2
      GETRANGE k x 2
      GETRANGE nokey 0 1
      SETRANGE k 6 Redis
      GET k
      SETRANGE pad 5 x
      GET pad
      SETRANGE k -1 x
      SETRANGE empty 3 ""
      EXISTS empty
      SETRANGE k 0 ""
      SET e v EX 100
      APPEND e w
      TTL e
      HSET h f v
      APPEND h x
      STRLEN h
      GETRANGE h 0 1
      SETRANGE h 0 x
    `,
  },
  {
    name: 'binary-safe keys and values',
    steps: cli`
      SET ${'k\u00e9\u0000y'} ${'va\u0000l\r\nue'}
      GET ${'k\u00e9\u0000y'}
      STRLEN ${'k\u00e9\u0000y'}
      KEYS *  => sorted
    `,
  },
];

// A long deterministic walk of INCRBYFLOAT over mixed magnitudes: checks the long double
// emulation (rounding of every sum and the %.17Lf printing) against Redis's x87 arithmetic.
const floatWalk = (() => {
  const rng = new Rng(20240601);
  const steps: string[][] = [];
  for (let i = 0; i < 300; i++) {
    const mantissa = (rng.int(2_000_000) - 1_000_000) / 10 ** rng.int(9);
    const exp = rng.chance(0.2) ? `e${rng.int(40) - 20}` : '';
    steps.push(['INCRBYFLOAT', `f${i % 4}`, `${mantissa}${exp}`]);
  }
  return steps;
})();

cases.push(
  { name: 'INCRBYFLOAT walk over mixed magnitudes (long double emulation)', steps: floatWalk, protocols: [2] },
  {
    name: 'INCRBYFLOAT precision edges',
    protocols: [2],
    steps: cli`
      SET f 3.14159265358979323846264338327950288
      INCRBYFLOAT f 0
      SET f 18446744073709551616
      INCRBYFLOAT f 1
      SET f 9223372036854775807
      INCRBYFLOAT f 0.5
      SET f 1e-20
      INCRBYFLOAT f 1e-20
      SET f -1e-18
      INCRBYFLOAT f 0
      SET f 0.000000000000000005
      INCRBYFLOAT f 0
      SET f 0.000000000000000015
      INCRBYFLOAT f 0
      SET f 1e4000
      INCRBYFLOAT f 1
      SET f 1e5000
      INCRBYFLOAT f 1
      SET f 1e-5000
      INCRBYFLOAT f 1
      SET f 0x10
      INCRBYFLOAT f 1
      INCRBYFLOAT f 0x1.8p-3
      INCRBYFLOAT f -0X.4P2
      INCRBYFLOAT f 0x
      INCRBYFLOAT f 0xg
      SET f Infinity
      INCRBYFLOAT f 1
      SET f 1.18973149535723176502e+4932
      INCRBYFLOAT f 1.18973149535723176502e+4932
    `,
  },
);
