// Scripted consumer-group cases: XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM and
// XINFO against redis-server 7.0, byte for byte in RESP2 and RESP3. Replies carrying clock
// readings go through `groupTimes`, which masks only those values (see below).
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

function masked(...argv: string[]): Step {
  return { argv, mask: groupTimes };
}

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
    steps: [
      ['XGROUP', 'CREATE', 's', 'g', '$'],
      ['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM'],
      ['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM'],
      ['XGROUP', 'CREATE', 's', 'g2', '0', 'ENTRIESREAD', '-2'],
      ['XGROUP', 'CREATE', 's', 'g2', '0', 'ENTRIESREAD', 'x'],
      ['XGROUP', 'CREATE', 's', 'g2', '0', 'FOO'],
      ['XGROUP', 'CREATE', 's', 'g2', '0', 'ENTRIESREAD'],
      ['XGROUP', 'CREATE', 's', 'g2', '-'],
      ['XGROUP', 'CREATE', 's', 'g2', 'abc'],
      ['XGROUP', 'CREATE', 's', 'g2', '0', 'MKSTREAM', 'MKSTREAM', 'MKSTREAM', 'MKSTREAM'],
      ['XGROUP', 'SETID', 's', 'nog', '0'],
      ['XGROUP', 'SETID', 's', 'g', '0', 'ENTRIESREAD'],
      ['XGROUP', 'SETID', 's', 'g', '0', 'ENTRIESREAD', 'x'],
      ['XGROUP', 'SETID', 's', 'g', '0', 'FOO', '1'],
      ['XGROUP', 'SETID', 's', 'g', '0', 'ENTRIESREAD', '-2'],
      ['XGROUP', 'SETID', 's', 'g', '-'],
      ['XGROUP', 'SETID', 's', 'g', '+'],
      ['XINFO', 'GROUPS', 's'],
      ['XGROUP', 'SETID', 's', 'g', '5', 'ENTRIESREAD', '3'],
      ['XINFO', 'GROUPS', 's'],
      ['XGROUP', 'CREATECONSUMER', 's', 'g', 'c1'],
      ['XGROUP', 'CREATECONSUMER', 's', 'g', 'c1'],
      ['XGROUP', 'CREATECONSUMER', 's', 'nog', 'c1'],
      ['XGROUP', 'DELCONSUMER', 's', 'g', 'c1'],
      ['XGROUP', 'DELCONSUMER', 's', 'g', 'c1'],
      ['XGROUP', 'DESTROY', 's', 'g'],
      ['XGROUP', 'DESTROY', 's', 'g'],
      ['XGROUP', 'DESTROY', 'nokey', 'g'],
      ['XGROUP', 'CREATECONSUMER', 'nokey', 'g', 'c'],
      ['XGROUP', 'SETID', 'nokey', 'g', '0', 'x'],
      ['XGROUP', 'FOO'],
      ['XGROUP', 'CREATE', 's'],
      ['XGROUP', 'HELP', 'x'],
      ['XGROUP', 'HELP'],
      ['XGROUP'],
      ['SET', 'str', 'x'],
      ['XGROUP', 'CREATE', 'str', 'g', '0'],
      ['XGROUP', 'DESTROY', 'str', 'g'],
      ['XGROUP', 'CREATE', 'e', 'g2', '0', 'mkstream', 'entriesread', '5'],
      ['XINFO', 'GROUPS', 'e'],
      ['TYPE', 'e'],
    ],
  },
  {
    name: 'XREADGROUP: new entries, history, NOACK, deleted history entries, several streams',
    steps: [
      ...seed,
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '1', 'STREAMS', 's', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', '$'],
      ['XREADGROUP', 'GROUP', 'nog', 'c1', 'STREAMS', 's', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 'nokey', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', 's', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'NOACK', 'STREAMS', 's'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'FOO', 'STREAMS', 's', '0'],
      ['XREADGROUP', 'COUNT', '1', 'NOACK', 'STREAMS', 's', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', 'x', 'STREAMS', 's', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'BLOCK', 'x', 'STREAMS', 's', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'BLOCK', '-1', 'STREAMS', 's', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', 'abc'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', '-'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', '1-1'],
      ['XREADGROUP', 'GROUP', 'g', 'c2', 'STREAMS', 's', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c2', 'STREAMS', 's', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c3', 'STREAMS', 's', '0'],
      ['XDEL', 's', '2-1'],
      ['XREADGROUP', 'GROUP', 'g', 'c2', 'STREAMS', 's', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c2', 'COUNT', '1', 'STREAMS', 's', '0-0'],
      ['XPENDING', 's', 'g'],
      ['XINFO', 'GROUPS', 's'],
      masked('XINFO', 'CONSUMERS', 's', 'g'),
      ['XADD', 's', '4-1', 'd', '4'],
      ['XADD', 's', '5-1', 'e', '5'],
      ['XREADGROUP', 'GROUP', 'g', 'c4', 'NOACK', 'COUNT', '1', 'STREAMS', 's', '>'],
      ['XPENDING', 's', 'g'],
      ['XINFO', 'GROUPS', 's'],
      ['XADD', 't', '1-1', 'x', 'y'],
      ['XGROUP', 'CREATE', 't', 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', 't', '>', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', 't', '>', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', 't', '0', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c9', 'STREAMS', 's', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c9', 'BLOCK', '10', 'STREAMS', 's', '>'],
      ['XGROUP', 'SETID', 's', 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c9', 'COUNT', '2', 'STREAMS', 's', '>'],
      ['XPENDING', 's', 'g'],
      masked('XINFO', 'CONSUMERS', 's', 'g'),
      ['SET', 'str', 'x'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 'str', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', 'str', '>', '0'],
    ],
  },
  {
    name: 'XACK and XPENDING summary / extended / IDLE / errors',
    steps: [
      ...seed,
      ['XPENDING', 's', 'g'],
      ['XPENDING', 's', 'g', '-', '+', '10'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '2', 'STREAMS', 's', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c2', 'STREAMS', 's', '>'],
      ['XPENDING', 's', 'g'],
      masked('XPENDING', 's', 'g', '-', '+', '10'),
      masked('XPENDING', 's', 'g', '-', '+', '10', 'c1'),
      masked('XPENDING', 's', 'g', '-', '+', '1'),
      masked('XPENDING', 's', 'g', '(1-1', '+', '10'),
      masked('XPENDING', 's', 'g', '-', '(3-1', '10'),
      masked('XPENDING', 's', 'g', '2', '3', '10'),
      masked('XPENDING', 's', 'g', 'IDLE', '0', '-', '+', '10'),
      masked('XPENDING', 's', 'g', 'idle', '-5', '-', '+', '10'),
      ['XPENDING', 's', 'g', 'IDLE', '100000000', '-', '+', '10'],
      ['XPENDING', 's', 'g', '-', '+', '-1'],
      ['XPENDING', 's', 'g', '-', '+', '0'],
      ['XPENDING', 's', 'g', '-', '+', '10', 'nosuch'],
      ['XPENDING', 's', 'g', '3', '1', '10'],
      ['XPENDING', 'nokey', 'g'],
      ['XPENDING', 's', 'nog'],
      ['XPENDING', 's', 'g', '-', '+'],
      ['XPENDING', 's', 'g', '-', '+', 'x'],
      ['XPENDING', 's', 'g', 'x', '+', '1'],
      ['XPENDING', 's', 'g', '-', 'x', '1'],
      ['XPENDING', 's', 'g', 'IDLE', 'x', '-', '+', '1'],
      ['XPENDING', 's', 'g', 'IDLE', '10', '-', '+'],
      ['XPENDING', 's', 'g', '(', '+', '1'],
      ['XPENDING', 's', 'g', '(18446744073709551615-18446744073709551615', '+', '1'],
      ['XPENDING', 's', 'g', '-', '(0-0', '1'],
      ['XPENDING', 's', 'g', 'IDLE', '0', '-', '+', '10', 'c1', 'x'],
      ['XPENDING', 'nokey', 'g', '-', '+', 'x'],
      ['XACK', 's', 'g', '1-1', '1-1', '9-9'],
      ['XACK', 's', 'g', 'x'],
      ['XACK', 's', 'g', '2-1', '(3'],
      ['XACK', 'nokey', 'g', 'x'],
      ['XACK', 's', 'nog', 'x'],
      ['XPENDING', 's', 'g'],
      ['XACK', 's', 'g', '2', '2-1', '3-1'],
      ['XPENDING', 's', 'g'],
      ['SET', 'str', 'x'],
      ['XPENDING', 'str', 'g'],
      ['XPENDING', 'str', 'g', '-', '+', '1'],
      ['XACK', 'str', 'g', 'x'],
    ],
  },
  {
    name: 'XCLAIM: idle filter, FORCE, JUSTID, RETRYCOUNT, TIME, LASTID, deleted entries, errors',
    steps: [
      ...seed,
      ['XADD', 's', '4-1', 'd', '4'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '2', 'STREAMS', 's', '>'],
      ['XCLAIM', 's', 'g', 'c2', '0', '1-1', '9-9'],
      ['XCLAIM', 's', 'g', 'c3', '100000000', '1-1'],
      ['XCLAIM', 's', 'g', 'c3', '0', '2-1', 'JUSTID', 'RETRYCOUNT', '7', 'TIME', '1000'],
      masked('XPENDING', 's', 'g', '-', '+', '10'),
      masked('XINFO', 'STREAM', 's', 'FULL'),
      ['XCLAIM', 's', 'g', 'c3', '0', '3-1'],
      ['XCLAIM', 's', 'g', 'c3', '0', '3-1', 'FORCE'],
      ['XCLAIM', 's', 'g', 'c3', '0', '4-1', 'FORCE', 'JUSTID'],
      ['XCLAIM', 's', 'g', 'c4', '0', '4-1', '4-1', 'JUSTID'],
      ['XCLAIM', 's', 'g', 'c4', '0', '1-1', 'IDLE', '5000', 'JUSTID'],
      masked('XPENDING', 's', 'g', 'IDLE', '4000', '-', '+', '10'),
      ['XCLAIM', 's', 'g', 'c5', '3000', '1-1', 'JUSTID'],
      ['XCLAIM', 's', 'g', 'c5', '0', '1-1', 'IDLE', '-5', 'JUSTID'],
      ['XCLAIM', 's', 'g', 'c5', '0', '1-1', 'TIME', '99999999999999', 'JUSTID'],
      masked('XPENDING', 's', 'g', '-', '+', '10'),
      ['XINFO', 'GROUPS', 's'],
      ['XCLAIM', 's', 'g', 'c5', '0', '9-9', 'LASTID', '6-0'],
      ['XINFO', 'GROUPS', 's'],
      ['XCLAIM', 's', 'g', 'c5', '0', '9-9', 'LASTID', '5-0'],
      ['XINFO', 'GROUPS', 's'],
      ['XDEL', 's', '2-1'],
      ['XCLAIM', 's', 'g', 'c6', '0', '2-1', '3-1'],
      ['XPENDING', 's', 'g'],
      masked('XINFO', 'CONSUMERS', 's', 'g'),
      ['XCLAIM', 's', 'g', 'c', '-5', '1-1', 'JUSTID'],
      ['XCLAIM', 'nokey', 'g', 'c', '0', '1'],
      ['XCLAIM', 's', 'nog', 'c', '0', '1'],
      ['XCLAIM', 's', 'g', 'c', 'x', '1'],
      ['XCLAIM', 's', 'g', 'c', '0', 'x'],
      ['XCLAIM', 's', 'g', 'c', '0', '1-1', 'foo'],
      ['XCLAIM', 's', 'g', 'c', '0', '1-1', 'IDLE', 'x'],
      ['XCLAIM', 's', 'g', 'c', '0', '1-1', 'TIME', 'x'],
      ['XCLAIM', 's', 'g', 'c', '0', '1-1', 'RETRYCOUNT', 'x'],
      ['XCLAIM', 's', 'g', 'c', '0', '1-1', 'LASTID', 'x'],
      ['XCLAIM', 's', 'g', 'c', '0', '1-1', 'IDLE'],
      ['XCLAIM', 's', 'g', 'c', '0', '1-1', 'JUSTID', '2-1'],
      ['SET', 'str', 'x'],
      ['XCLAIM', 'str', 'g', 'c', '0', '1'],
    ],
  },
  {
    name: 'XAUTOCLAIM: cursor, COUNT, JUSTID, deleted entries, errors',
    steps: [
      ...seed,
      ['XADD', 's', '4-1', 'd', '4'],
      ['XADD', 's', '5-1', 'e', '5'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', '>'],
      ['XAUTOCLAIM', 's', 'g', 'c2', '0', '0', 'COUNT', '2'],
      ['XAUTOCLAIM', 's', 'g', 'c2', '0', '3-1', 'COUNT', '2', 'JUSTID'],
      ['XAUTOCLAIM', 's', 'g', 'c2', '0', '5-1', 'COUNT', '2', 'JUSTID'],
      ['XAUTOCLAIM', 's', 'g', 'c3', '100000000', '0'],
      ['XAUTOCLAIM', 's', 'g', 'c3', '0', '(1-1', 'COUNT', '1'],
      ['XDEL', 's', '1-1', '3-1', '4-1'],
      ['XAUTOCLAIM', 's', 'g', 'c3', '0', '0', 'COUNT', '1', 'JUSTID'],
      ['XAUTOCLAIM', 's', 'g', 'c3', '0', '0', 'COUNT', '2', 'JUSTID'],
      ['XPENDING', 's', 'g'],
      masked('XINFO', 'STREAM', 's', 'FULL'),
      ['XAUTOCLAIM', 's', 'g', 'c4', '0', '0', 'COUNT', '1', 'COUNT', '5'],
      ['XAUTOCLAIM', 's', 'g', 'c4', '0', '9-9'],
      ['XAUTOCLAIM', 'nokey', 'g', 'c', '0', '0'],
      ['XAUTOCLAIM', 's', 'nog', 'c', '0', '0'],
      ['XAUTOCLAIM', 's', 'g', 'c', 'x', '0'],
      ['XAUTOCLAIM', 's', 'g', 'c', '0', 'x'],
      ['XAUTOCLAIM', 's', 'g', 'c', '0', '0', 'COUNT', '0'],
      ['XAUTOCLAIM', 's', 'g', 'c', '0', '0', 'COUNT', 'x'],
      ['XAUTOCLAIM', 's', 'g', 'c', '0', '0', 'COUNT', '576460752303423488'],
      ['XAUTOCLAIM', 's', 'g', 'c', '0', '0', 'COUNT', '-1'],
      ['XAUTOCLAIM', 's', 'g', 'c', '0', '0', 'FOO'],
      ['XAUTOCLAIM', 's', 'g', 'c', '0', '0', 'COUNT'],
      ['XAUTOCLAIM', 's', 'g', 'c', '0', '(18446744073709551615-18446744073709551615'],
      ['XAUTOCLAIM', 'nokey', 'g', 'c', 'x', '0'],
      ['SET', 'str', 'x'],
      ['XAUTOCLAIM', 'str', 'g', 'c', '0', '0'],
    ],
  },
  {
    name: 'XINFO STREAM / FULL / GROUPS / CONSUMERS, lag and entries-read',
    steps: [
      ['XINFO', 'STREAM', 'nokey'],
      ['XINFO', 'GROUPS', 'nokey'],
      ['XINFO', 'CONSUMERS', 'nokey', 'g'],
      ['XINFO', 'HELP'],
      ['XINFO', 'FOO'],
      ['XINFO'],
      ...seed,
      ['XGROUP', 'CREATE', 's', 'late', '$'],
      ['XGROUP', 'CREATE', 's', 'mid', '2-1'],
      ['XGROUP', 'CREATE', 's', 'read1', '1-1', 'ENTRIESREAD', '1'],
      ['XINFO', 'GROUPS', 's'],
      ['XINFO', 'CONSUMERS', 's', 'nog'],
      ['XINFO', 'CONSUMERS', 's', 'g', 'extra'],
      ['XINFO', 'STREAM', 's', 'foo'],
      ['XINFO', 'STREAM', 's', 'FULL', 'COUNT', 'x'],
      ['XINFO', 'STREAM', 's', 'FULL', 'FOO', '1'],
      ['XINFO', 'STREAM', 's', 'FULL', 'COUNT'],
      masked('XINFO', 'STREAM', 's'),
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '2', 'STREAMS', 's', '>'],
      ['XREADGROUP', 'GROUP', 'mid', 'c1', 'STREAMS', 's', '>'],
      ['XINFO', 'GROUPS', 's'],
      ['XDEL', 's', '2-1'],
      ['XINFO', 'GROUPS', 's'],
      masked('XINFO', 'STREAM', 's'),
      masked('XINFO', 'STREAM', 's', 'FULL'),
      masked('XINFO', 'STREAM', 's', 'FULL', 'COUNT', '1'),
      masked('XINFO', 'STREAM', 's', 'FULL', 'COUNT', '0'),
      masked('XINFO', 'STREAM', 's', 'FULL', 'COUNT', '-5'),
      masked('XINFO', 'CONSUMERS', 's', 'g'),
      ['XDEL', 's', '1-1'],
      ['XINFO', 'GROUPS', 's'],
      ['XADD', 's', '4-1', 'd', '4'],
      ['XINFO', 'GROUPS', 's'],
      ['XREADGROUP', 'GROUP', 'late', 'c1', 'STREAMS', 's', '>'],
      ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', 's', '>'],
      ['XINFO', 'GROUPS', 's'],
      ['XDEL', 's', '3-1', '4-1'],
      ['XINFO', 'GROUPS', 's'],
      masked('XINFO', 'STREAM', 's'),
      ['XGROUP', 'SETID', 's', 'g', '0'],
      ['XINFO', 'GROUPS', 's'],
      ['XADD', 'e', 'MAXLEN', '0', '1-1', 'a', 'b'],
      ['XGROUP', 'CREATE', 'e', 'g', '0'],
      ['XINFO', 'GROUPS', 'e'],
      masked('XINFO', 'STREAM', 'e'),
      masked('XINFO', 'STREAM', 'e', 'FULL'),
      ['XGROUP', 'CREATE', 'm', 'g', '$', 'MKSTREAM'],
      masked('XINFO', 'STREAM', 'm'),
      ['XINFO', 'GROUPS', 'm'],
      ['SET', 'str', 'x'],
      ['XINFO', 'STREAM', 'str'],
      ['XINFO', 'GROUPS', 'str'],
      ['XINFO', 'CONSUMERS', 'str', 'g'],
    ],
  },
  {
    name: 'lag and entries-read across tombstones, SETID and ENTRIESREAD',
    steps: [
      ['XADD', 's', '1-1', 'a', '1'],
      ['XADD', 's', '2-1', 'b', '2'],
      ['XADD', 's', '3-1', 'c', '3'],
      ['XADD', 's', '4-1', 'd', '4'],
      ['XGROUP', 'CREATE', 's', 'late', '$'],
      ['XGROUP', 'CREATE', 's', 'first', '1-1'],
      ['XGROUP', 'CREATE', 's', 'mid', '2-1'],
      ['XGROUP', 'CREATE', 's', 'told', '2-1', 'ENTRIESREAD', '2'],
      ['XGROUP', 'CREATE', 's', 'zero', '0'],
      ['XGROUP', 'CREATE', 's', 'future', '9-9'],
      ['XINFO', 'GROUPS', 's'],
      ['XDEL', 's', '1-1'],
      ['XINFO', 'GROUPS', 's'],
      ['XREADGROUP', 'GROUP', 'zero', 'c', 'COUNT', '1', 'STREAMS', 's', '>'],
      ['XINFO', 'GROUPS', 's'],
      ['XDEL', 's', '3-1'],
      ['XINFO', 'GROUPS', 's'],
      ['XREADGROUP', 'GROUP', 'mid', 'c', 'STREAMS', 's', '>'],
      ['XREADGROUP', 'GROUP', 'zero', 'c', 'NOACK', 'STREAMS', 's', '>'],
      ['XINFO', 'GROUPS', 's'],
      ['XGROUP', 'SETID', 's', 'mid', '0', 'ENTRIESREAD', '0'],
      ['XGROUP', 'SETID', 's', 'told', '$'],
      ['XINFO', 'GROUPS', 's'],
      ['XDEL', 's', '2-1', '4-1'],
      ['XINFO', 'GROUPS', 's'],
      ['XADD', 's', '5-1', 'e', '5'],
      ['XINFO', 'GROUPS', 's'],
      ['XREADGROUP', 'GROUP', 'first', 'c', 'STREAMS', 's', '>'],
      ['XINFO', 'GROUPS', 's'],
      masked('XINFO', 'STREAM', 's', 'FULL'),
    ],
  },
];
