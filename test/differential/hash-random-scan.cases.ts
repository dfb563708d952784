// HRANDFIELD and HSCAN, compared with redis-server. Random picks are compared where they are
// deterministic (a one-field hash, a count covering a listpack hash, errors) or by shape
// (typeOnly); a hashtable hash's HSCAN through the scanReply mask (opaque cursor, any order).
import { cli } from './cli.js';
import type { DiffCase } from './case-types.js';

const bigHash = ['HSET', 'big', ...Array.from({ length: 300 }, (_, i) => [`f${i}`, `v${i}`]).flat()];

export const cases: DiffCase[] = [
  {
    name: 'HRANDFIELD: single, counts, WITHVALUES (RESP3 pairs), errors',
    steps: cli`
      HRANDFIELD nokey
      HRANDFIELD nokey 5
      HRANDFIELD nokey -5 WITHVALUES
      HRANDFIELD nokey x
      HSET one f v
      HRANDFIELD one
      HRANDFIELD one 1
      HRANDFIELD one -3
      HRANDFIELD one -3 WITHVALUES
      HRANDFIELD one 0
      HSET small a 1 b 2 c 3
      HRANDFIELD small 3
      HRANDFIELD small 10 WITHVALUES
      HRANDFIELD small 2 => typeOnly
      HRANDFIELD small x
      HRANDFIELD small 1 WITHSCORES
      HRANDFIELD small 1 WITHVALUES extra
      HRANDFIELD small -9223372036854775808
      HRANDFIELD small 9223372036854775807 WITHVALUES
      HRANDFIELD small -4611686018427387904 WITHVALUES
      SET s v
      HRANDFIELD s
      HRANDFIELD s 1
      HRANDFIELD s x
    `,
  },
  {
    name: 'HSCAN: a listpack hash whole with cursor 0, MATCH, COUNT, a hashtable hash, errors',
    steps: [
      ...cli`
        HSCAN nokey 0
        HSCAN nokey 0 COUNT 0
        HSET small a 1 b 2 ab 3
        HSCAN small 0
        HSCAN small 0 MATCH a*
        HSCAN small 0 COUNT 1
        HSCAN small 0 COUNT 0
        HSCAN small 0 MATCH
        HSCAN small 0 BOGUS 1
        HSCAN small x
        SET s v
        HSCAN s 0
      `,
      bigHash,
      { argv: ['HSCAN', 'big', '0', 'COUNT', '1000'], mask: 'scanReply' },
      { argv: ['HSCAN', 'big', '0', 'COUNT', '1000', 'MATCH', 'f1?'], mask: 'scanReply' },
    ],
  },
];
