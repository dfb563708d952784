// Arguments for a script as one JSON text, which Redis's Lua decodes with its built-in cjson.
// A script call with hundreds of arguments costs the client, per argument, a length, a header
// and a write (and Redis a bulk string to parse); as one text, it is one of each. Every argument
// goes as the text RESP would carry. Some cannot: bytes (a Buffer), and lone surrogates, which
// JSON.stringify escapes as `\udXXX` (cjson refuses them, where RESP writes U+FFFD); then the
// caller sends the arguments themselves.
import type { Arg } from '../client/connection.js';

/** Lua 5.1's unpack stops at about 8,000 values: a longer row is not sent as JSON. */
export const MAX_UNPACKED = 7000;

/** Rows of arguments as JSON [[…], …]; null when one cannot go that way (see above). */
export function rowsJson(rows: readonly Arg[][]): string | null {
  const out: string[][] = new Array<string[]>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = textsOf(rows[i]!);
    if (row === null) return null;
    out[i] = row;
  }
  return checked(JSON.stringify(out));
}

/** One row of arguments as JSON […]; null when it cannot go that way. */
export function argsJson(args: readonly Arg[]): string | null {
  const row = textsOf(args);
  return row === null ? null : checked(JSON.stringify(row));
}

function textsOf(args: readonly Arg[]): string[] | null {
  if (args.length > MAX_UNPACKED) return null;
  const row = new Array<string>(args.length);
  for (let j = 0; j < args.length; j++) {
    const a = args[j];
    if (typeof a === 'string') row[j] = a;
    else if (typeof a === 'number' || typeof a === 'bigint') row[j] = String(a);
    else return null;
  }
  return row;
}

function checked(json: string): string | null {
  return /\\ud[89a-f]/i.test(json) ? null : json;
}
