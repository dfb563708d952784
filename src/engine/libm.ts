// sin, cos and asin rounded as glibc rounds them (to the nearest double, glibc's error being
// below 0.55 ulp), where V8's fdlibm ports are off by one ulp for a few percent of arguments.
// GEO distances go through them (geohash.ts), and a distance stored by GEORADIUS STOREDIST is
// printed with 17 digits: one ulp shows. Each is evaluated in double-double arithmetic (about
// 106 bits) and rounded once. Arguments past 2^16 radians fall back to Math (never met by a
// valid geo query except through an absurd radius).

/** A double-double: the unevaluated sum hi + lo, |lo| <= ulp(hi) / 2. */
interface DD {
  hi: number;
  lo: number;
}

function twoSum(a: number, b: number): DD {
  const s = a + b;
  const bb = s - a;
  return { hi: s, lo: a - (s - bb) + (b - bb) };
}

function quickTwoSum(a: number, b: number): DD {
  const s = a + b;
  return { hi: s, lo: b - (s - a) };
}

const SPLITTER = 134217729; // 2^27 + 1

function twoProd(a: number, b: number): DD {
  const p = a * b;
  let t = SPLITTER * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLITTER * b;
  const bh = t - (t - b);
  const bl = b - bh;
  return { hi: p, lo: ah * bh - p + ah * bl + al * bh + al * bl };
}

function add(a: DD, b: DD): DD {
  const s = twoSum(a.hi, b.hi);
  const t = twoSum(a.lo, b.lo);
  let r = quickTwoSum(s.hi, s.lo + t.hi);
  r = quickTwoSum(r.hi, r.lo + t.lo);
  return r;
}

function mul(a: DD, b: DD): DD {
  const p = twoProd(a.hi, b.hi);
  return quickTwoSum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

/** a / d for a small integer (or any double) d. */
function divNumber(a: DD, d: number): DD {
  const q1 = a.hi / d;
  const p = twoProd(q1, d);
  const rem = a.hi - p.hi - p.lo + a.lo;
  return quickTwoSum(q1, rem / d);
}

const neg = (a: DD): DD => ({ hi: -a.hi, lo: -a.lo });
const dd = (x: number): DD => ({ hi: x, lo: 0 });

// pi/2 as four pieces (fdlibm's pio2_1, pio2_2, pio2_3 of 33 bits each, and pio2_3t), so that
// k * piece is exact for k < 2^20.
const PIO2_1 = 1.57079632673412561417e0;
const PIO2_2 = 6.0771005063039659766e-11;
const PIO2_3 = 2.02226624871116645580e-21;
const PIO2_3T = 8.47842766036889956997e-32;
const INV_PIO2 = 6.36619772367581382433e-1;
const LIMIT = 65536;

/** sin and cos of |r| <= pi/4 by their Taylor series, in double-double. */
function kernel(r: DD): { s: DD; c: DD } {
  const r2 = mul(r, r);
  let s = r;
  let term = r;
  for (let n = 2; n < 40; n += 2) {
    term = neg(divNumber(mul(term, r2), n * (n + 1)));
    s = add(s, term);
    if (Math.abs(term.hi) < 1e-36) break;
  }
  let c = dd(1);
  term = dd(1);
  for (let n = 1; n < 40; n += 2) {
    term = neg(divNumber(mul(term, r2), n * (n + 1)));
    c = add(c, term);
    if (Math.abs(term.hi) < 1e-36) break;
  }
  return { s, c };
}

/** x reduced by k * pi/2: the quadrant k and the remainder as a double-double. */
function reduce(x: number): { k: number; r: DD } {
  const k = Math.round(x * INV_PIO2);
  if (k === 0) return { k: 0, r: dd(x) };
  let r = twoSum(x, -k * PIO2_1);
  r = add(r, dd(-k * PIO2_2));
  r = add(r, dd(-k * PIO2_3));
  r = add(r, dd(-k * PIO2_3T));
  return { k, r };
}

function sinCosDD(x: number): { s: DD; c: DD } {
  const { k, r } = reduce(x);
  const { s, c } = kernel(r);
  switch (((k % 4) + 4) % 4) {
    case 0:
      return { s, c };
    case 1:
      return { s: c, c: neg(s) };
    case 2:
      return { s: neg(s), c: neg(c) };
    default:
      return { s: neg(c), c: s };
  }
}

/** The double nearest the double-double. */
const round = (a: DD): number => a.hi + a.lo;

export function sin(x: number): number {
  if (!(Math.abs(x) < LIMIT)) return Math.sin(x);
  if (x === 0) return x;
  return round(sinCosDD(x).s);
}

export function cos(x: number): number {
  if (!(Math.abs(x) < LIMIT)) return Math.cos(x);
  return round(sinCosDD(x).c);
}

/** asin by one Newton step from Math.asin (within an ulp), done in double-double. */
export function asin(y: number): number {
  const a = Math.abs(y);
  if (!(a > 0 && a < 1)) return Math.asin(y);
  const t0 = Math.asin(a);
  const { s, c } = sinCosDD(t0);
  const f = add(s, dd(-a));
  const correction = (f.hi + f.lo) / (c.hi + c.lo);
  const t = twoSum(t0, -correction);
  const r = round(t);
  return y < 0 ? -r : r;
}
