// GETSET, SUBSTR, LCS, TOUCH, COPY and MOVE, compared byte for byte with redis-server.
import { cli } from './cli.js';
import { type DiffCase, Rng } from './case-types.js';

/** Two random strings over a small alphabet (so they share long subsequences), for LCS. */
function lcsPairs(seed: number, n: number): string[][] {
  const rng = new Rng(seed);
  const steps: string[][] = [];
  const word = (): string => Array.from({ length: rng.int(30) }, () => rng.pick(['a', 'b', 'c', 'd'])).join('');
  for (let i = 0; i < n; i++) {
    steps.push(['MSET', 'x', word(), 'y', word()]);
    steps.push(['LCS', 'x', 'y']);
    steps.push(['LCS', 'x', 'y', 'LEN']);
    steps.push(['LCS', 'x', 'y', 'IDX', 'WITHMATCHLEN']);
    steps.push(['LCS', 'y', 'x', 'IDX', 'MINMATCHLEN', String(rng.int(4))]);
  }
  return steps;
}

export const cases: DiffCase[] = [
  {
    name: 'GETSET: old value, TTL dropped, WRONGTYPE; SUBSTR as GETRANGE',
    steps: cli`
      GETSET k v1
      GETSET k v2
      SET t v EX 100
      GETSET t w
      TTL t
      HSET h f v
      GETSET h v
      GETSET k
      SET s "Hello World"
      SUBSTR s 0 4
      SUBSTR s -5 -1
      SUBSTR s 5 1
      SUBSTR nokey 0 -1
      SUBSTR s x 1
      SUBSTR h 0 1
    `,
  },
  {
    name: 'LCS: string, LEN, IDX with ranges and match lengths, errors',
    steps: [
      ...cli`
        MSET key1 ohmytext key2 mynewtext
        LCS key1 key2
        LCS key1 key2 LEN
        LCS key1 key2 IDX
        LCS key1 key2 IDX MINMATCHLEN 4
        LCS key1 key2 IDX MINMATCHLEN 4 WITHMATCHLEN
        LCS key1 key2 IDX MINMATCHLEN -3 WITHMATCHLEN
        LCS key1 nokey
        LCS nokey nokey2 IDX
        LCS key1 key2 LEN IDX
        LCS key1 key2 BOGUS
        LCS key1 key2 MINMATCHLEN
        LCS key1 key2 MINMATCHLEN x
        HSET h f v
        LCS key1 h
        LCS h key1 LEN
        LCS key1
        CONFIG SET proto-max-bulk-len 1048576
        SET big1 ${'a'.repeat(600)}
        SET big2 ${'b'.repeat(600)}
        LCS big1 big2
        CONFIG SET proto-max-bulk-len 536870912
      `,
      ...lcsPairs(7, 25),
    ],
  },
  {
    name: 'TOUCH counts existing keys, duplicates too',
    steps: cli`
      MSET a 1 b 2
      TOUCH a b c a
      TOUCH nokey
      TOUCH
    `,
  },
  {
    name: 'COPY: same and other db, REPLACE, expiry kept, every type, errors',
    steps: cli`
      SET s v PX 100000
      COPY s s2
      PTTL s2 => positive
      GET s2
      COPY s s2
      COPY s s2 REPLACE
      COPY s s
      COPY s s DB 0
      COPY s s DB 3
      SELECT 3
      GET s
      SELECT 0
      COPY nokey x
      COPY s x DB 16
      COPY s x DB -1
      COPY s x DB x
      COPY s x DB
      COPY s x BOGUS
      RPUSH l a b c
      COPY l l2
      LRANGE l2 0 -1
      RPUSH l2 d
      LLEN l
      HSET h f v g w
      COPY h h2
      HGETALL h2
      SADD set x y z
      COPY set set2
      SCARD set2
      ZADD z 1 a 2 b
      COPY z z2
      ZRANGE z2 0 -1 WITHSCORES
      XADD st 1-1 f v
      XADD st 2-1 f w
      XGROUP CREATE st g 0
      XREADGROUP GROUP g c COUNT 1 STREAMS st >
      COPY st st2
      XRANGE st2 - +
      XPENDING st2 g
      XINFO GROUPS st2
      XACK st2 g 1-1
      XPENDING st g
      COPY st s REPLACE
      TYPE s
    `,
  },
  {
    name: 'MOVE: to another db with its expiry, existing target, errors',
    steps: cli`
      SET k v EX 1000
      MOVE k 1
      EXISTS k
      SELECT 1
      TTL k
      MOVE k 1
      MOVE k 0
      SELECT 0
      SET k other
      SELECT 1
      MOVE k 0
      GET k
      MOVE nokey 0
      MOVE k 16
      MOVE k x
      MOVE k -1
      SELECT 0
    `,
  },
];
