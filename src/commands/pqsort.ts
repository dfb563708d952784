// Redis's pqsort (pqsort.c): a partial quicksort (Bentley & McIlroy) that sorts only what lands
// in [lrange, rrange]. GEORADIUS/GEOSEARCH with COUNT use it, and as a quicksort it orders equal
// elements its own way: ported step for step (indices for pointers) so ties come out as in Redis.

type Cmp<T> = (a: T, b: T) => number;

function swap<T>(a: T[], i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

function vecswap<T>(a: T[], i: number, j: number, n: number): void {
  for (let k = 0; k < n; k++) swap(a, i + k, j + k);
}

function med3<T>(a: T[], i: number, j: number, k: number, cmp: Cmp<T>): number {
  return cmp(a[i]!, a[j]!) < 0
    ? cmp(a[j]!, a[k]!) < 0
      ? j
      : cmp(a[i]!, a[k]!) < 0
        ? k
        : i
    : cmp(a[j]!, a[k]!) > 0
      ? j
      : cmp(a[i]!, a[k]!) < 0
        ? i
        : k;
}

/** Whether [lo, lo + n) holds none of [l, r]: the range is entirely before or after it. */
function outside(lo: number, n: number, l: number, r: number): boolean {
  return (l < lo && r < lo) || (l >= lo + n && r >= lo + n);
}

function pqsortFrom<T>(a: T[], base: number, n: number, cmp: Cmp<T>, l: number, r: number): void {
  for (;;) {
    if (n < 7) {
      for (let pm = base + 1; pm < base + n; pm++) for (let pl = pm; pl > base && cmp(a[pl - 1]!, a[pl]!) > 0; pl--) swap(a, pl, pl - 1);
      return;
    }
    let pm = base + Math.floor(n / 2);
    if (n > 7) {
      let pl = base;
      let pn = base + n - 1;
      if (n > 40) {
        const d = Math.floor(n / 8);
        pl = med3(a, pl, pl + d, pl + 2 * d, cmp);
        pm = med3(a, pm - d, pm, pm + d, cmp);
        pn = med3(a, pn - 2 * d, pn - d, pn, cmp);
      }
      pm = med3(a, pl, pm, pn, cmp);
    }
    swap(a, base, pm);
    let pa = base + 1;
    let pb = pa;
    let pc = base + n - 1;
    let pd = pc;
    for (;;) {
      let c: number;
      while (pb <= pc && (c = cmp(a[pb]!, a[base]!)) <= 0) {
        if (c === 0) swap(a, pa++, pb);
        pb++;
      }
      while (pb <= pc && (c = cmp(a[pc]!, a[base]!)) >= 0) {
        if (c === 0) swap(a, pc, pd--);
        pc--;
      }
      if (pb > pc) break;
      swap(a, pb++, pc--);
    }
    const pn = base + n;
    let s = Math.min(pa - base, pb - pa);
    vecswap(a, base, pb - s, s);
    s = Math.min(pd - pc, pn - pd - 1);
    vecswap(a, pb, pn - s, s);
    s = pb - pa;
    if (s > 1 && !outside(base, s, l, r)) pqsortFrom(a, base, s, cmp, l, r);
    s = pd - pc;
    if (s <= 1) return;
    base = pn - s;
    n = s;
    if (outside(base, n, l, r)) return;
  }
}

/** Sorts `a` in place so that positions lrange..rrange hold what a full sort would put there. */
export function pqsort<T>(a: T[], cmp: Cmp<T>, lrange: number, rrange: number): void {
  pqsortFrom(a, 0, a.length, cmp, lrange, rrange);
}
