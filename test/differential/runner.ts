// Runs one script against Redis and sluice side by side and reports the first reply that
// differs. Each script gets fresh connections (so SELECT/HELLO state starts clean) and an
// empty keyspace (FLUSHALL on both).
import { type Frame, showRaw } from './frames.js';
import { normaliser } from './normalize.js';
import type { Step } from './case-types.js';
import type { RawConnection, Target } from './targets.js';

export interface Mismatch {
  step: number;
  argv: string[];
  redis: string;
  sluice: string;
}

export function describeStep(step: Step): string {
  if (Array.isArray(step)) return step.map((a) => JSON.stringify(a)).join(' ');
  if ('sleepMs' in step) return `(sleep ${step.sleepMs} ms)`;
  const args = step.argv.map((a) => JSON.stringify(a)).join(' ');
  const replies = 'replies' in step ? `   [${step.replies} replies]` : '';
  if (step.mask === undefined) return args + replies;
  return `${args}${replies}   [mask: ${typeof step.mask === 'string' ? step.mask : 'custom'}]`;
}

async function openPair(redis: Target, sluice: Target, protocol: 2 | 3): Promise<[RawConnection, RawConnection]> {
  const pair: [RawConnection, RawConnection] = [await redis.connect(), await sluice.connect()];
  for (const conn of pair) {
    if (protocol === 3) {
      // HELLO's reply names the server and its version, so it is checked, not compared.
      const hello = await conn.command(['HELLO', '3']);
      if (hello.type !== '%') throw new Error(`HELLO 3 failed: ${showRaw(hello.raw)}`);
    }
    const flushed = await conn.command(['FLUSHALL']);
    if (flushed.raw.toString() !== '+OK\r\n') throw new Error(`FLUSHALL failed: ${showRaw(flushed.raw)}`);
  }
  return pair;
}

function bytes(frame: Frame, step: Step): string {
  if (!Array.isArray(step) && 'mask' in step && step.mask !== undefined) return normaliser(step.mask)(frame).toString('latin1');
  return frame.raw.toString('latin1');
}

/** Runs the steps; resolves to the first mismatch, or null when every reply matched. */
export async function runScript(
  redis: Target,
  sluice: Target,
  steps: Step[],
  protocol: 2 | 3,
): Promise<Mismatch | null> {
  const [r, s] = await openPair(redis, sluice, protocol);
  try {
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      if (!Array.isArray(step) && 'sleepMs' in step) {
        await new Promise((resolve) => setTimeout(resolve, step.sleepMs));
        continue;
      }
      const argv = Array.isArray(step) ? step : step.argv;
      const replies = !Array.isArray(step) && 'replies' in step ? step.replies : 1;
      const [fr, fs] = await Promise.all([r.command(argv, replies), s.command(argv, replies)]);
      const br = bytes(fr, step);
      const bs = bytes(fs, step);
      if (br !== bs) return { step: i, argv, redis: showRaw(br), sluice: showRaw(bs) };
    }
    return null;
  } finally {
    r.close();
    s.close();
  }
}

export function formatMismatch(m: Mismatch, steps: Step[], context = 12): string {
  const from = Math.max(0, m.step - context);
  const lines = steps.slice(from, m.step + 1).map((st, j) => `  ${String(from + j).padStart(4)}: ${describeStep(st)}`);
  return [
    `step ${m.step}: ${m.argv.join(' ')}`,
    `  redis : ${m.redis}`,
    `  sluice: ${m.sluice}`,
    'script up to the failing step:',
    ...lines,
  ].join('\n');
}
