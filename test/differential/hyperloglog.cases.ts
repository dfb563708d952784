// PFADD, PFCOUNT, PFMERGE and PFDEBUG compared byte for byte with redis-server: the counts, and
// the HLL strings themselves (GET), sparse and dense, through promotion and merges.
import { cli } from './cli.js';
import { type DiffCase, Rng } from './case-types.js';

const elements = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

function randomAdds(seed: number): string[][] {
  const rng = new Rng(seed);
  const steps: string[][] = [];
  for (let i = 0; i < 40; i++) {
    const key = rng.pick(['h1', 'h2', 'h3']);
    steps.push(['PFADD', key, ...Array.from({ length: rng.int(30) + 1 }, () => `e${rng.int(5000)}`)]);
    if (rng.chance(0.3)) steps.push(['PFCOUNT', key]);
    if (rng.chance(0.2)) steps.push(['GET', key]);
    if (rng.chance(0.1)) steps.push(['PFMERGE', rng.pick(['m1', 'm2']), key, rng.pick(['h1', 'h2', 'h3'])]);
  }
  steps.push(['PFCOUNT', 'h1', 'h2', 'h3'], ['GET', 'h1'], ['GET', 'h2'], ['GET', 'h3'], ['GET', 'm1'], ['GET', 'm2'], ['PFCOUNT', 'm1']);
  return steps;
}

/**
 * Redis's encoding fuzzer, replayable: an HLL of random size, one to three bytes changed by
 * SETRANGE (header and opcodes alike; a position past the end pads with zero bytes), then
 * PFCOUNT, PFADD and the bytes. A string argument is sent as UTF-8: a character of 0x80-0xff
 * writes two bytes, both VAL opcodes.
 */
function corruptions(seed: number): string[][] {
  const rng = new Rng(seed);
  const steps: string[][] = [];
  for (let i = 0; i < 25; i++) {
    const n = rng.int(rng.chance(0.2) ? 2500 : 300);
    steps.push(['DEL', 'h'], ['PFADD', 'h', ...Array.from({ length: n }, () => `r${rng.int(1e9)}`)]);
    for (let k = 0; k === 0 || (k < 3 && rng.chance(0.5)); k++) {
      const pos = rng.chance(0.1) ? rng.int(16) : 16 + rng.int(Math.max(4, Math.round(n * 1.3)));
      steps.push(['SETRANGE', 'h', String(pos), String.fromCharCode(rng.int(256))]);
    }
    steps.push(['PFCOUNT', 'h'], ['PFADD', 'h', ...Array.from({ length: rng.int(20) }, () => `s${rng.int(1e9)}`)]);
    steps.push(['GET', 'h'], ['PFCOUNT', 'h'], ['PFCOUNT', 'h', 'nokey']);
  }
  return steps;
}

export const cases: DiffCase[] = [
  {
    name: 'PFADD / PFCOUNT: counts, the sparse string, the cached count, errors',
    steps: [
      ...cli`
        PFADD h a b c
        PFADD h a
        PFADD h
        PFADD fresh
        GET fresh
        PFCOUNT h
        GET h
        PFCOUNT h
        PFCOUNT nokey
        PFCOUNT h nokey fresh
        SET s notanhll
        PFADD s x
        PFCOUNT s
        PFCOUNT h s
        RPUSH l x
        PFADD l x
        PFCOUNT l
        SET bad "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f"
        PFCOUNT bad
        PFADD bad z
        SET baddense "HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
        PFCOUNT baddense
      `,
      ['PFADD', 'many', ...elements('x', 200)],
      ['PFCOUNT', 'many'],
      ['GET', 'many'],
    ],
  },
  {
    name: 'sparse to dense: hll-sparse-max-bytes, values over 32, PFDEBUG',
    steps: [
      ['PFADD', 'big', ...elements('y', 2500)],
      ['PFDEBUG', 'ENCODING', 'big'],
      ['PFCOUNT', 'big'],
      ['GET', 'big'],
      ...cli`
        CONFIG SET hll-sparse-max-bytes 100
        PFADD small a b c d e f g h i j k l m n o p q r s t u v w x y z
        PFDEBUG ENCODING small
        PFCOUNT small
        CONFIG SET hll-sparse-max-bytes 3000
        PFADD sp one two
        PFDEBUG DECODE sp
        PFDEBUG ENCODING sp
        PFDEBUG TODENSE sp
        PFDEBUG TODENSE sp
        PFDEBUG DECODE sp
        PFDEBUG GETREG nokey
        PFDEBUG BOGUS sp
        PFDEBUG GETREG
        SET s x
        PFDEBUG ENCODING s
        GET sp
      `,
    ],
  },
  {
    name: 'PFMERGE: sparse and dense sources, missing keys, an existing target, errors',
    steps: [
      ['PFADD', 'a', ...elements('a', 50)],
      ['PFADD', 'b', ...elements('b', 3000)],
      ['PFADD', 'c', ...elements('a', 25), ...elements('c', 25)],
      ...cli`
        PFMERGE u1 a c
        GET u1
        PFCOUNT u1
        PFMERGE u2 a b nokey
        PFDEBUG ENCODING u2
        PFCOUNT u2
        PFMERGE a c
        GET a
        PFMERGE empty nokey
        GET empty
        PFCOUNT a b c
        SET s x
        PFMERGE s a
        PFMERGE u1 s
      `,
    ],
  },
  { name: 'random PFADD / PFCOUNT / PFMERGE', steps: randomAdds(21) },
  {
    // Redis sets registers in place: those set before PFADD reaches the corrupt part stay set.
    name: 'PFADD into a sparse HLL cut short: the registers set before the error stay set',
    steps: [
      ['SET', 'cut', 'HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x5f\x7f'],
      ['PFADD', 'cut', 'd', 'a'],
      ['GET', 'cut'],
      ['PFADD', 'cut', 'f', 'i', 'a'],
      ['PFDEBUG', 'DECODE', 'cut'],
      ['GET', 'cut'],
      ['PFADD', 'cut', 'a'],
      ['PFCOUNT', 'cut'],
    ],
  },
  { name: 'corrupted HLLs (SETRANGE): PFCOUNT, PFADD and the bytes, as Redis detects errors', steps: corruptions(35) },
  {
    name: 'COMMAND INFO of the HyperLogLog commands',
    steps: ['pfadd', 'pfcount', 'pfmerge', 'pfdebug'].map((name) => ({ argv: ['COMMAND', 'INFO', name], mask: 'commandInfoHead' as const })),
  },
];
