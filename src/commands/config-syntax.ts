// The text syntax of redis.conf, shared by the loader (cli/config-file.ts) and CONFIG REWRITE
// (config-rewrite.ts): Redis's sdssplitargs (how a line splits into words, with its quoting),
// sdscatrepr (how a string value is written back, quoted) and the memory units a rewrite uses.

const HEX = /^[0-9a-fA-F]{2}$/;

/** Redis's isspace: space, \t, \n, \v, \f, \r. */
function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\v' || c === '\f' || c === '\r';
}

/**
 * As Redis's sdssplitargs: words separated by spaces, "double quoted" (with \n \r \t \b \a,
 * \xHH and \<char> escapes) or 'single quoted' (only \' escaped); a closing quote must end the
 * word. Returns null for unbalanced quotes (Redis's "Unbalanced quotes in configuration line").
 */
export function splitArgs(line: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    while (i < line.length && isSpace(line[i])) i++;
    if (i >= line.length) return out;
    let inq = false; // "..."
    let insq = false; // '...'
    let done = false;
    let current = '';
    while (!done) {
      const c = line[i];
      if (inq) {
        if (c === undefined) return null;
        if (c === '\\' && line[i + 1] === 'x' && HEX.test(line.slice(i + 2, i + 4))) {
          current += String.fromCharCode(parseInt(line.slice(i + 2, i + 4), 16));
          i += 3;
        } else if (c === '\\' && line[i + 1] !== undefined) {
          i++;
          const e = line[i]!;
          current += e === 'n' ? '\n' : e === 'r' ? '\r' : e === 't' ? '\t' : e === 'b' ? '\b' : e === 'a' ? '\x07' : e;
        } else if (c === '"') {
          // The closing quote must be followed by a space or nothing.
          if (line[i + 1] !== undefined && !isSpace(line[i + 1])) return null;
          done = true;
        } else {
          current += c;
        }
      } else if (insq) {
        if (c === undefined) return null;
        if (c === '\\' && line[i + 1] === "'") {
          i++;
          current += "'";
        } else if (c === "'") {
          if (line[i + 1] !== undefined && !isSpace(line[i + 1])) return null;
          done = true;
        } else {
          current += c;
        }
      } else if (c === undefined || isSpace(c)) {
        done = true;
      } else if (c === '"') {
        inq = true;
      } else if (c === "'") {
        insq = true;
      } else {
        current += c;
      }
      if (i < line.length) i++;
    }
    out.push(current);
  }
}

/** As Redis's sdscatrepr: the value in double quotes, with C escapes for what is not printable. */
export function repr(value: string): string {
  let out = '"';
  for (const ch of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(ch);
    if (c === '\\' || c === '"') out += `\\${c}`;
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (c === '\x07') out += '\\a';
    else if (c === '\b') out += '\\b';
    else if (ch >= 0x20 && ch < 0x7f) out += c;
    else out += `\\x${ch.toString(16).padStart(2, '0')}`;
  }
  return `${out}"`;
}

/** As Redis's rewriteConfigFormatMemory: bytes in gb, mb or kb when they divide evenly. */
export function formatMemory(bytes: number): string {
  const gb = 1024 ** 3;
  const mb = 1024 ** 2;
  if (bytes !== 0 && bytes % gb === 0) return `${bytes / gb}gb`;
  if (bytes !== 0 && bytes % mb === 0) return `${bytes / mb}mb`;
  if (bytes !== 0 && bytes % 1024 === 0) return `${bytes / 1024}kb`;
  return String(bytes);
}
