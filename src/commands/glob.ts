// Glob matching as Redis's stringmatchlen (util.c): * ? [abc] [^a] [a-z] and \ escapes,
// over bytes (latin1 strings), optionally case-insensitive.

export function globMatch(pattern: string, str: string, nocase = false): boolean {
  return matchAt(pattern, 0, str, 0, nocase, 0);
}

function eqChar(a: number, b: number, nocase: boolean): boolean {
  if (a === b) return true;
  if (!nocase) return false;
  return lowerCode(a) === lowerCode(b);
}

function lowerCode(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c;
}

function matchAt(p: string, pi: number, s: string, si: number, nocase: boolean, depth: number): boolean {
  // Redis caps recursion to avoid pathological patterns; deep nesting simply fails to match.
  if (depth > 1000) return false;
  while (pi < p.length && si <= s.length) {
    const pc = p.charCodeAt(pi);
    switch (pc) {
      case 42 /* * */: {
        while (pi + 1 < p.length && p.charCodeAt(pi + 1) === 42) pi++;
        if (pi + 1 === p.length) return true;
        for (let k = si; k <= s.length; k++) {
          if (matchAt(p, pi + 1, s, k, nocase, depth + 1)) return true;
        }
        return false;
      }
      case 63 /* ? */:
        if (si >= s.length) return false;
        si++;
        break;
      case 91 /* [ */: {
        if (si >= s.length) return false;
        pi++;
        const not = p.charCodeAt(pi) === 94; /* ^ */
        if (not) pi++;
        let match = false;
        const c = s.charCodeAt(si);
        for (;;) {
          if (pi >= p.length) {
            pi--; // unterminated class: Redis treats the end as closing it
            break;
          }
          const cc = p.charCodeAt(pi);
          if (cc === 92 /* \ */ && pi + 2 <= p.length - 1) {
            pi++;
            if (eqChar(p.charCodeAt(pi), c, nocase)) match = true;
          } else if (cc === 93 /* ] */) {
            break;
          } else if (pi + 2 < p.length && p.charCodeAt(pi + 1) === 45 /* - */) {
            let start = cc;
            let end = p.charCodeAt(pi + 2);
            if (start > end) [start, end] = [end, start];
            let x = c;
            if (nocase) {
              start = lowerCode(start);
              end = lowerCode(end);
              x = lowerCode(c);
            }
            pi += 2;
            if (x >= start && x <= end) match = true;
          } else if (eqChar(cc, c, nocase)) {
            match = true;
          }
          pi++;
        }
        if (not) match = !match;
        if (!match) return false;
        si++;
        break;
      }
      default:
        if (pc === 92 /* \ */ && pi + 1 < p.length) pi++;
        if (si >= s.length || !eqChar(p.charCodeAt(pi), s.charCodeAt(si), nocase)) return false;
        si++;
        break;
    }
    pi++;
    if (si === s.length) {
      while (pi < p.length && p.charCodeAt(pi) === 42) pi++;
      break;
    }
  }
  return pi === p.length && si === s.length;
}
