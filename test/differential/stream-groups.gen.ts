// Random steps for the consumer-group commands, on the same stream keys as stream-basic.gen.ts.
// Replies that carry clock readings go through `groupTimes`; idle thresholds are 0 or huge, and
// BLOCK is 1 ms, so every reply is a pure function of the script.
import type { KeySpace, Rng, Step, StepGenerator } from './case-types.js';
import { groupTimes } from './stream-groups.cases.js';

function gen(name: string, weight: number, next: (rng: Rng, s: KeySpace) => Step): StepGenerator {
  return { name, weight, next };
}

/** Mostly one stream key, so groups created by one step are there for the next ones. */
const key = (r: Rng, s: KeySpace) => (r.chance(0.7) ? 'stream0' : s.key('stream'));
const group = (r: Rng) => (r.chance(0.7) ? 'g1' : r.pick(['g2', 'nog']));
const consumer = (r: Rng) => r.pick(['c1', 'c2', 'c3']);
const idle = (r: Rng) => (r.chance(0.9) ? r.pick(['0', '0', '100000000', '-1']) : 'x');

/** Ids: small ones (stream-basic's clock starts at 1), edge ones and invalid ones. */
function someId(r: Rng): string {
  const k = r.int(10);
  if (k < 6) return `${r.int(40)}-${r.int(3)}`;
  if (k < 8) return String(r.int(40));
  return r.pick(['0', '0-0', '18446744073709551615-18446744073709551615', 'x', '-', '+']);
}

function bound(r: Rng, end: boolean): string {
  const k = r.int(6);
  if (k < 2) return end ? '+' : '-';
  if (k < 4) return someId(r);
  return `(${someId(r)}`;
}

function masked(...argv: string[]): Step {
  return { argv, mask: groupTimes };
}

export const generators: StepGenerator[] = [
  gen('xgroup-create', 6, (r, s) => {
    const opts: string[] = [];
    if (r.chance(0.8)) opts.push('MKSTREAM');
    if (r.chance(0.15)) opts.push('ENTRIESREAD', r.pick(['0', '3', '-1', '-2', 'x']));
    return ['XGROUP', 'CREATE', key(r, s), group(r), r.pick(['$', '0', someId(r)]), ...opts];
  }),
  gen('xgroup-setid', 1.5, (r, s) => {
    const opts = r.chance(0.3) ? ['ENTRIESREAD', r.pick(['0', '2', '-1', 'x'])] : [];
    return ['XGROUP', 'SETID', key(r, s), group(r), r.pick(['$', '0', someId(r)]), ...opts];
  }),
  gen('xgroup-consumers', 1.5, (r, s) => [
    'XGROUP', r.pick(['CREATECONSUMER', 'DELCONSUMER']), key(r, s), group(r), consumer(r),
  ]),
  gen('xgroup-destroy', 0.5, (r, s) => ['XGROUP', 'DESTROY', key(r, s), group(r)]),
  gen('xreadgroup', 8, (r, s) => {
    const opts: string[] = [];
    if (r.chance(0.6)) opts.push('COUNT', r.pick(['1', '2', '5', '0', '-1']));
    if (r.chance(0.2)) opts.push('NOACK');
    if (r.chance(0.1)) opts.push('BLOCK', '1');
    const keys = r.chance(0.8) ? [key(r, s)] : [key(r, s), key(r, s)];
    const ids = keys.map(() => (r.chance(0.75) ? '>' : r.pick(['0', someId(r)])));
    return ['XREADGROUP', 'GROUP', group(r), consumer(r), ...opts, 'STREAMS', ...keys, ...ids];
  }),
  gen('xack', 3, (r, s) => ['XACK', key(r, s), group(r), ...Array.from({ length: 1 + r.int(3) }, () => someId(r))]),
  gen('xpending', 3, (r, s) => {
    if (r.chance(0.4)) return ['XPENDING', key(r, s), group(r)];
    const argv = ['XPENDING', key(r, s), group(r)];
    if (r.chance(0.2)) argv.push('IDLE', idle(r));
    argv.push(bound(r, false), bound(r, true), r.pick(['10', '1', '0', '-1']));
    if (r.chance(0.3)) argv.push(consumer(r));
    return masked(...argv);
  }),
  gen('xclaim', 3, (r, s) => {
    const opts: string[] = [];
    if (r.chance(0.3)) opts.push('JUSTID');
    if (r.chance(0.2)) opts.push('FORCE');
    if (r.chance(0.2)) opts.push('RETRYCOUNT', r.pick(['0', '3', 'x']));
    if (r.chance(0.1)) opts.push('LASTID', someId(r));
    if (r.chance(0.1)) opts.push('IDLE', '100000000');
    const ids = Array.from({ length: 1 + r.int(3) }, () => someId(r));
    return ['XCLAIM', key(r, s), group(r), consumer(r), idle(r), ...ids, ...opts];
  }),
  gen('xautoclaim', 3, (r, s) => {
    const opts: string[] = [];
    if (r.chance(0.6)) opts.push('COUNT', r.chance(0.9) ? r.pick(['1', '2', '100']) : '0');
    if (r.chance(0.4)) opts.push('JUSTID');
    return ['XAUTOCLAIM', key(r, s), group(r), consumer(r), idle(r), r.pick(['0', '-', someId(r), `(${someId(r)}`]), ...opts];
  }),
  gen('xinfo', 2, (r, s) => {
    const k = r.int(4);
    if (k === 0) return ['XINFO', 'GROUPS', key(r, s)];
    if (k === 1) return masked('XINFO', 'CONSUMERS', key(r, s), group(r));
    if (k === 2) return masked('XINFO', 'STREAM', key(r, s));
    return masked('XINFO', 'STREAM', key(r, s), 'FULL', ...(r.chance(0.5) ? ['COUNT', r.pick(['1', '0', '3'])] : []));
  }),
];
