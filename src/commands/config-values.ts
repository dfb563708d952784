// Value syntaxes of CONFIG parameters that need more than yes/no or an integer: memory sizes
// with Redis's units, and client-output-buffer-limit's per-class triples.

/** A CONFIG parameter: its name, default, and how a value is checked and applied. */
export interface ConfigParam {
  name: string;
  defaultValue: string;
  /** Returns an error text when the value is not acceptable, or the normalised value. */
  validate?: (value: string, current: string) => { ok: string } | { error: string };
  /** Changeable at runtime with CONFIG SET. */
  mutable?: boolean;
  /** Redis's PROTECTED_CONFIG: CONFIG SET only where enable-protected-configs allows it. */
  protected?: boolean;
  /** Called after a successful CONFIG SET. */
  onChange?: (value: string) => void;
  /**
   * Redis 7.0's alias (the ziplist names of the listpack parameters): CONFIG GET and SET
   * answer to both names, and CONFIG GET lists both.
   */
  alias?: string;
  /** Redis's HIDDEN_CONFIG (test-only delays): CONFIG GET answers it by name, never by a pattern. */
  hidden?: boolean;
}

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1000, kb: 1024, m: 1000 ** 2, mb: 1024 ** 2, g: 1000 ** 3, gb: 1024 ** 3 };

/** Redis's memtoull: digits with an optional unit (k = 1000, kb = 1024, ...); "" is 0. */
export function parseMemory(value: string): number | undefined {
  if (value === '') return 0;
  const m = /^(\d+)([a-z]*)$/i.exec(value);
  const unit = m === null ? undefined : UNITS[m[2]!.toLowerCase()];
  if (m === null || unit === undefined) return undefined;
  const n = Number(m[1]) * unit;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A memory-size parameter stored (and shown by CONFIG GET) in bytes, at least `min`. */
export function memoryParam(name: string, defaultBytes: number, min: number): ConfigParam {
  return {
    name,
    defaultValue: String(defaultBytes),
    mutable: true,
    validate: (value) => {
      const n = parseMemory(value);
      if (n === undefined) return { error: 'argument must be a memory value' };
      if (n < min) return { error: `argument must be between ${min} and 9223372036854775807 inclusive` };
      return { ok: String(n) };
    },
  };
}

export type ClientClass = 'normal' | 'slave' | 'pubsub';

export interface OutputBufferLimit {
  hard: number;
  soft: number;
  softSeconds: number;
}

const CLASS_NAMES: Record<string, ClientClass> = { normal: 'normal', slave: 'slave', replica: 'slave', pubsub: 'pubsub' };
const CLASS_ORDER: ClientClass[] = ['normal', 'slave', 'pubsub'];

/** Parses the stored "normal H S N slave H S N pubsub H S N" form. */
export function parseOutputBufferLimits(value: string): Record<ClientClass, OutputBufferLimit> {
  const words = value.split(' ');
  const out = {} as Record<ClientClass, OutputBufferLimit>;
  for (let i = 0; i + 3 < words.length; i += 4) {
    out[words[i] as ClientClass] = { hard: Number(words[i + 1]), soft: Number(words[i + 2]), softSeconds: Number(words[i + 3]) };
  }
  return out;
}

/**
 * CONFIG SET client-output-buffer-limit: "<class> <hard> <soft> <soft seconds>" groups, each
 * replacing that class's limits; classes not named keep theirs. Redis's error texts.
 */
export function validateOutputBufferLimits(value: string, current: string): { ok: string } | { error: string } {
  const words = value.split(' ').filter((w) => w.length > 0);
  if (words.length % 4 !== 0) return { error: 'Wrong number of arguments in buffer limit configuration.' };
  const limits = parseOutputBufferLimits(current);
  for (let i = 0; i < words.length; i += 4) {
    const cls = CLASS_NAMES[words[i]!.toLowerCase()];
    if (cls === undefined) return { error: 'Invalid client class specified in buffer limit configuration.' };
    const hard = parseMemory(words[i + 1]!);
    const soft = parseMemory(words[i + 2]!);
    const seconds = /^\d+$/.test(words[i + 3]!) ? Number(words[i + 3]) : undefined;
    if (hard === undefined || soft === undefined || seconds === undefined) {
      return { error: 'Error in hard, soft or soft_seconds setting in buffer limit configuration.' };
    }
    limits[cls] = { hard, soft, softSeconds: seconds };
  }
  return { ok: CLASS_ORDER.map((c) => `${c} ${limits[c].hard} ${limits[c].soft} ${limits[c].softSeconds}`).join(' ') };
}

const LLONG_MAX = 9223372036854775807n;

/**
 * An integer parameter as Redis 7.0's numeric configs read one (string2ll: no sign but '-', no
 * leading zero, within long long), then checked against the parameter's bounds.
 */
export function strictInteger(min: bigint, max: bigint): (value: string) => { ok: string } | { error: string } {
  return (value) => {
    const bad = { error: 'argument couldn\'t be parsed into an integer' };
    if (!/^(0|-?[1-9][0-9]{0,18})$/.test(value)) return bad;
    const n = BigInt(value);
    if (n > LLONG_MAX || n < -LLONG_MAX - 1n) return bad;
    if (n < min || n > max) return { error: `argument must be between ${min} and ${max} inclusive` };
    return { ok: n.toString() };
  };
}

/**
 * A size_t parameter of Redis's MEMORY_CONFIG kind (hash-max-listpack-value): memtoull's digits
 * and unit ("1k", "1kb", "" is 0), at most LONG_MAX, shown in bytes.
 */
export function memoryBytes(value: string): { ok: string } | { error: string } {
  if (value === '') return { ok: '0' };
  const m = /^(\d+)([a-z]*)$/i.exec(value);
  const unit = m === null ? undefined : UNITS[m[2]!.toLowerCase()];
  if (m === null || unit === undefined) return { error: 'argument must be a memory value' };
  const n = BigInt(m[1]!) * BigInt(unit);
  if (n > LLONG_MAX) return { error: `argument must be between 0 and ${LLONG_MAX} inclusive` };
  return { ok: n.toString() };
}
