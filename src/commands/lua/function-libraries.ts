// An instance's function libraries, as Redis 7.0's functions.c: FUNCTION LOAD (the library's
// code runs once in the functions' interpreter and registers its functions), LIST, DELETE,
// FLUSH, STATS, and FCALL's lookup. Libraries are named case-sensitively, functions not
// (Redis's dict types). Functions run through the ScriptEngine, with the same checks and
// propagation as EVAL's scripts.
import { Buffer } from 'node:buffer';
import { fail, MapReply, type Reply, SetReply, SimpleString } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { globMatch } from '../glob.js';
import { perInstance } from '../per-instance.js';
import type { RegisteredFunction } from './lua-vm.js';
import { type ScriptEngine, type ScriptFlags, scriptsOf } from './script-engine.js';
import { splitArgs } from '../../resp/parser.js';

const FLAG_ORDER = ['no-writes', 'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys'] as const;

export interface LibraryFunction {
  readonly ref: number;
  readonly name: string;
  readonly description: Buffer | null;
  /** The registered flags as FUNCTION LIST names them, in Redis's order. */
  readonly flagNames: string[];
  readonly flags: ScriptFlags;
  readonly library: Library;
}

export interface Library {
  readonly name: string;
  readonly code: Buffer;
  readonly functions: LibraryFunction[];
}

function toFlags(bits: number): ScriptFlags {
  return {
    compat: false,
    noWrites: (bits & 1) !== 0,
    allowOom: (bits & 2) !== 0,
    allowStale: (bits & 4) !== 0,
    noCluster: (bits & 8) !== 0,
    allowCrossSlot: (bits & 16) !== 0,
  };
}

/** A library's metadata (functionExtractLibMetaData): its engine, its name, the code after the shebang. */
export interface LibraryMetadata {
  engine: string;
  name: string;
  /** From the shebang's line feed on: line numbers stay the user's. */
  code: Buffer;
}

export function libraryMetadata(payload: Buffer): LibraryMetadata {
  if (payload.length < 2 || payload[0] !== 0x23 || payload[1] !== 0x21) fail(Errors.metadataMissing);
  // strchr on the C string: a NUL before the line feed ends the search.
  const newline = payload.indexOf(0x0a);
  const nul = payload.indexOf(0);
  if (newline < 0 || (nul >= 0 && nul < newline)) fail(Errors.metadataInvalid);
  // sdssplitargs over the first line, which holds no NUL (checked above).
  const parts = splitArgs(payload, 0, newline);
  if (parts === null || parts.length === 0) fail(Errors.metadataInvalid);
  const engine = parts[0]!.subarray(2).toString('latin1');
  let name: string | undefined;
  for (const part of parts.slice(1)) {
    if (part.subarray(0, 5).toString('latin1').toLowerCase() !== 'name=') fail(Errors.metadataValue(part.toString('utf8')));
    if (name !== undefined) fail(Errors.metadataNameTwice);
    name = part.subarray(5).toString('latin1');
  }
  if (name === undefined) fail(Errors.libraryNameNotGiven);
  return { engine, name, code: payload.subarray(newline) };
}

/**
 * A set of libraries and their functions (Redis's functionsLibCtx): the instance's current one,
 * or one built aside (FUNCTION RESTORE, an RDB file) and then joined or swapped in.
 */
export class FunctionLibraries {
  readonly libraries = new Map<string, Library>();
  /** By lower-case name. */
  readonly functions = new Map<string, LibraryFunction>();

  constructor(private readonly scripts: ScriptEngine) {}

  /** An empty set on the same interpreter. */
  fresh(): FunctionLibraries {
    return new FunctionLibraries(this.scripts);
  }

  /**
   * functionsCreateWithLibraryCtx: the metadata checks, then the library's code runs once and
   * registers its functions. `timeout` false when loading from a file or for a client that must
   * be obeyed (Redis's timeout 0). Returns the library's name; fails with Redis's error.
   */
  create(payload: Buffer, replace: boolean, timeout = true): string {
    const md = libraryMetadata(payload);
    if (!/^[A-Za-z0-9_]+$/.test(md.name)) fail(Errors.libraryNameInvalid);
    if (md.engine.toLowerCase() !== 'lua') {
      fail(Errors.engineNotFound(Buffer.from(md.engine, 'latin1').toString('utf8')));
    }
    return this.load(md.name, payload, md.code, replace, timeout);
  }

  /** The library's code runs and registers its functions: `code` is the body after the shebang line. */
  private load(name: string, source: Buffer, code: Buffer, replace: boolean, timeout: boolean): string {
    const old = this.libraries.get(name);
    if (old !== undefined && !replace) fail(Errors.libraryExists(name));
    const loaded = this.scripts.loadLibrary(code, timeout);
    if (typeof loaded === 'string') fail(loaded);
    const vm = this.scripts.functionsVm;
    const drop = (fns: readonly RegisteredFunction[]): void => fns.forEach((f) => vm.unref(f.ref));
    if (loaded.length === 0) fail(Errors.noFunctionsRegistered);
    for (const f of loaded) {
      const existing = this.functions.get(f.name.toLowerCase());
      if (existing !== undefined && existing.library !== old) {
        drop(loaded);
        fail(Errors.functionExists(f.name));
      }
    }
    if (old !== undefined) this.remove(old);
    const library: Library = { name, code: Buffer.from(source), functions: [] };
    for (const f of loaded) {
      const fn: LibraryFunction = {
        ref: f.ref,
        name: f.name,
        description: f.description,
        flagNames: FLAG_ORDER.filter((_, i) => (f.flags & (1 << i)) !== 0),
        flags: toFlags(f.flags),
        library,
      };
      library.functions.push(fn);
    }
    this.link(library);
    return name;
  }

  /** libraryLink: the library and its functions become visible. */
  private link(library: Library): void {
    for (const fn of library.functions) this.functions.set(fn.name.toLowerCase(), fn);
    this.libraries.set(library.name, library);
  }

  /** libraryUnlink: forgets the library without releasing its functions. */
  private unlink(library: Library): void {
    for (const fn of library.functions) this.functions.delete(fn.name.toLowerCase());
    this.libraries.delete(library.name);
  }

  /**
   * libraryJoin (FUNCTION RESTORE APPEND / REPLACE): moves `src`'s libraries in. A library of
   * the same name fails the join, or is replaced with `replace`; a function of the same name in
   * another library fails it. On failure nothing changes here and `src` keeps its libraries.
   */
  join(src: FunctionLibraries, replace: boolean): void {
    const replaced: Library[] = [];
    const restore = (): void => replaced.forEach((old) => this.link(old));
    for (const library of src.libraries.values()) {
      const old = this.libraries.get(library.name);
      if (old === undefined) continue;
      if (!replace) {
        restore();
        fail(Errors.libraryExistsUnquoted(library.name));
      }
      this.unlink(old);
      replaced.push(old);
    }
    for (const fn of src.functions.values()) {
      if (this.functions.has(fn.name.toLowerCase())) {
        restore();
        fail(Errors.functionExists(fn.name));
      }
    }
    for (const library of [...src.libraries.values()]) {
      src.unlink(library);
      this.link(library);
    }
    const vm = this.scripts.functionsVm;
    for (const old of replaced) for (const fn of old.functions) vm.unref(fn.ref);
  }

  /** functionsLibCtxSwapWithCurrent: this set's libraries become `src`'s, the old ones released. */
  replaceWith(src: FunctionLibraries): void {
    this.flush();
    for (const library of [...src.libraries.values()]) {
      src.unlink(library);
      this.link(library);
    }
  }

  /** Each library's code (with its shebang), as FUNCTION DUMP and the RDB file hold them. */
  codes(): Buffer[] {
    return [...this.libraries.values()].map((library) => library.code);
  }

  /** Forgets a library and its functions. */
  remove(library: Library): void {
    this.unlink(library);
    const vm = this.scripts.functionsVm;
    for (const fn of library.functions) vm.unref(fn.ref);
  }

  flush(): void {
    for (const library of [...this.libraries.values()]) this.remove(library);
  }

  /** FUNCTION LIST's reply. */
  list(pattern: Buffer | null, withCode: boolean): Reply {
    const out: Reply[] = [];
    for (const library of this.libraries.values()) {
      if (pattern !== null && !globMatch(pattern.toString('latin1'), library.name, true)) continue;
      const entries: Array<[Reply, Reply]> = [
        ['library_name', library.name],
        ['engine', 'LUA'],
        [
          'functions',
          library.functions.map(
            (fn) =>
              new MapReply([
                ['name', fn.name],
                ['description', fn.description],
                ['flags', new SetReply(fn.flagNames.map((f) => new SimpleString(f)))],
              ]),
          ),
        ],
      ];
      if (withCode) entries.push(['library_code', library.code]);
      out.push(new MapReply(entries));
    }
    return out;
  }

  get functionCount(): number {
    return this.functions.size;
  }
}

/** The instance's function libraries. */
export const librariesOf = perInstance((instance) => new FunctionLibraries(scriptsOf(instance)));
