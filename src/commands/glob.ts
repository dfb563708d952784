// Glob matching as Redis's stringmatchlen (util.c), the one matcher behind KEYS, SCAN/ZSCAN
// MATCH, PSUBSCRIBE and PUBSUB CHANNELS, CONFIG GET and COMMAND LIST FILTERBY PATTERN:
// * ? [abc] [^a] [a-z] and \ escapes, over bytes (latin1 strings), optionally case-insensitive.
//
// A port, quirks included: an empty string matches no pattern, not even "*" (callers that treat
// "*" as everything do so themselves, as Redis's KEYS and SCAN do); a class left open at the end
// of the pattern closes there; range bounds compare as C's signed chars.
//
// Bounded as Redis bounds it: once the rest of a pattern after a '*' has failed to match at every
// position of the string, no earlier '*' can help by matching more (it would only start that
// rest later), so the whole match fails at once (skipLongerMatches, Redis 7.0.9+). Without it
// `a*a*a*…*b` against a long run of 'a' is exponential and blocks the event loop. Nesting of
// '*' is capped at 1000 as later Redis versions do, which also bounds the recursion depth.

const MAX_NESTING = 1000;

/** Set when a '*' exhausted the string: every enclosing '*' gives up (Redis's skipLongerMatches). */
let skipLongerMatches = false;

export function globMatch(pattern: string, str: string, nocase = false): boolean {
  skipLongerMatches = false;
  return matchFrom(pattern, 0, str, 0, nocase, 0);
}

/** ASCII tolower, as C's in the "C" locale Redis runs its ctype functions in. */
function lowerCode(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c;
}

/** A byte as C's (signed) char, which Redis's range bounds compare as. */
function signedChar(c: number): number {
  return c >= 128 ? c - 256 : c;
}

function matchFrom(p: string, pi: number, s: string, si: number, nocase: boolean, nesting: number): boolean {
  if (nesting > MAX_NESTING) return false;
  const plen = p.length;
  const slen = s.length;
  while (pi < plen && si < slen) {
    switch (p.charCodeAt(pi)) {
      case 42 /* * */: {
        while (pi + 1 < plen && p.charCodeAt(pi + 1) === 42) pi++;
        if (pi + 1 === plen) return true;
        for (; si < slen; si++) {
          if (matchFrom(p, pi + 1, s, si, nocase, nesting + 1)) return true;
          if (skipLongerMatches) return false;
        }
        skipLongerMatches = true;
        return false;
      }
      case 63 /* ? */:
        si++;
        break;
      case 91 /* [ */: {
        pi++;
        const not = p.charCodeAt(pi) === 94; /* ^ */
        if (not) pi++;
        const c = s.charCodeAt(si);
        let match = false;
        for (;;) {
          const pc = p.charCodeAt(pi); // NaN past the end, as C reads the terminating NUL
          if (pc === 92 /* \ */ && plen - pi >= 2) {
            pi++;
            if (p.charCodeAt(pi) === c) match = true;
          } else if (pc === 93 /* ] */) {
            break;
          } else if (pi === plen) {
            pi--; // an unclosed class ends with the pattern
            break;
          } else if (plen - pi >= 3 && p.charCodeAt(pi + 1) === 45 /* - */) {
            let start = signedChar(pc);
            let end = signedChar(p.charCodeAt(pi + 2));
            let x = signedChar(c);
            if (start > end) [start, end] = [end, start];
            if (nocase) {
              start = lowerCode(start);
              end = lowerCode(end);
              x = lowerCode(x);
            }
            pi += 2;
            if (x >= start && x <= end) match = true;
          } else if (nocase ? lowerCode(pc) === lowerCode(c) : pc === c) {
            match = true;
          }
          pi++;
        }
        if (not) match = !match;
        if (!match) return false;
        si++;
        break;
      }
      default: {
        if (p.charCodeAt(pi) === 92 /* \ */ && plen - pi >= 2) pi++;
        const pc = p.charCodeAt(pi);
        const c = s.charCodeAt(si);
        if (nocase ? lowerCode(pc) !== lowerCode(c) : pc !== c) return false;
        si++;
        break;
      }
    }
    pi++;
    if (si === slen) {
      while (pi < plen && p.charCodeAt(pi) === 42) pi++;
      break;
    }
  }
  return pi === plen && si === slen;
}
