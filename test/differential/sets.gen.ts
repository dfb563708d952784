// Random steps for the set commands whose effect is deterministic: SMOVE, the algebra commands
// and their STORE forms, SINTERCARD, SSCAN in one call, and SPOP / SRANDMEMBER with a count
// covering the whole set. Replies in a hashtable's order are compared sorted.
import type { KeySpace, Rng, Step, StepGenerator } from './case-types.js';

function gen(name: string, weight: number, next: (rng: Rng, s: KeySpace) => Step): StepGenerator {
  return { name, weight, next };
}

const setKeys = (r: Rng, s: KeySpace): string[] => Array.from({ length: 1 + r.int(3) }, () => s.key('set'));

export const generators: StepGenerator[] = [
  gen('smove', 2, (r, s) => ['SMOVE', s.key('set'), s.key('set'), s.field()]),
  gen('set-algebra', 3, (r, s) => ({ argv: [r.pick(['SINTER', 'SUNION', 'SDIFF']), ...setKeys(r, s)], mask: 'sorted' })),
  gen('set-store', 2, (r, s) => [r.pick(['SINTERSTORE', 'SUNIONSTORE', 'SDIFFSTORE']), s.key(r.pick(['set', 'string'])), ...setKeys(r, s)]),
  gen('sintercard', 1, (r, s) => {
    const keys = setKeys(r, s);
    return ['SINTERCARD', String(keys.length), ...keys, ...(r.chance(0.5) ? ['LIMIT', String(r.int(4))] : [])];
  }),
  gen('sscan', 1, (r, s) => ({
    argv: ['SSCAN', s.key('set'), '0', 'COUNT', '1000', ...(r.chance(0.4) ? ['MATCH', r.pick(['f*', '-*', '[0-2]'])] : [])],
    mask: 'scanReply',
  })),
  gen('whole-set-random', 1, (r, s) => ({ argv: [r.pick(['SPOP', 'SRANDMEMBER']), s.key('set'), '100'], mask: 'sorted' })),
];
