// The scripting figures of INFO memory and MEMORY STATS, as Redis 7.0 counts them: each
// interpreter's memory as Lua's collector counts it (luaMemory: lua_gc's KB count), and the
// caches' overhead (eval.c's evalScriptsMemory, functions.c's functionsMemoryOverhead) counted
// from the scripts and libraries sluice holds, in the sizes Redis's structs and sds strings
// take under jemalloc.
import type { InstanceView } from '../types.js';
import { allocSize, dictSlots, sdsSize } from '../object-encoding.js';
import { librariesOf } from './function-libraries.js';
import { scriptsOf } from './script-engine.js';

const DICT_ENTRY = 24;
const POINTER = 8;
/** struct luaScript: flags and the body robj. */
const LUA_SCRIPT = 16;
/** A robj's header; a short argument is an embstr, the robj and its sds in one allocation. */
const ROBJ = 16;
const EMBSTR_MAX = 44;
/** struct functionInfo (name, function, li, desc, f_flags), struct functionLibInfo (name, functions, ei, code). */
const FUNCTION_INFO = 40;
const LIBRARY_INFO = 32;
/** The compiled function of the Lua engine (luaFunctionCtx: the registry ref). */
const LUA_FUNCTION_CTX = 4;
/** sizeof(functionsLibCtx): libraries, functions, cache_memory, engines_stats. */
const LIB_CTX = 32;
/**
 * The Lua engine's registration (engine_cache_memory): its engineInfo (3 pointers), the name
 * "LUA", the engine's callbacks (7 pointers) and its context (the lua_State pointer).
 */
const ENGINE = allocSize(3 * POINTER) + sdsSize(3) + allocSize(7 * POINTER) + allocSize(POINTER);

export interface ScriptMemory {
  /** used_memory_vm_eval (and the deprecated used_memory_lua): EVAL's interpreter. */
  readonly vmEval: number;
  /** used_memory_vm_functions: the function libraries' interpreter. */
  readonly vmFunctions: number;
  /** used_memory_scripts_eval (MEMORY STATS lua.caches): the script cache. */
  readonly scriptsEval: number;
  /** used_memory_functions (MEMORY STATS functions.caches): the libraries and their functions. */
  readonly functionsCaches: number;
  readonly cachedScripts: number;
  readonly functions: number;
  readonly libraries: number;
}

/** A dict's entries and buckets (0 for an empty one: Redis frees its table). */
function dictBytes(size: number, entry: number): number {
  return size === 0 ? 0 : size * entry + dictSlots(size) * POINTER;
}

/** getStringObjectSdsUsedMemory of a command argument Redis keeps (EVAL's body). */
function argumentBytes(len: number): number {
  return len <= EMBSTR_MAX ? allocSize(ROBJ + 3 + len + 1) - ROBJ : sdsSize(len);
}

/** luaMemory: the collector's count in whole kilobytes. */
const kilobytes = (bytes: number): number => Math.floor(bytes / 1024) * 1024;

export function scriptMemory(instance: InstanceView): ScriptMemory {
  const scripts = scriptsOf(instance);
  const libs = librariesOf(instance);
  const vms = scripts.interpretersMemory();
  let scriptsEval = dictBytes(scripts.cache.size, DICT_ENTRY + LUA_SCRIPT);
  for (const script of scripts.cache.values()) scriptsEval += sdsSize(40) + argumentBytes(script.body.length);
  let functionsCaches = DICT_ENTRY + dictSlots(1) * POINTER + dictBytes(libs.functions.size, DICT_ENTRY) + LIB_CTX + ENGINE;
  for (const library of libs.libraries.values()) {
    functionsCaches += allocSize(LIBRARY_INFO) + sdsSize(Buffer.byteLength(library.name, 'latin1')) + sdsSize(library.code.length);
    for (const fn of library.functions) {
      functionsCaches += allocSize(FUNCTION_INFO) + sdsSize(Buffer.byteLength(fn.name, 'latin1')) + allocSize(LUA_FUNCTION_CTX);
      if (fn.description !== null) functionsCaches += sdsSize(fn.description.length);
    }
  }
  return {
    vmEval: kilobytes(vms.eval),
    vmFunctions: kilobytes(vms.functions),
    scriptsEval,
    functionsCaches,
    cachedScripts: scripts.cache.size,
    functions: libs.functions.size,
    libraries: libs.libraries.size,
  };
}
