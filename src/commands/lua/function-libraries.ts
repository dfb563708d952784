// An instance's function libraries, as Redis 7.0's functions.c: FUNCTION LOAD (the library's
// code runs once in the functions' interpreter and registers its functions), LIST, DELETE,
// FLUSH, STATS, and FCALL's lookup. Libraries are named case-sensitively, functions not
// (Redis's dict types). Functions run through the ScriptEngine, with the same checks and
// propagation as EVAL's scripts.
import { Buffer } from 'node:buffer';
import { fail, MapReply, type Reply, SetReply, SimpleString } from '../../resp/reply.js';
import { Errors } from '../../resp/errors.js';
import { globMatch } from '../glob.js';
import type { InstanceView } from '../types.js';
import type { RegisteredFunction } from './lua-vm.js';
import { type ScriptEngine, type ScriptFlags, scriptsOf } from './script-engine.js';

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

export class FunctionLibraries {
  readonly libraries = new Map<string, Library>();
  /** By lower-case name. */
  readonly functions = new Map<string, LibraryFunction>();

  constructor(private readonly scripts: ScriptEngine) {}

  /** FUNCTION LOAD after the metadata checks: `code` is the body after the shebang line. */
  load(name: string, source: Buffer, code: Buffer, replace: boolean): string {
    const old = this.libraries.get(name);
    if (old !== undefined && !replace) fail(Errors.libraryExists(name));
    const loaded = this.scripts.loadLibrary(code);
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
      this.functions.set(f.name.toLowerCase(), fn);
    }
    this.libraries.set(name, library);
    return name;
  }

  /** Forgets a library and its functions. */
  remove(library: Library): void {
    const vm = this.scripts.functionsVm;
    for (const fn of library.functions) {
      this.functions.delete(fn.name.toLowerCase());
      vm.unref(fn.ref);
    }
    this.libraries.delete(library.name);
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

const libraries = new WeakMap<InstanceView, FunctionLibraries>();

/** The instance's function libraries. */
export function librariesOf(instance: InstanceView): FunctionLibraries {
  let libs = libraries.get(instance);
  if (libs === undefined) {
    libs = new FunctionLibraries(scriptsOf(instance));
    libraries.set(instance, libs);
  }
  return libs;
}
