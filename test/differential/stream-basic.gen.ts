// Random steps for the non-group stream commands. Ids are explicit (or "ms-*") and mostly
// increasing, so replies are deterministic; "~" trimming with small and large entries and
// small node limits checks that node boundaries (and so what "~" removes) are Redis's.
import type { KeySpace, Rng, Step, StepGenerator } from './case-types.js';

function gen(name: string, weight: number, next: (rng: Rng, s: KeySpace) => Step): StepGenerator {
  return { name, weight, next };
}

// A rising millisecond clock shared by the steps, so most XADDs succeed. Scripts are built in
// one pass from the seed, so this stays reproducible.
let clock = 1;

function recentMs(rng: Rng): number {
  return Math.max(0, clock - rng.int(12));
}

function anyId(rng: Rng): string {
  const r = rng.int(10);
  if (r < 5) return `${recentMs(rng)}-${rng.int(4)}`;
  if (r < 8) return String(recentMs(rng));
  return rng.pick(['0-0', '0', '0-1', '18446744073709551615', '18446744073709551615-18446744073709551615', 'x', '1-x', '-', '+']);
}

function fieldName(rng: Rng): string {
  return rng.pick(['f', 'g', 'order_id', 'total', '1', '']);
}

function value(rng: Rng): string {
  const r = rng.int(10);
  if (r < 4) return String(rng.int(100000));
  if (r < 7) return rng.pick(['', 'a', 'hello', '-5', '-0', '007', ' 1', '-4097', '70000', '-9000000', '2147483648', '1234567890123456', '9223372036854775807', '-9223372036854775808', '9223372036854775808', '12345678901234567890']);
  // Large values make the 4096-byte node limit (and listpack size classes) matter.
  return 'v'.repeat(rng.pick([60, 63, 64, 200, 700, 1000]));
}

function fields(rng: Rng): string[] {
  const out: string[] = [];
  const same = rng.chance(0.6);
  const n = same ? 2 : 1 + rng.int(3);
  for (let i = 0; i < n; i++) out.push(same ? ['order_id', 'total'][i]! : fieldName(rng), value(rng));
  return out;
}

function trimOptions(rng: Rng, forXtrim: boolean): string[] {
  const opts: string[] = [];
  if (!forXtrim && !rng.chance(0.4)) return opts;
  const minid = rng.chance(0.35);
  opts.push(minid ? 'MINID' : 'MAXLEN');
  const mode = rng.int(3);
  if (mode === 1) opts.push('~');
  if (mode === 2) opts.push('=');
  opts.push(minid ? (rng.chance(0.8) ? `${recentMs(rng)}-${rng.int(3)}` : rng.pick(['0', 'x', '-'])) : String(rng.pick([0, 1, 2, 3, 5, 10, 50, 150, -1])));
  if (rng.chance(0.25)) opts.push('LIMIT', String(rng.pick([0, 1, 3, 100, -2])));
  return opts;
}

function xaddId(rng: Rng): string {
  const r = rng.int(20);
  if (r < 12) {
    clock += rng.int(3);
    return `${clock}-${rng.int(3)}`;
  }
  if (r < 16) {
    clock += rng.int(2);
    return `${clock}-*`;
  }
  if (r < 18) return String(++clock);
  return anyId(rng);
}

export const generators: StepGenerator[] = [
  gen('xadd', 12, (r, s) => {
    const opts: string[] = [];
    if (r.chance(0.1)) opts.push('NOMKSTREAM');
    opts.push(...trimOptions(r, false));
    return ['XADD', s.key('stream'), ...opts, xaddId(r), ...fields(r)];
  }),
  gen('xrange', 5, (r, s) => {
    const bound = (end: boolean): string => {
      const x = r.int(10);
      if (x < 2) return end ? '+' : '-';
      if (x < 5) return `${recentMs(r)}-${r.int(3)}`;
      if (x < 7) return String(recentMs(r));
      if (x < 9) return `(${recentMs(r)}${r.chance(0.5) ? `-${r.int(3)}` : ''}`;
      return r.pick(['(', '(-', '(+', '(0-0', '(18446744073709551615-18446744073709551615', 'x', '0']);
    };
    const rev = r.chance(0.4);
    const count = r.chance(0.4) ? ['COUNT', String(r.pick([0, 1, 2, 5, -1, 'x']))] : [];
    return rev ? ['XREVRANGE', s.key('stream'), bound(true), bound(false), ...count] : ['XRANGE', s.key('stream'), bound(false), bound(true), ...count];
  }),
  gen('xlen', 2, (_r, s) => ['XLEN', s.key('stream')]),
  gen('xdel', 3, (r, s) => ['XDEL', s.key('stream'), ...Array.from({ length: 1 + r.int(3) }, () => (r.chance(0.9) ? `${recentMs(r)}-${r.int(3)}` : anyId(r)))]),
  gen('xtrim', 3, (r, s) => ['XTRIM', s.key('stream'), ...trimOptions(r, true)]),
  gen('xread', 3, (r, s) => {
    const n = 1 + r.int(2);
    const keys = Array.from({ length: n }, () => s.key('stream'));
    const ids = keys.map(() => (r.chance(0.2) ? '$' : r.chance(0.3) ? '0' : `${recentMs(r)}-${r.int(3)}`));
    const count = r.chance(0.5) ? ['COUNT', String(r.pick([1, 2, 10, 0, -3]))] : [];
    return ['XREAD', ...count, 'STREAMS', ...keys, ...ids];
  }),
  gen('xsetid', 1, (r, s) => {
    const opts: string[] = [];
    if (r.chance(0.3)) opts.push('ENTRIESADDED', String(r.pick([0, 1, 5, 1000, -1])));
    if (r.chance(0.3)) opts.push('MAXDELETEDID', `${recentMs(r)}-${r.int(3)}`);
    return ['XSETID', s.key('stream'), r.chance(0.8) ? `${clock + r.int(3)}-${r.int(3)}` : anyId(r), ...opts];
  }),
  // Small node limits make node boundaries matter in short scripts. stream-node-max-bytes stays
  // above the largest entry (3 values of 1000 bytes): redis-server 7.0.15 can crash (listpack
  // assertion in streamTrim) when single entries outgrow the limit, so that is left out.
  gen('stream-node-config', 0.3, (r) => (r.chance(0.5)
    ? ['CONFIG', 'SET', 'stream-node-max-entries', r.pick(['2', '3', '5', '100'])]
    : ['CONFIG', 'SET', 'stream-node-max-bytes', r.pick(['4096', '8192'])])),
];
