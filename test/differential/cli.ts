// The `cli` template tag: a case's steps written as they would be typed at redis-cli, one
// command a line, so a case reads as a session rather than as nested string arrays.
//
//   steps: cli`
//     ZADD z 1 a 2 b
//     ZRANGEBYSCORE z (1 +inf
//     SMEMBERS big         => sorted
//     ZSCAN big 0          => ${zscanPairs}
//     ZADD big ${MANY}
//     @sleep 15
//   `
//
// - Arguments split on spaces; "double quotes" hold spaces or an empty argument (no escapes
//   inside: anything unprintable or non-ASCII goes in as a `${'JS string'}`).
// - The text is taken raw: a backslash is a backslash (`KEYS h\*llo`).
// - `${value}` as a whole argument: a string is one argument, an array is spread, a number is
//   its decimal text. After `=>`, a mask name or a normaliser function.
// - `@sleep N` pauses N ms; blank lines and lines starting with `#` are skipped.
import type { Step } from './case-types.js';
import { masks, type MaskName, type Normaliser } from './normalize.js';

type Interpolated = string | number | readonly (string | number)[] | Normaliser;

const HOLE = /^\u0001(\d+)\u0001$/;

export function cli(template: TemplateStringsArray, ...values: Interpolated[]): Step[] {
  // Each interpolation becomes a placeholder token, so splitting never looks inside a value.
  const text = template.raw.reduce((acc, part, i) => acc + (i === 0 ? '' : `\u0001${i - 1}\u0001`) + part, '');
  const steps: Step[] = [];
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const tokens = splitArgs(line);
    if (tokens[0] === '@sleep') {
      steps.push({ sleepMs: Number(tokens[1]) });
      continue;
    }
    const arrow = tokens.indexOf('=>');
    const argTokens = arrow === -1 ? tokens : tokens.slice(0, arrow);
    const argv = argTokens.flatMap((token) => expand(token, values, line));
    if (arrow === -1) {
      steps.push(argv);
      continue;
    }
    if (arrow !== tokens.length - 2) throw new Error(`cli: one mask after "=>" in: ${line}`);
    steps.push({ argv, mask: maskOf(tokens[arrow + 1]!, values, line) });
  }
  return steps;
}

function splitArgs(line: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < line.length) {
    if (line[i] === ' ') {
      i++;
      continue;
    }
    if (line[i] === '"') {
      const end = line.indexOf('"', i + 1);
      if (end === -1) throw new Error(`cli: unbalanced quotes in: ${line}`);
      tokens.push(line.slice(i + 1, end));
      i = end + 1;
      continue;
    }
    const end = line.indexOf(' ', i);
    tokens.push(line.slice(i, end === -1 ? line.length : end));
    i = end === -1 ? line.length : end;
  }
  return tokens;
}

function expand(token: string, values: Interpolated[], line: string): string[] {
  const hole = HOLE.exec(token);
  if (hole === null) {
    if (token.includes('\u0001')) throw new Error(`cli: an interpolation must be a whole argument in: ${line}`);
    return [token];
  }
  const value = values[Number(hole[1])];
  if (typeof value === 'string') return [value];
  if (typeof value === 'number') return [String(value)];
  if (Array.isArray(value)) return value.map(String);
  throw new Error(`cli: a function can only follow "=>" in: ${line}`);
}

function maskOf(token: string, values: Interpolated[], line: string): MaskName | Normaliser {
  const hole = HOLE.exec(token);
  if (hole !== null) {
    const value = values[Number(hole[1])];
    if (typeof value === 'function') return value as Normaliser;
  } else if (token in masks) {
    return token as MaskName;
  }
  throw new Error(`cli: unknown mask "${token}" in: ${line}`);
}
