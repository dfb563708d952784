// Redis's key specs searched over a command line (db.c getKeysUsingKeySpecs): the keys of a
// command and the flags of each (COMMAND GETKEYSANDFLAGS). Specs whose search Redis cannot run
// (unknown begin_search or find_keys, INCOMPLETE, VARIABLE_FLAGS) leave the answer to the
// command's own key positions, as Redis falls back to its getkeys procs.
import { Buffer } from 'node:buffer';
import { MapReply, type Reply, SetReply, SimpleString } from '../resp/reply.js';
import { KEY_SPECS } from './key-specs.generated.js';

export interface KeyRef {
  pos: number;
  flags: string[];
}

/**
 * The keys of `line` (the command name first) by the specs of `fullName`; null when Redis would
 * use the command's getkeys proc instead (no usable spec, an invalid one, or one with flags that
 * vary with the arguments).
 */
export function searchKeySpecs(fullName: string, line: Buffer[], arity: number): KeyRef[] | null {
  const specs = KEY_SPECS[fullName];
  if (specs === undefined) return null;
  const usable = specs.some((s) => !s.flags.includes('not_key'));
  const varflags = specs.some((s) => s.flags.includes('variable_flags'));
  if (!usable || varflags) return null;
  const argc = line.length;
  const out: KeyRef[] = [];
  for (const spec of specs) {
    if (spec.flags.includes('not_key')) continue;
    let first = 0;
    if (typeof spec.bs === 'number') first = spec.bs;
    else if (spec.bs !== null) {
      const [keyword, startfrom] = spec.bs;
      const start = startfrom > 0 ? startfrom : argc + startfrom;
      const end = startfrom > 0 ? argc - 1 : 1;
      for (let i = start; i !== end; i = start <= end ? i + 1 : i - 1) {
        if (i >= argc || i < 1) break;
        if (line[i]!.toString('latin1').toLowerCase() === keyword.toLowerCase()) {
          first = i + 1;
          break;
        }
      }
      if (first === 0) continue;
    } else return null;
    let last: number;
    let step: number;
    if (Array.isArray(spec.fk)) {
      const [lastkey, keystep, limit] = spec.fk;
      step = keystep;
      if (lastkey >= 0) last = first + lastkey;
      else if (limit === 0) last = argc + lastkey;
      else last = first + (Math.trunc((argc - first) / limit) + lastkey);
    } else if (spec.fk !== null) {
      step = spec.fk.step;
      if (spec.fk.keynumidx >= argc) return null;
      const text = line[first + spec.fk.keynumidx]?.toString('latin1') ?? '';
      if (!/^(0|-?[1-9][0-9]*)$/.test(text) || Number(text) < 0) return null;
      first += spec.fk.firstkey;
      last = first + Number(text) - 1;
    } else return null;
    if (last >= argc || last < first || first >= argc) return null;
    for (let i = first; i <= last; i += step) {
      if (i >= argc) {
        if (arity < 0) continue;
        return null;
      }
      out.push({ pos: i, flags: spec.flags });
    }
    if (spec.flags.includes('incomplete')) return null;
  }
  return out;
}

/**
 * The two commands whose key flags vary with their arguments (VARIABLE_FLAGS), as Redis's
 * setGetKeys and bitfieldGetKeys: SET reads the key with GET; BITFIELD only reads it with GETs.
 */
function variableFlags(fullName: string, line: Buffer[]): string[] | null {
  const word = (i: number) => line[i]!.toString('latin1').toLowerCase();
  if (fullName === 'set') {
    for (let i = 3; i < line.length; i++) if (word(i) === 'get') return ['RW', 'access', 'update'];
    return ['OW', 'update'];
  }
  if (fullName === 'bitfield') {
    let readonly = true;
    for (let i = 2; i < line.length; i++) {
      const remaining = line.length - i - 1;
      const arg = word(i);
      if (arg === 'get' && remaining >= 2) i += 2;
      else if ((arg === 'set' || arg === 'incrby') && remaining >= 3) {
        readonly = false;
        break;
      } else if (arg === 'overflow' && remaining >= 1) i += 1;
      else {
        readonly = false; // a syntax error: Redis assumes it writes
        break;
      }
    }
    return readonly ? ['RO', 'access'] : ['RW', 'access', 'update'];
  }
  return null;
}

/**
 * The flags of a key found at `pos` by the command's own positions (where the specs could not
 * be searched): the spec starting at that index, a STORE destination's spec, or the first one.
 */
export function flagsAt(fullName: string, line: Buffer[], pos: number): string[] {
  const variable = variableFlags(fullName, line);
  if (variable !== null) return variable;
  const specs = KEY_SPECS[fullName] ?? [];
  const at = specs.find((s) => s.bs === pos);
  if (at !== undefined) return at.flags;
  const before = line[pos - 1]?.toString('latin1').toLowerCase();
  if (before === 'store' || before === 'storedist') {
    const writer = specs.find((s) => s.flags.includes('OW') || s.flags.includes('RW'));
    if (writer !== undefined) return writer.flags;
  }
  return specs[0]?.flags ?? [];
}

/** COMMAND INFO's key specifications of a command (addReplyCommandKeySpecs). */
export function keySpecsReply(fullName: string): Reply {
  const bytes = (s: string) => Buffer.from(s, 'latin1');
  const unknown = (): Reply => new MapReply([[bytes('type'), bytes('unknown')], [bytes('spec'), new MapReply([])]]);
  return new SetReply(
    (KEY_SPECS[fullName] ?? []).map((spec) => {
      const fields: Array<[Reply, Reply]> = [];
      if (spec.notes !== undefined) fields.push([bytes('notes'), bytes(spec.notes)]);
      fields.push([bytes('flags'), new SetReply(spec.flags.map((f) => new SimpleString(f)))]);
      let bs: Reply;
      if (typeof spec.bs === 'number') {
        bs = new MapReply([[bytes('type'), bytes('index')], [bytes('spec'), new MapReply([[bytes('index'), spec.bs]])]]);
      } else if (spec.bs !== null) {
        const keyword = new MapReply([[bytes('keyword'), bytes(spec.bs[0])], [bytes('startfrom'), spec.bs[1]]]);
        bs = new MapReply([[bytes('type'), bytes('keyword')], [bytes('spec'), keyword]]);
      } else bs = unknown();
      fields.push([bytes('begin_search'), bs]);
      let fk: Reply;
      if (Array.isArray(spec.fk)) {
        const range = new MapReply([[bytes('lastkey'), spec.fk[0]], [bytes('keystep'), spec.fk[1]], [bytes('limit'), spec.fk[2]]]);
        fk = new MapReply([[bytes('type'), bytes('range')], [bytes('spec'), range]]);
      } else if (spec.fk !== null) {
        const keynum = new MapReply([[bytes('keynumidx'), spec.fk.keynumidx], [bytes('firstkey'), spec.fk.firstkey], [bytes('keystep'), spec.fk.step]]);
        fk = new MapReply([[bytes('type'), bytes('keynum')], [bytes('spec'), keynum]]);
      } else fk = unknown();
      fields.push([bytes('find_keys'), fk]);
      return new MapReply(fields);
    }),
  );
}
