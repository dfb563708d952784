// Rendering for operator commands: aligned tables for terminals, --json for scripts, --watch
// refreshing in place, and a progress helper (a bar on a TTY, plain lines otherwise).
import type { Writable } from 'node:stream';

export type Cell = string | number | bigint | null | undefined;

function cellText(c: Cell): string {
  return c === null || c === undefined ? '-' : String(c);
}

/** Columns padded to their widest cell; numbers right-aligned. */
export function renderTable(headers: string[], rows: Cell[][]): string {
  const text = rows.map((r) => headers.map((_, i) => cellText(r[i])));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((r) => r[i]!.length)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => r[i] === null || r[i] === undefined || typeof r[i] !== 'string'));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n');
}

/** `key  value` lines, keys padded. */
export function renderPairs(pairs: Array<[string, Cell]>): string {
  const w = Math.max(0, ...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${k.padEnd(w)}  ${cellText(v)}`).join('\n');
}

/** JSON with bigints as numbers where exact, strings otherwise. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'bigint' ? (v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : String(v)) : v,
  2);
}

export interface WatchOptions {
  intervalMs: number;
  out?: Writable & { isTTY?: boolean };
  /** Stops after this many renders (tests, scripts); forever by default. */
  iterations?: number;
  signal?: AbortSignal;
}

/**
 * Renders `produce()` every interval: on a TTY the screen is cleared and redrawn in place;
 * otherwise each frame is printed after a blank line, so a log stays readable.
 */
export async function watch(produce: () => Promise<string>, options: WatchOptions): Promise<void> {
  const out = options.out ?? process.stdout;
  for (let i = 0; options.iterations === undefined || i < options.iterations; i++) {
    if (options.signal?.aborted) return;
    const frame = await produce();
    if (out.isTTY) out.write(`\x1b[H\x1b[2J${frame}\n`);
    else out.write(`${i === 0 ? '' : '\n'}${frame}\n`);
    if (options.iterations !== undefined && i + 1 >= options.iterations) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, options.intervalMs);
      options.signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
    });
  }
}

export interface Progress {
  /** Sets the amount done so far (absolute, clamped to the total). */
  update(done: number, note?: string): void;
  /** Ends the progress output, showing the amount reached (and the note). */
  finish(note?: string): void;
  /** Prints a message line (to `to`, stdout by default) without garbling the bar on a TTY. */
  log(line: string, to?: Writable): void;
}

export interface ProgressOptions {
  total: number;
  label: string;
  out?: Writable & { isTTY?: boolean; columns?: number };
  /** Non-TTY: print a line each time this fraction more is done (default 0.1 = every 10%). */
  step?: number;
}

/**
 * A progress bar redrawn on one line on a TTY; elsewhere (pipes, CI logs) plain lines
 * `label 30% (3000/10000)` at each step, so logs are not flooded with carriage returns.
 */
export function progress(options: ProgressOptions): Progress {
  const out = options.out ?? process.stderr;
  const total = Math.max(1, options.total);
  // Integer step arithmetic: 3/10/0.1 is 2.999… in floating point.
  const steps = Math.max(1, Math.round(1 / (options.step ?? 0.1)));
  let lastStep = -1;
  let lastPrinted = -1;
  let finished = false;
  const pct = (n: number): number => Math.floor((n / total) * 100);
  const text = (n: number, note?: string): string =>
    `${options.label} ${pct(n)}% (${n}/${options.total})${note ? ` ${note}` : ''}`;
  const bar = (n: number, note?: string): string => {
    const width = 30;
    const filled = Math.round((n / total) * width);
    return `\r${options.label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${pct(n)}% ${n}/${options.total}${note ? ` ${note}` : ''}\x1b[K`;
  };
  let current = 0;
  let drawn = false;
  let lastNote: string | undefined;
  return {
    update(done, note) {
      if (finished) return;
      current = Math.min(Math.max(0, done), options.total);
      if (out.isTTY) {
        out.write(bar(current, note));
        drawn = true;
        lastNote = note;
        return;
      }
      const s = Math.floor((current * steps) / total);
      if (s > lastStep) {
        lastStep = s;
        lastPrinted = current;
        out.write(`${text(current, note)}\n`);
      }
    },
    finish(note) {
      if (finished) return;
      finished = true;
      // Shows where the work stopped (not 100% when it was cut short), once.
      if (out.isTTY) out.write(`${bar(current, note)}\n`);
      else if (note !== undefined || lastPrinted !== current) out.write(`${text(current, note)}\n`);
    },
    log(line, to = process.stdout) {
      if (!out.isTTY || !drawn || finished) {
        to.write(`${line}\n`);
        return;
      }
      // Both streams end on the same terminal: clear the bar's line, print, redraw the bar.
      out.write('\r\x1b[K');
      to.write(`${line}\n`);
      out.write(bar(current, lastNote));
    },
  };
}
