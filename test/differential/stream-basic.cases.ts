// Scripted edge cases of the non-group stream commands, compared byte for byte with redis-server.
import { cli } from './cli.js';
import type { DiffCase, Step } from './case-types.js';
import { groupTimes } from './stream-groups.cases.js';

function adds(key: string, from: number, to: number, value: (i: number) => string, fields = ['order_id', 'total']): Step[] {
  const steps: Step[] = [];
  for (let i = from; i <= to; i++) steps.push(['XADD', key, `${i}-0`, fields[0]!, value(i), fields[1]!, String(i * 7)]);
  return steps;
}

/**
 * Node boundaries with ids whose listpack diffs wrap (seq 2^64 - 1 under a master seq of 0 is
 * the int64 -1, a 2-byte element): every stream-node-max-bytes in a range, so a size counted
 * as the 9-byte integer would move a boundary that XINFO's radix-tree-keys shows.
 */
function wrappedDiffBoundaries(): Step[] {
  const steps: Step[] = [];
  for (let maxBytes = 20; maxBytes <= 90; maxBytes++) {
    steps.push(['DEL', 's'], ['CONFIG', 'SET', 'stream-node-max-bytes', String(maxBytes)]);
    for (const id of ['5-0', '5-18446744073709551615', '6-0', '9007199254740993-1', '9007199254740993-9', '18446744073709551615-0']) {
      steps.push(['XADD', 's', id, 'f', 'v']);
    }
    steps.push({ argv: ['XINFO', 'STREAM', 's'], mask: groupTimes });
  }
  steps.push(['CONFIG', 'SET', 'stream-node-max-bytes', '4096']);
  return steps;
}

export const cases: DiffCase[] = [
  {
    name: 'XADD id forms and id errors',
    steps: cli`
      XADD s 1-1 a 1
      XADD s 007-1 a 1
      XADD s " 8-1" a 1
      XADD s +9-1 a 1
      XADD s 10--0 a 1
      XADD s 11-+5 a 1
      XADD s 12 a 1
      XADD s 12-* a 1
      XADD s 0-0 a 1
      XADD s 0-* a 1
      XADD fresh 0-* a 1
      XADD fresh0 0 a 1
      EXISTS fresh0
      XADD s 12-0 a 1
      XADD s foo a 1
      XADD s 5- a 1
      XADD s -5 a 1
      XADD s 5-18446744073709551616 a 1
      XADD s 18446744073709551616 a 1
      XADD s ** a 1
      XADD s - a 1
      XADD s + a 1
      XADD s * a
      XADD s 13-0 a 1 b
      XRANGE s - +
      XADD top 18446744073709551615-18446744073709551615 a 1
      XADD top * a 1
      XADD top 18446744073709551615-* a 1
      XADD top 1-1 a 1
      XADD seqtop 5-18446744073709551615 a 1
      XADD seqtop 5-* a 1
      XADD seqtop 6-* a 1
      XADD clock * a 1  => typeOnly
      XLEN clock
    `,
  },
  {
    name: 'XADD MAXLEN ~ count * (the capped form read in place) and its near misses',
    steps: cli`
      CONFIG SET stream-node-max-entries 2
      XADD c MAXLEN ~ 3 * a 1  => typeOnly
      XADD c MAXLEN ~ 3 * a 2  => typeOnly
      XADD c MAXLEN ~ 3 * a 3  => typeOnly
      XADD c MAXLEN ~ 3 * a 4  => typeOnly
      XADD c MAXLEN ~ 3 * a 5  => typeOnly
      XADD c MAXLEN ~ 3 * a 6  => typeOnly
      XADD c MAXLEN ~ 3 * a 7  => typeOnly
      XLEN c
      XADD c maxlen ~ 3 * b 8 c 9  => typeOnly
      XLEN c
      XADD c MAXLEN ~ 007 * a 1
      XADD c MAXLEN ~ -1 * a 1
      XADD c MAXLEN ~ 99999999999999999999 * a 1
      XADD c MAXLEN ~ 3x * a 1
      XADD c MAXLEN ~ 3 *
      XADD c MAXLEN ~ 3 * a
      XADD c MAXLEN ~ 3 * a 1 b
      XLEN c
      XADD c MAXLEN ~ 1234567890123456 * a 1  => typeOnly
      XADD c MAXLEN ~ 0 * a 1  => typeOnly
      XLEN c
      XADD d MAXLEN ~ 0 * a 1  => typeOnly
      XLEN d
      CONFIG SET stream-node-max-entries 100
    `,
  },
  {
    name: 'XADD options and their errors',
    steps: cli`
      XADD s 1-1 a 1
      XADD s MAXLEN a 1
      XADD s MAXLEN 1 LIMIT 5 2-1 a 1
      XADD s MAXLEN 1 LIMIT 5
      XADD s MAXLEN ~ 1 LIMIT -1 2-1 a 1
      XADD s MAXLEN ~ 1 LIMIT x 2-1 a 1
      XADD s MAXLEN ~ 1 LIMIT
      XADD s MAXLEN ~ 1 LIMIT 5
      XADD s LIMIT 5 2-1 a 1
      XADD s MAXLEN 1 MINID 5 2-1 a 1
      XADD s MAXLEN 5 MAXLEN 4 2-1 a 1
      XADD s MAXLEN -1 2-1 a 1
      XADD s MAXLEN = 2-1 a 1
      XADD s MINID x 2-1 a 1
      XADD s MINID - 2-1 a 1
      XADD s MINID (5 2-1 a 1
      XADD s NOMKSTREAM 2-1 a
      XADD nope NOMKSTREAM 2-1 a 1
      EXISTS nope
      XADD s nomkstream NOMKSTREAM 2-1 a 1
      XADD s maxlen ~ 1 limit 0 3-1 a 1
      XADD s MAXLEN ~ 1 LIMIT 99999999999 4-1 a 1
      XADD s MAXLEN = 1 5-1 a 1
      XRANGE s - +
      XADD s MINID = 7 6-1 a 1
      XRANGE s - +
      SET str x
      XADD str 1-1 a 1
      XADD str 0-0 a 1
    `,
  },
  {
    name: '"~" trimming removes whole 100-entry nodes only',
    steps: [
      ...adds('s', 1, 250, (i) => String(i)),
      ...cli`
        XADD s MAXLEN ~ 120 251-0 f x
        XLEN s
        XTRIM s MAXLEN ~ 0
        XLEN s
        XTRIM s MINID ~ 300
        XLEN s
        XTRIM s MAXLEN = 3
        XRANGE s - +
      `,
    ],
  },
  {
    name: 'node byte limit with large values decides what "~" removes',
    steps: [
      ...adds('big', 1, 60, (i) => 'v'.repeat(100 + ((i * 37) % 400))),
      ...adds('big', 61, 90, (i) => String(i * 100003)),
      ...cli`
        XTRIM big MAXLEN ~ 70
        XLEN big
        XTRIM big MAXLEN ~ 40
        XLEN big
        XTRIM big MAXLEN ~ 10 LIMIT 20
        XLEN big
        XTRIM big MINID ~ 85
        XLEN big
        XRANGE big - + COUNT 3
      `,
    ],
  },
  {
    name: 'XDEL tombstones, freed nodes, MINID trims over them',
    steps: [
      ...adds('d', 1, 150, (i) => String(i)),
      ...cli`
        XDEL d 1-0 2-0 100-0 101-0 150-0 150-0 999-0
        XDEL d x
        XDEL d 3-0 x
        XLEN d
        XTRIM d MINID 50
        XTRIM d MINID ~ 120
        XLEN d
        XRANGE d (98 103 COUNT 3
        XREVRANGE d + - COUNT 2
        XSETID d 140-0
        XSETID d 200-0 MAXDELETEDID 150-0 ENTRIESADDED 500
        XADD d 200-* a 1
      `,
    ],
  },
  {
    name: 'XRANGE and XREVRANGE bounds, COUNT, errors',
    steps: cli`
      XADD s 1-1 f v1
      XADD s 2-1 f v2
      XADD s 3-1 f v3
      XRANGE s - + COUNT 0
      XRANGE s - + COUNT -1
      XRANGE nokey - + COUNT 0
      XRANGE s (1-1 +
      XRANGE s (- +
      XRANGE s - (+
      XRANGE s (18446744073709551615-18446744073709551615 +
      XRANGE s - (0-0
      XRANGE s ( +
      XRANGE s 2 2
      XRANGE s - + COUNT
      XRANGE s - + foo 1
      XRANGE s - + count 1 COUNT 2
      XRANGE s + -
      XREVRANGE s + - COUNT 2
      XREVRANGE s (3 (1
      XREVRANGE s (0-0 -
      XRANGE s (18446744073709551615 +
      XRANGE s - (0
      SET str x
      XRANGE str - +
      XRANGE str x +
      XLEN str
      XLEN nokey
    `,
  },
  {
    name: 'XTRIM arguments',
    steps: cli`
      XADD s 1-1 f v1
      XADD s 2-1 f v2
      XADD s 3-1 f v3
      XTRIM s MAXLEN
      XTRIM s FOO 1
      XTRIM s MAXLEN 1 FOO
      XTRIM nokey MAXLEN 1
      XTRIM nokey MAXLEN x
      XTRIM s LIMIT 5 MAXLEN 1
      XTRIM s MAXLEN ~ 1 LIMIT 5
      XTRIM s NOMKSTREAM MAXLEN 1
      XTRIM s MAXLEN 1 *
      XTRIM s MINID 3
      XTRIM s MAXLEN 0
      XLEN s
      EXISTS s
    `,
  },
  {
    name: 'XREAD without blocking, and BLOCK timeouts',
    steps: cli`
      XADD s 1-1 f v1
      XADD s 2-1 f v2
      XADD s 3-1 f v3
      XREAD STREAMS s
      XREAD STREAMS s 0 x
      xread streams s 0 x
      XREAD COUNT 1 STREAMS s nokey 0 0
      XREAD STREAMS s nokey $ $
      XREAD FOO STREAMS s 0
      XREAD GROUP g c STREAMS s 0
      XREAD COUNT 1 NOACK STREAMS s 0
      xread group g c noack streams s 0
      XREAD COUNT 1 GROUP g
      XREAD COUNT -5 STREAMS s 2-1
      XREAD BLOCK -1 STREAMS s 0
      XREAD BLOCK x STREAMS s 0
      XREAD BLOCK 1.5 STREAMS s 0
      XREAD COUNT x STREAMS s 0
      XREAD STREAMS s -
      XREAD STREAMS s >
      XREAD COUNT 1 STREAMS
      XREAD BLOCK 10 STREAMS nokey $
      XREAD BLOCK 10 STREAMS s 3-1
      XREAD BLOCK 0 STREAMS s nokey 0 0
      SET str x
      XREAD STREAMS str s 0 x
      XREAD STREAMS s str x 0
      XREAD STREAMS s str 0 0
      MULTI
      XREAD BLOCK 0 STREAMS s $
      EXEC
    `,
  },
  {
    name: 'XSETID',
    steps: cli`
      XADD s 1-1 f v1
      XADD s 2-1 f v2
      XADD s 3-1 f v3
      XDEL s 1-1
      XSETID nokey 5-5
      XSETID s x
      XSETID s 1-1
      XSETID s 3-1
      XSETID s 3-1 ENTRIESADDED 0
      XSETID s 3-1 ENTRIESADDED -1
      XSETID s 3-1 ENTRIESADDED x
      XSETID s 3-1 MAXDELETEDID 4-0
      XSETID s 3-1 MAXDELETEDID x
      XSETID s 3-1 MAXDELETEDID 1-0 ENTRIESADDED 10
      XSETID s 3-1 FOO
      XSETID s 3-1 ENTRIESADDED
      XSETID s 2-9 MAXDELETEDID 0-1
      XSETID s -
      XSETID nokey 1 ENTRIESADDED -1
      XSETID nokey 1 MAXDELETEDID 2
      XSETID s 1 ENTRIESADDED 1 ENTRIESADDED 2
      XSETID s 9-0
      XADD s 9-0 a 1
      XADD s 9-* a 1
      XDEL s 2-1 3-1 9-1
      XSETID s 0-0
      XADD s 1-0 a 1
      SET str x
      XSETID str 5
    `,
  },
  {
    // sluice holds id parts up to 2^53 - 1 as numbers and larger ones as bigints: ids on both
    // sides of 2^53, in ms and in seq, in nodes whose master is on the other side.
    name: 'ids across 2^53 in ms and seq',
    steps: cli`
      CONFIG SET stream-node-max-entries 3
      XADD s 9007199254740990-5 a 1
      XADD s 9007199254740990-* a 2
      XADD s 9007199254740991-9007199254740990 a 3
      XADD s 9007199254740991-* a 4
      XADD s 9007199254740991-* a 5
      XADD s 9007199254740992-0 a 6
      XADD s 9007199254740992-* a 7
      XADD s 9007199254740993 a 8
      XADD s 18446744073709551614-9007199254740993 a 9
      XRANGE s - +
      XREVRANGE s + - COUNT 4
      XRANGE s 9007199254740991-9007199254740991 9007199254740992
      XRANGE s (9007199254740991-9007199254740991 +
      XRANGE s (9007199254740991 (9007199254740993
      XREVRANGE s (9007199254740992-1 (9007199254740990-6
      XREAD COUNT 2 STREAMS s 9007199254740991-9007199254740991
      XDEL s 9007199254740991-9007199254740992 9007199254740992-0
      XINFO STREAM s  => ${groupTimes}
      XINFO STREAM s FULL  => ${groupTimes}
      XTRIM s MINID 9007199254740992
      XRANGE s - +
      XTRIM s MINID ~ 18446744073709551614
      XSETID s 18446744073709551614-9007199254740993 ENTRIESADDED 9007199254740993 MAXDELETEDID 9007199254740992-0
      XINFO STREAM s  => ${groupTimes}
      XADD s * a 10
      XADD t 9007199254740991-18446744073709551615 a 1
      XADD t 9007199254740991-* a 2
      XADD t * a 3
      XRANGE t - +
      CONFIG SET stream-node-max-entries 100
    `,
  },
  {
    name: 'node boundaries with wrapping listpack diffs (ids up to 2^64 - 1)',
    steps: wrappedDiffBoundaries(),
  },
];
