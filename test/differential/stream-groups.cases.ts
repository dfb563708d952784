// Scripted consumer-group cases: XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM and
// XINFO against redis-server 7.0, byte for byte in RESP2 and RESP3. Replies carrying clock
// readings go through `groupTimes`, which masks only those values (see below).
import { cli } from './cli.js';
import type { DiffCase, Step } from './case-types.js';
import type { Frame } from './frames.js';
import type { Normaliser } from './normalize.js';

/** Map keys whose value is a clock reading or a Redis internal: the value is masked. */
const MASKED_VALUES = new Set(['idle', 'seen-time', 'radix-tree-nodes']);
/** Fields sluice adds from Redis 7.2 (see src/commands/stream-info.ts): dropped with their value. */
const DROPPED_FIELDS = new Set(['inactive', 'active-time']);

function bulkText(f: Frame): string | undefined {
  if (f.type !== '$' && f.type !== '+') return undefined;
  const raw = f.raw.toString('latin1');
  if (f.type === '+') return raw.slice(1, -2);
  const nl = raw.indexOf('\r\n');
  return raw.slice(nl + 2, -2);
}

const ID = /^\d+-\d+$/;

/** Absolute ms timestamps (delivery times, seen-time) are masked wherever they appear. */
function leaf(f: Frame): string {
  const raw = f.raw.toString('latin1');
  if (f.type === ':' && Number(raw.slice(1, -2)) >= 1e12) return ':<time>\r\n';
  return raw;
}

function render(f: Frame): string {
  if (f.children === undefined) return leaf(f);
  const kids = f.children;
  const out: string[] = [];
  // XPENDING's extended form: [id, consumer, idle, count]: the idle time is masked.
  if (kids.length === 4 && ID.test(bulkText(kids[0]!) ?? '') && kids[1]!.type === '$' && kids[2]!.type === ':') {
    return `${f.type}4\r\n${render(kids[0]!)}${render(kids[1]!)}:<idle>\r\n${render(kids[3]!)}`;
  }
  for (let i = 0; i < kids.length; i++) {
    const name = bulkText(kids[i]!);
    if (name !== undefined && DROPPED_FIELDS.has(name) && i + 1 < kids.length) {
      i++;
      continue;
    }
    if (name !== undefined && MASKED_VALUES.has(name) && i + 1 < kids.length) {
      out.push(render(kids[i]!), '<masked>');
      i++;
      continue;
    }
    out.push(render(kids[i]!));
  }
  const n = f.type === '%' ? out.length / 2 : out.length;
  return `${f.type}${n}\r\n${out.join('')}`;
}

export const groupTimes: Normaliser = (frame) => render(frame);


/** Three entries and a group at 0. */
const seed: Step[] = [
  ['XADD', 's', '1-1', 'a', '1'],
  ['XADD', 's', '2-1', 'b', '2'],
  ['XADD', 's', '3-1', 'c', '3'],
  ['XGROUP', 'CREATE', 's', 'g', '0'],
];

export const cases: DiffCase[] = [
  {
    name: 'XGROUP CREATE / SETID / DESTROY / consumers and their errors',
    steps: cli`
      XGROUP CREATE s g $
      XGROUP CREATE s g $ MKSTREAM
      XGROUP CREATE s g $ MKSTREAM
      XGROUP CREATE s g2 0 ENTRIESREAD -2
      XGROUP CREATE s g2 0 ENTRIESREAD x
      XGROUP CREATE s g2 0 FOO
      XGROUP CREATE s g2 0 ENTRIESREAD
      XGROUP CREATE s g2 -
      XGROUP CREATE s g2 abc
      XGROUP CREATE s g2 0 MKSTREAM MKSTREAM MKSTREAM MKSTREAM
      XGROUP SETID s nog 0
      XGROUP SETID s g 0 ENTRIESREAD
      XGROUP SETID s g 0 ENTRIESREAD x
      XGROUP SETID s g 0 FOO 1
      XGROUP SETID s g 0 ENTRIESREAD -2
      XGROUP SETID s g -
      XGROUP SETID s g +
      XINFO GROUPS s
      XGROUP SETID s g 5 ENTRIESREAD 3
      XINFO GROUPS s
      XGROUP CREATECONSUMER s g c1
      XGROUP CREATECONSUMER s g c1
      XGROUP CREATECONSUMER s nog c1
      XGROUP DELCONSUMER s g c1
      XGROUP DELCONSUMER s g c1
      XGROUP DESTROY s g
      XGROUP DESTROY s g
      XGROUP DESTROY nokey g
      XGROUP CREATECONSUMER nokey g c
      XGROUP SETID nokey g 0 x
      XGROUP FOO
      XGROUP CREATE s
      XGROUP HELP x
      XGROUP HELP
      XGROUP
      SET str x
      XGROUP CREATE str g 0
      XGROUP DESTROY str g
      XGROUP CREATE e g2 0 mkstream entriesread 5
      XINFO GROUPS e
      TYPE e
    `,
  },
  {
    name: 'XREADGROUP: new entries, history, NOACK, deleted history entries, several streams',
    steps: [
      ...seed,
      ...cli`
        XREADGROUP GROUP g c1 COUNT 1 STREAMS s >
        XREADGROUP GROUP g c1 STREAMS s $
        XREADGROUP GROUP nog c1 STREAMS s >
        XREADGROUP GROUP g c1 STREAMS nokey >
        XREADGROUP GROUP g c1 STREAMS s s 0
        XREADGROUP GROUP g c1 NOACK STREAMS s
        XREADGROUP GROUP g c1 FOO STREAMS s 0
        XREADGROUP COUNT 1 NOACK STREAMS s >
        XREADGROUP GROUP g c1 COUNT x STREAMS s >
        XREADGROUP GROUP g c1 BLOCK x STREAMS s >
        XREADGROUP GROUP g c1 BLOCK -1 STREAMS s >
        XREADGROUP GROUP g c1 STREAMS s abc
        XREADGROUP GROUP g c1 STREAMS s -
        XREADGROUP GROUP g c1 STREAMS s 0
        XREADGROUP GROUP g c1 STREAMS s 1-1
        XREADGROUP GROUP g c2 STREAMS s >
        XREADGROUP GROUP g c2 STREAMS s >
        XREADGROUP GROUP g c3 STREAMS s 0
        XDEL s 2-1
        XREADGROUP GROUP g c2 STREAMS s 0
        XREADGROUP GROUP g c2 COUNT 1 STREAMS s 0-0
        XPENDING s g
        XINFO GROUPS s
        XINFO CONSUMERS s g  => ${groupTimes}
        XADD s 4-1 d 4
        XADD s 5-1 e 5
        XREADGROUP GROUP g c4 NOACK COUNT 1 STREAMS s >
        XPENDING s g
        XINFO GROUPS s
        XADD t 1-1 x y
        XGROUP CREATE t g 0
        XREADGROUP GROUP g c1 STREAMS s t > >
        XREADGROUP GROUP g c1 STREAMS s t > 0
        XREADGROUP GROUP g c1 STREAMS s t 0 >
        XREADGROUP GROUP g c9 STREAMS s >
        XREADGROUP GROUP g c9 BLOCK 10 STREAMS s >
        XGROUP SETID s g 0
        XREADGROUP GROUP g c9 COUNT 2 STREAMS s >
        XPENDING s g
        XINFO CONSUMERS s g  => ${groupTimes}
        SET str x
        XREADGROUP GROUP g c STREAMS str 0
        XREADGROUP GROUP g c STREAMS s str > 0
      `,
    ],
  },
  {
    name: 'XACK and XPENDING summary / extended / IDLE / errors',
    steps: [
      ...seed,
      ...cli`
        XPENDING s g
        XPENDING s g - + 10
        XREADGROUP GROUP g c1 COUNT 2 STREAMS s >
        XREADGROUP GROUP g c2 STREAMS s >
        XPENDING s g
        XPENDING s g - + 10  => ${groupTimes}
        XPENDING s g - + 10 c1  => ${groupTimes}
        XPENDING s g - + 1  => ${groupTimes}
        XPENDING s g (1-1 + 10  => ${groupTimes}
        XPENDING s g - (3-1 10  => ${groupTimes}
        XPENDING s g 2 3 10  => ${groupTimes}
        XPENDING s g IDLE 0 - + 10  => ${groupTimes}
        XPENDING s g idle -5 - + 10  => ${groupTimes}
        XPENDING s g IDLE 100000000 - + 10
        XPENDING s g - + -1
        XPENDING s g - + 0
        XPENDING s g - + 10 nosuch
        XPENDING s g 3 1 10
        XPENDING nokey g
        XPENDING s nog
        XPENDING s g - +
        XPENDING s g - + x
        XPENDING s g x + 1
        XPENDING s g - x 1
        XPENDING s g IDLE x - + 1
        XPENDING s g IDLE 10 - +
        XPENDING s g ( + 1
        XPENDING s g (18446744073709551615-18446744073709551615 + 1
        XPENDING s g - (0-0 1
        XPENDING s g IDLE 0 - + 10 c1 x
        XPENDING nokey g - + x
        XACK s g 1-1 1-1 9-9
        XACK s g x
        XACK s g 2-1 (3
        XACK nokey g x
        XACK s nog x
        XPENDING s g
        XACK s g 2 2-1 3-1
        XPENDING s g
        SET str x
        XPENDING str g
        XPENDING str g - + 1
        XACK str g x
      `,
    ],
  },
  {
    name: 'XCLAIM: idle filter, FORCE, JUSTID, RETRYCOUNT, TIME, LASTID, deleted entries, errors',
    steps: [
      ...seed,
      ...cli`
        XADD s 4-1 d 4
        XREADGROUP GROUP g c1 COUNT 2 STREAMS s >
        XCLAIM s g c2 0 1-1 9-9
        XCLAIM s g c3 100000000 1-1
        XCLAIM s g c3 0 2-1 JUSTID RETRYCOUNT 7 TIME 1000
        XPENDING s g - + 10  => ${groupTimes}
        XINFO STREAM s FULL  => ${groupTimes}
        XCLAIM s g c3 0 3-1
        XCLAIM s g c3 0 3-1 FORCE
        XCLAIM s g c3 0 4-1 FORCE JUSTID
        XCLAIM s g c4 0 4-1 4-1 JUSTID
        XCLAIM s g c4 0 1-1 IDLE 5000 JUSTID
        XPENDING s g IDLE 4000 - + 10  => ${groupTimes}
        XCLAIM s g c5 3000 1-1 JUSTID
        XCLAIM s g c5 0 1-1 IDLE -5 JUSTID
        XCLAIM s g c5 0 1-1 TIME 99999999999999 JUSTID
        XPENDING s g - + 10  => ${groupTimes}
        XINFO GROUPS s
        XCLAIM s g c5 0 9-9 LASTID 6-0
        XINFO GROUPS s
        XCLAIM s g c5 0 9-9 LASTID 5-0
        XINFO GROUPS s
        XDEL s 2-1
        XCLAIM s g c6 0 2-1 3-1
        XPENDING s g
        XINFO CONSUMERS s g  => ${groupTimes}
        XCLAIM s g c -5 1-1 JUSTID
        XCLAIM nokey g c 0 1
        XCLAIM s nog c 0 1
        XCLAIM s g c x 1
        XCLAIM s g c 0 x
        XCLAIM s g c 0 1-1 foo
        XCLAIM s g c 0 1-1 IDLE x
        XCLAIM s g c 0 1-1 TIME x
        XCLAIM s g c 0 1-1 RETRYCOUNT x
        XCLAIM s g c 0 1-1 LASTID x
        XCLAIM s g c 0 1-1 IDLE
        XCLAIM s g c 0 1-1 JUSTID 2-1
        SET str x
        XCLAIM str g c 0 1
      `,
    ],
  },
  {
    name: 'XAUTOCLAIM: cursor, COUNT, JUSTID, deleted entries, errors',
    steps: [
      ...seed,
      ...cli`
        XADD s 4-1 d 4
        XADD s 5-1 e 5
        XREADGROUP GROUP g c1 STREAMS s >
        XAUTOCLAIM s g c2 0 0 COUNT 2
        XAUTOCLAIM s g c2 0 3-1 COUNT 2 JUSTID
        XAUTOCLAIM s g c2 0 5-1 COUNT 2 JUSTID
        XAUTOCLAIM s g c3 100000000 0
        XAUTOCLAIM s g c3 0 (1-1 COUNT 1
        XDEL s 1-1 3-1 4-1
        XAUTOCLAIM s g c3 0 0 COUNT 1 JUSTID
        XAUTOCLAIM s g c3 0 0 COUNT 2 JUSTID
        XPENDING s g
        XINFO STREAM s FULL  => ${groupTimes}
        XAUTOCLAIM s g c4 0 0 COUNT 1 COUNT 5
        XAUTOCLAIM s g c4 0 9-9
        XAUTOCLAIM nokey g c 0 0
        XAUTOCLAIM s nog c 0 0
        XAUTOCLAIM s g c x 0
        XAUTOCLAIM s g c 0 x
        XAUTOCLAIM s g c 0 0 COUNT 0
        XAUTOCLAIM s g c 0 0 COUNT x
        XAUTOCLAIM s g c 0 0 COUNT 576460752303423488
        XAUTOCLAIM s g c 0 0 COUNT -1
        XAUTOCLAIM s g c 0 0 FOO
        XAUTOCLAIM s g c 0 0 COUNT
        XAUTOCLAIM s g c 0 (18446744073709551615-18446744073709551615
        XAUTOCLAIM nokey g c x 0
        SET str x
        XAUTOCLAIM str g c 0 0
      `,
    ],
  },
  {
    name: 'XINFO STREAM / FULL / GROUPS / CONSUMERS, lag and entries-read',
    steps: [
      ...cli`
        XINFO STREAM nokey
        XINFO GROUPS nokey
        XINFO CONSUMERS nokey g
        XINFO HELP
        XINFO FOO
        XINFO
      `,
      ...seed,
      ...cli`
        XGROUP CREATE s late $
        XGROUP CREATE s mid 2-1
        XGROUP CREATE s read1 1-1 ENTRIESREAD 1
        XINFO GROUPS s
        XINFO CONSUMERS s nog
        XINFO CONSUMERS s g extra
        XINFO STREAM s foo
        XINFO STREAM s FULL COUNT x
        XINFO STREAM s FULL FOO 1
        XINFO STREAM s FULL COUNT
        XINFO STREAM s  => ${groupTimes}
        XREADGROUP GROUP g c1 COUNT 2 STREAMS s >
        XREADGROUP GROUP mid c1 STREAMS s >
        XINFO GROUPS s
        XDEL s 2-1
        XINFO GROUPS s
        XINFO STREAM s  => ${groupTimes}
        XINFO STREAM s FULL  => ${groupTimes}
        XINFO STREAM s FULL COUNT 1  => ${groupTimes}
        XINFO STREAM s FULL COUNT 0  => ${groupTimes}
        XINFO STREAM s FULL COUNT -5  => ${groupTimes}
        XINFO CONSUMERS s g  => ${groupTimes}
        XDEL s 1-1
        XINFO GROUPS s
        XADD s 4-1 d 4
        XINFO GROUPS s
        XREADGROUP GROUP late c1 STREAMS s >
        XREADGROUP GROUP g c1 STREAMS s >
        XINFO GROUPS s
        XDEL s 3-1 4-1
        XINFO GROUPS s
        XINFO STREAM s  => ${groupTimes}
        XGROUP SETID s g 0
        XINFO GROUPS s
        XADD e MAXLEN 0 1-1 a b
        XGROUP CREATE e g 0
        XINFO GROUPS e
        XINFO STREAM e  => ${groupTimes}
        XINFO STREAM e FULL  => ${groupTimes}
        XGROUP CREATE m g $ MKSTREAM
        XINFO STREAM m  => ${groupTimes}
        XINFO GROUPS m
        SET str x
        XINFO STREAM str
        XINFO GROUPS str
        XINFO CONSUMERS str g
      `,
    ],
  },
  {
    name: 'lag and entries-read across tombstones, SETID and ENTRIESREAD',
    steps: cli`
      XADD s 1-1 a 1
      XADD s 2-1 b 2
      XADD s 3-1 c 3
      XADD s 4-1 d 4
      XGROUP CREATE s late $
      XGROUP CREATE s first 1-1
      XGROUP CREATE s mid 2-1
      XGROUP CREATE s told 2-1 ENTRIESREAD 2
      XGROUP CREATE s zero 0
      XGROUP CREATE s future 9-9
      XINFO GROUPS s
      XDEL s 1-1
      XINFO GROUPS s
      XREADGROUP GROUP zero c COUNT 1 STREAMS s >
      XINFO GROUPS s
      XDEL s 3-1
      XINFO GROUPS s
      XREADGROUP GROUP mid c STREAMS s >
      XREADGROUP GROUP zero c NOACK STREAMS s >
      XINFO GROUPS s
      XGROUP SETID s mid 0 ENTRIESREAD 0
      XGROUP SETID s told $
      XINFO GROUPS s
      XDEL s 2-1 4-1
      XINFO GROUPS s
      XADD s 5-1 e 5
      XINFO GROUPS s
      XREADGROUP GROUP first c STREAMS s >
      XINFO GROUPS s
      XINFO STREAM s FULL  => ${groupTimes}
    `,
  },
  {
    // Redis 7.0's group commands never touch WATCHed keys (XGROUP DESTROY does in sluice: it
    // must wake blocked readers, so it is left out here).
    name: 'group commands do not invalidate WATCH',
    steps: [
      ...seed,
      ...cli`
        WATCH s
        XREADGROUP GROUP g c1 COUNT 1 STREAMS s >
        MULTI
        PING
        EXEC
        WATCH s
        XREADGROUP GROUP g c1 STREAMS s 0
        MULTI
        PING
        EXEC
        WATCH s
        XACK s g 1-1
        MULTI
        PING
        EXEC
        WATCH s
        XCLAIM s g c2 0 2-1 FORCE
        MULTI
        PING
        EXEC
        WATCH s
        XAUTOCLAIM s g c3 0 0
        MULTI
        PING
        EXEC
        WATCH s
        XGROUP CREATECONSUMER s g c7
        MULTI
        PING
        EXEC
        WATCH s
        XGROUP DELCONSUMER s g c7
        MULTI
        PING
        EXEC
        WATCH s
        XGROUP SETID s g 0
        MULTI
        PING
        EXEC
        WATCH s
        XGROUP CREATE s g2 0
        MULTI
        PING
        EXEC
      `,
    ],
  },
  {
    name: 'edge cases: COUNT 0, maximal ids, future group ids, odd XCLAIM values, binary names',
    steps: [
      ...seed,
      ...cli`
        XREADGROUP GROUP g c1 COUNT 0 STREAMS s >
        XREADGROUP GROUP g c1 COUNT -3 STREAMS s 0
        XREADGROUP GROUP g c1 STREAMS s 18446744073709551615-18446744073709551615
        XREADGROUP GROUP g c1 STREAMS s 18446744073709551615-18446744073709551616
        XREADGROUP GROUP g c1 STREAMS s 2
        XGROUP SETID s g 99-0
        XADD s 4-1 d 4
        XREADGROUP GROUP g c1 STREAMS s >
        XINFO GROUPS s
        XCLAIM s g c2 0 1-1 RETRYCOUNT -5 JUSTID
        XCLAIM s g c2 0 2-1 IDLE 99999999999999999 JUSTID
        XCLAIM s g c2 0 3-1 TIME -1 JUSTID RETRYCOUNT 0
        XCLAIM s g c2 99999999999999999 3-1 JUSTID
        XCLAIM s g c2 0 3-1 JUSTID FORCE LASTID 0-1
        XPENDING s g - + 9223372036854775807  => ${groupTimes}
        XPENDING s g - + 9223372036854775808
        XGROUP CREATECONSUMER s g ${'caf\u00e9'}
        XGROUP CREATECONSUMER s g B
        XGROUP CREATECONSUMER s g ""
        XINFO CONSUMERS s g  => ${groupTimes}
        XGROUP CREATE s Z 0
        XGROUP CREATE s "" 0
        XINFO GROUPS s
        XGROUP DELCONSUMER s g c2
        XPENDING s g
        XAUTOCLAIM s g c3 0 -
        XAUTOCLAIM s g c3 0 +
        XPENDING s g + - 10
        XINFO STREAM s FULL COUNT 9223372036854775807  => ${groupTimes}
      `,
    ],
  },
  {
    name: 'XINFO STREAM FULL truncates entries and PELs at COUNT (default 10)',
    steps: cli`
      XADD big 1-0 n 1
      XADD big 2-0 n 2
      XADD big 3-0 n 3
      XADD big 4-0 n 4
      XADD big 5-0 n 5
      XADD big 6-0 n 6
      XADD big 7-0 n 7
      XADD big 8-0 n 8
      XADD big 9-0 n 9
      XADD big 10-0 n 10
      XADD big 11-0 n 11
      XADD big 12-0 n 12
      XADD big 13-0 n 13
      XADD big 14-0 n 14
      XADD big 15-0 n 15
      XGROUP CREATE big g 0
      XGROUP CREATE big h 0
      XREADGROUP GROUP g c STREAMS big >
      XREADGROUP GROUP h c COUNT 12 STREAMS big >
      XREADGROUP GROUP h d STREAMS big >
      XINFO STREAM big FULL  => ${groupTimes}
      XINFO STREAM big FULL COUNT 3  => ${groupTimes}
      XINFO STREAM big FULL COUNT 0  => ${groupTimes}
      XINFO GROUPS big
      XPENDING big h
    `,
  },
  {
    name: 'XREADGROUP BLOCK inside MULTI never blocks',
    steps: cli`
      XGROUP CREATE s g $ MKSTREAM
      MULTI
      XREADGROUP GROUP g c BLOCK 0 STREAMS s >
      XADD s 1-1 f v
      XREADGROUP GROUP g c BLOCK 0 STREAMS s >
      XREADGROUP GROUP g c BLOCK 0 STREAMS s >
      EXEC
      XPENDING s g
    `,
  },
];
