// One Lua interpreter: Redis 7.0's own Lua 5.1 with its libraries (cjson, cmsgpack, bit,
// struct) built to WebAssembly (lua.wasm beside this file's source, made by
// scripts/build-lua-wasm.sh from scripts/lua-wasm/sluice_lua.c). The glue in C sets up the
// sandbox and the redis.* API as Redis's scriptingInit() and converts values as script_lua.c;
// this side hands it scripts, arguments and the replies of the commands scripts call, all as
// bytes. A script runs inside the command that ran it, unless it runs past busy-reply-threshold
// on a server: then its interrupt check may yield it (YIELDED) and resume() goes on with it.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RequestArgs } from '../../resp/request-args.js';
import { CallArgs } from './call-args.js';

/** What the interpreter asks of the instance while a script runs. */
export interface LuaHost {
  /**
   * redis.call / redis.pcall: the command's reply as RESP in protocol `resp`, valid until the
   * next call (copied at once). `args` are valid until the next call too (call-args.ts).
   */
  call(args: RequestArgs, resp: 2 | 3): Buffer;
  /** redis.log (level 0 debug .. 3 warning). */
  log(level: number, message: Buffer): void;
  /** redis.set_repl (bit 1: AOF, bit 2: replicas). */
  setRepl(flags: number): void;
  /**
   * Asked every 100000 instructions while `interruptible`: CONTINUE, KILL (the script stops with
   * SCRIPT KILL's error) or, only when `yieldable`, YIELD (run() returns YIELDED; resume() goes on).
   */
  interrupt(yieldable: boolean): Interrupt;
  /** redis.acl_check_cmd: may the script's caller run argv (null: no such command). */
  aclCheck(argv: Buffer[]): boolean | null;
}

export const enum Interrupt {
  CONTINUE = 0,
  KILL = 1,
  YIELD = 2,
}

/** run() and call() of a script that yielded in its interrupt check: resume() continues it. */
export const YIELDED = 'yielded';
export type Yielded = typeof YIELDED;

export interface ScriptResult {
  /** The reply as RESP in the caller's protocol. */
  readonly resp: Buffer;
  /** The reply is an error already counted in the error statistics (a redis.call's error). */
  readonly countedError: boolean;
}

/** A function a library registered (redis.register_function). */
export interface RegisteredFunction {
  /** Its callback's reference in the interpreter's registry. */
  readonly ref: number;
  /** Bits in Redis's order: no-writes, allow-oom, allow-stale, no-cluster, allow-cross-slot-keys. */
  readonly flags: number;
  readonly name: string;
  readonly description: Buffer | null;
}

interface Exports {
  memory: WebAssembly.Memory;
  __indirect_function_table: WebAssembly.Table;
  _initialize(): void;
  stackSave(): number;
  stackRestore(sp: number): void;
  setThrew(threw: number, value: number): void;
  sl_init(versionNum: number, version: number, functions: number): number;
  sl_fload(code: number, len: number, hook: number): number;
  sl_fcall(ref: number, display: number, nkeys: number, nargs: number, ptrs: number, lens: number, resp: number, hook: number): number;
  sl_funref(ref: number): void;
  sl_define(name: number, body: number, len: number): number;
  sl_defined(name: number): number;
  sl_run(name: number, display: number, nkeys: number, nargs: number, ptrs: number, lens: number, resp: number, hook: number): number;
  sl_resume(): number;
  sl_out_ptr(): number;
  sl_out_len(): number;
  sl_alloc(n: number): number;
  sl_free(p: number): void;
  sl_memory(): number;
}

/** Thrown by the glue's longjmp (a Lua error) and caught by the invoke_* import around it. */
const LONGJMP = { longjmp: true };

let compiled: WebAssembly.Module | null = null;

/** The wasm file: beside the compiled module's source (src/commands/lua/), in the repository or the installed package. */
function wasmPath(): string {
  const candidates = [
    new URL('./lua.wasm', import.meta.url),
    // dist/src/commands/lua/ → src/commands/lua/ (the package ships both folders)
    new URL('../../../../src/commands/lua/lua.wasm', import.meta.url),
  ];
  for (const url of candidates) {
    const path = fileURLToPath(url);
    if (existsSync(path)) return path;
  }
  throw new Error('sluice: lua.wasm not found next to ' + fileURLToPath(import.meta.url));
}

function module(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(readFileSync(wasmPath()));
  return compiled;
}

export class LuaVm {
  private readonly x: Exports;
  private tempRet0 = 0;

  constructor(
    private readonly host: LuaHost,
    private readonly version: { num: number; text: string },
    /** The interpreter of function libraries (FUNCTION LOAD, FCALL) rather than of EVAL's scripts. */
    private readonly functions = false,
  ) {
    // Filled in once the instance exists: the imports call back into its exports.
    let x: Exports | null = null;
    const table = (): WebAssembly.Table => x!.__indirect_function_table;
    // The arguments of a redis.* call, each copied out of the memory (a command may keep it).
    const readArgv = (argc: number, argvPtr: number, lensPtr: number): Buffer[] => {
      const view = new DataView(x!.memory.buffer);
      const bytes = new Uint8Array(view.buffer);
      const argv: Buffer[] = new Array(argc);
      for (let i = 0; i < argc; i++) {
        const p = view.getUint32(argvPtr + 4 * i, true);
        argv[i] = Buffer.from(bytes.subarray(p, p + view.getUint32(lensPtr + 4 * i, true)));
      }
      return argv;
    };
    // Views of the memory, made again once it grew: growing detaches the old ArrayBuffer, whose
    // views then read as empty (the memory itself is never empty).
    let bytes = new Uint8Array(0);
    let words = new Uint32Array(0);
    const views = (): void => {
      if (bytes.byteLength !== 0) return;
      bytes = new Uint8Array(x!.memory.buffer);
      words = new Uint32Array(x!.memory.buffer);
    };
    const callArgs = new CallArgs();
    const env = {
      getTempRet0: () => this.tempRet0,
      setTempRet0: (v: number) => {
        this.tempRet0 = v;
      },
      invoke_vii: (index: number, a: number, b: number) => {
        const sp = x!.stackSave();
        try {
          (table().get(index) as (a: number, b: number) => void)(a, b);
        } catch (e) {
          x!.stackRestore(sp);
          if (e !== LONGJMP) throw e;
          x!.setThrew(1, 0);
        }
      },
      _emscripten_throw_longjmp: () => {
        throw LONGJMP;
      },
      emscripten_notify_memory_growth: () => {},
      __syscall_dup3: () => -1,
      sl_js_acl_check: (argc: number, argvPtr: number, lensPtr: number) => {
        const allowed = this.host.aclCheck(readArgv(argc, argvPtr, lensPtr));
        return allowed === null ? -1 : allowed ? 1 : 0;
      },
      sl_js_call: (argc: number, argvPtr: number, lensPtr: number, resp: number) => {
        views();
        // The glue's arrays of pointers and lengths are word-aligned (C arrays of 32-bit words).
        const args = (argvPtr | lensPtr) % 4 === 0 ? callArgs.read(bytes, words, argc, argvPtr, lensPtr) : null;
        const reply = this.host.call(args ?? RequestArgs.of(readArgv(argc, argvPtr, lensPtr)), resp === 3 ? 3 : 2);
        // Zero-terminated: the glue's parser reads lines with strstr.
        const block = x!.sl_alloc(reply.length + 5);
        views(); // sl_alloc may have grown the memory
        const mem = bytes;
        mem[block] = reply.length & 0xff;
        mem[block + 1] = (reply.length >>> 8) & 0xff;
        mem[block + 2] = (reply.length >>> 16) & 0xff;
        mem[block + 3] = reply.length >>> 24;
        mem.set(reply, block + 4);
        mem[block + 4 + reply.length] = 0;
        return block;
      },
      sl_js_log: (level: number, ptr: number, len: number) => {
        this.host.log(level, Buffer.from(new Uint8Array(x!.memory.buffer, ptr, len)));
      },
      sl_js_sha1hex: (ptr: number, len: number, out: number) => {
        const digest = createHash('sha1').update(new Uint8Array(x!.memory.buffer, ptr, len)).digest('hex');
        new Uint8Array(x!.memory.buffer).set(Buffer.from(digest, 'latin1'), out);
      },
      sl_js_set_repl: (flags: number) => this.host.setRepl(flags),
      sl_js_interrupt: (yieldable: number) => this.host.interrupt(yieldable !== 0),
    };
    const wasi = {
      proc_exit: (code: number) => {
        throw new Error(`sluice: the Lua engine exited (${code})`);
      },
      fd_write: () => 0,
      fd_read: () => 0,
      fd_close: () => 0,
      fd_seek: () => 0,
    };
    const instance = new WebAssembly.Instance(module(), { env, wasi_snapshot_preview1: wasi });
    x = instance.exports as unknown as Exports;
    this.x = x;
    x._initialize();
    this.reset();
  }

  /** A fresh interpreter: every script and global gone (SCRIPT FLUSH). */
  reset(): void {
    const text = this.cString(Buffer.from(this.version.text));
    this.x.sl_init(this.version.num, text, this.functions ? 1 : 0);
    this.x.sl_free(text);
  }

  /** Compiles `body` as the function `name`; returns Lua's error message when it does not compile. */
  define(name: string, body: Buffer): string | null {
    const n = this.cString(Buffer.from(name, 'latin1'));
    const b = this.copyIn(body);
    const failed = this.x.sl_define(n, b, body.length);
    this.x.sl_free(n);
    this.x.sl_free(b);
    return failed === 0 ? null : this.output().toString('latin1');
  }

  defined(name: string): boolean {
    const n = this.cString(Buffer.from(name, 'latin1'));
    const yes = this.x.sl_defined(n) !== 0;
    this.x.sl_free(n);
    return yes;
  }

  /**
   * Runs the function `name` with KEYS and ARGV set; `display` names it in error messages.
   * Returns null when no such function is defined.
   */
  run(name: string, display: string, keys: Buffer[], args: Buffer[], resp: 2 | 3, interruptible: boolean): ScriptResult | Yielded | null {
    const n = this.cString(Buffer.from(name, 'latin1'));
    try {
      return this.withArgs(display, keys, args, (d, ptrs, lens) =>
        this.x.sl_run(n, d, keys.length, args.length, ptrs, lens, resp, interruptible ? 1 : 0),
      );
    } finally {
      this.x.sl_free(n);
    }
  }

  /** FCALL: runs the function registered as `ref` (see load) with its keys and arguments. */
  call(ref: number, display: string, keys: Buffer[], args: Buffer[], resp: 2 | 3, interruptible: boolean): ScriptResult | Yielded {
    return this.withArgs(display, keys, args, (d, ptrs, lens) =>
      this.x.sl_fcall(ref, d, keys.length, args.length, ptrs, lens, resp, interruptible ? 1 : 0),
    )!;
  }

  /** Goes on with the script that yielded; the same results as run() and call(). */
  resume(): ScriptResult | Yielded {
    return this.result(this.x.sl_resume())!;
  }

  /**
   * FUNCTION LOAD: runs a library's code (after its shebang line) in the function interpreter.
   * Returns the functions it registered, or the error text (with its code).
   */
  load(code: Buffer, interruptible: boolean): RegisteredFunction[] | string {
    const p = this.copyIn(code);
    let failed: number;
    try {
      failed = this.x.sl_fload(p, code.length, interruptible ? 1 : 0);
    } finally {
      this.x.sl_free(p);
    }
    const out = this.output();
    if (failed !== 0) return out.toString('latin1');
    const registered: RegisteredFunction[] = [];
    let at = 0;
    while (at < out.length) {
      const ref = out.readUInt32LE(at);
      const flags = out.readUInt32LE(at + 4);
      const nameLength = out.readUInt32LE(at + 8);
      const name = out.toString('latin1', at + 12, at + 12 + nameLength);
      at += 12 + nameLength;
      const descLength = out.readUInt32LE(at);
      at += 4;
      let description: Buffer | null = null;
      if (descLength !== 0xffffffff) {
        description = Buffer.from(out.subarray(at, at + descLength));
        at += descLength;
      }
      registered.push({ ref, flags, name, description });
    }
    return registered;
  }

  /** Drops a registered function (its library was deleted or replaced). */
  unref(ref: number): void {
    this.x.sl_funref(ref);
  }

  private withArgs(
    display: string,
    keys: Buffer[],
    args: Buffer[],
    run: (display: number, ptrs: number, lens: number) => number,
  ): ScriptResult | Yielded | null {
    const all = keys.length + args.length;
    const ptrs = this.x.sl_alloc(4 * all + 4);
    const lens = this.x.sl_alloc(4 * all + 4);
    const copies: number[] = [];
    for (let i = 0; i < all; i++) {
      const arg = i < keys.length ? keys[i]! : args[i - keys.length]!;
      const p = this.copyIn(arg);
      copies.push(p);
      const view = new DataView(this.x.memory.buffer);
      view.setUint32(ptrs + 4 * i, p, true);
      view.setUint32(lens + 4 * i, arg.length, true);
    }
    const d = this.cString(Buffer.from(display, 'latin1'));
    let status: number;
    try {
      status = run(d, ptrs, lens);
    } finally {
      for (const p of copies) this.x.sl_free(p);
      this.x.sl_free(ptrs);
      this.x.sl_free(lens);
      this.x.sl_free(d);
    }
    return this.result(status);
  }

  /** The glue's status: -1 no such function, 4 yielded, else the reply (bit 1: its error was counted). */
  private result(status: number): ScriptResult | Yielded | null {
    if (status < 0) return null;
    if (status === 4) return YIELDED;
    return { resp: this.output(), countedError: (status & 2) !== 0 };
  }

  /** Bytes the interpreter holds (INFO's used_memory_lua). */
  memory(): number {
    return this.x.sl_memory();
  }

  private output(): Buffer {
    const p = this.x.sl_out_ptr();
    return Buffer.from(new Uint8Array(this.x.memory.buffer, p, this.x.sl_out_len()));
  }

  private copyIn(bytes: Buffer): number {
    const p = this.x.sl_alloc(bytes.length + 1);
    const mem = new Uint8Array(this.x.memory.buffer);
    mem.set(bytes, p);
    mem[p + bytes.length] = 0;
    return p;
  }

  private cString(bytes: Buffer): number {
    return this.copyIn(bytes);
  }
}
