// The vocabulary of case files (*.cases.ts) and generator files (*.gen.ts) in this directory.
// Drop a new file of either kind here and differential.test.ts picks it up.
import type { MaskName, Normaliser } from './normalize.js';

/**
 * One step of a script: a command whose reply must match byte for byte, optionally through a
 * mask for a reply that legitimately differs (order of a hash table, a time); or a pause.
 */
export type Step =
  | string[]
  | { argv: string[]; mask: MaskName | Normaliser }
  /** A command Redis answers with several frames (SUBSCRIBE a b), or none (a second MONITOR). */
  | { argv: string[]; replies: number; mask?: MaskName | Normaliser }
  | { sleepMs: number };

export interface DiffCase {
  name: string;
  steps: Step[];
  /** Only over TCP: the embedded client has no Pub/Sub (SLUICE_DIFF_TARGET=embedded skips it). */
  tcpOnly?: boolean;
  /** Protocols to run under; both by default. RESP3 is entered with HELLO 3. */
  protocols?: Array<2 | 3>;
}

/** A seeded source of randomness (mulberry32): the same seed gives the same scripts. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

/**
 * Produces one random step. Generators share a small key space on purpose, so commands of
 * one family meet keys of another type and WRONGTYPE paths get exercised.
 */
export interface StepGenerator {
  name: string;
  /** Relative frequency among all registered generators. */
  weight: number;
  next(rng: Rng, space: KeySpace): Step;
}

/** The shared small key space of randomized runs. */
export interface KeySpace {
  /**
   * A key name. With a family ('string', 'hash', 'set', 'stream', ...) it is usually one of
   * that family's own keys ("hash1"), sometimes a shared one ("k3") that other types also use.
   */
  key(family?: string): string;
  /** A field / member name from a small set. */
  field(): string;
  /** A short value: sometimes an integer, sometimes a float, sometimes text. */
  value(): string;
}

export function keySpace(rng: Rng, keys = 6, fields = 5): KeySpace {
  const textValues = ['', 'a', 'hello', 'x y', '\u00e9', '007', '-0', '1e3', ' 1'];
  return {
    key: (family) => (family !== undefined && rng.chance(0.75) ? `${family}${rng.int(3)}` : `k${rng.int(keys)}`),
    field: () => (rng.chance(0.5) ? `f${rng.int(fields)}` : String(rng.int(fields) - 2)),
    value: () => {
      const r = rng.int(4);
      if (r === 0) return String(rng.int(2000) - 1000);
      if (r === 1) return (rng.int(20000) / 100 - 100).toString();
      if (r === 2) return rng.pick(['9223372036854775807', '-9223372036854775808', '0', '1']);
      return rng.pick(textValues);
    },
  };
}
