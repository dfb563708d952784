#!/bin/sh
# Builds src/commands/lua/lua.wasm: Redis 7.0's Lua 5.1 (deps/lua of the Redis source, with its
# cjson, cmsgpack, bit and struct libraries and Redis's rand.c) and sluice's glue
# (scripts/lua-wasm/sluice_lua.c), compiled to WebAssembly with emscripten. The output is
# committed; run this only to change the glue or the Lua sources.
#   scripts/build-lua-wasm.sh [REDIS_SRC]   (default: .redis-src of this checkout)
# Needs emcc (Debian's emscripten 3.1.6 was used).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REDIS=$(cd "${1:-$ROOT/.redis-src}" && pwd)
LUA="$REDIS/deps/lua/src"
OUT="$ROOT/src/commands/lua/lua.wasm"
CORE="lapi.c lcode.c ldebug.c ldo.c ldump.c lfunc.c lgc.c llex.c lmem.c lobject.c lopcodes.c
  lparser.c lstate.c lstring.c ltable.c ltm.c lundump.c lvm.c lzio.c lauxlib.c lbaselib.c
  ldblib.c lmathlib.c lstrlib.c ltablib.c lua_cjson.c lua_struct.c lua_cmsgpack.c lua_bit.c
  strbuf.c fpconv.c"
SRCS=""
for f in $CORE; do SRCS="$SRCS $LUA/$f"; done
# The same defines as Redis's deps/Makefile (LUA_CFLAGS), and the functions the TypeScript
# side calls. Lua errors are longjmps: emscripten makes them JavaScript exceptions through
# invoke_* imports, which src/commands/lua/lua-vm.ts provides.
emcc -O2 -DLUA_ANSI -DENABLE_CJSON_GLOBAL -DREDIS_STATIC='' -DLUA_USE_MKSTEMP \
  -I"$LUA" $SRCS "$REDIS/src/rand.c" "$ROOT/scripts/lua-wasm/sluice_lua.c" \
  -o "$OUT" --no-entry \
  -sSTANDALONE_WASM=1 -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=4194304 -sTOTAL_STACK=1048576 \
  -sERROR_ON_UNDEFINED_SYMBOLS=0 -sSUPPORT_LONGJMP=1 \
  -sEXPORTED_FUNCTIONS=_sl_fload,_sl_fcall,_sl_resume,_sl_funref,_sl_init,_sl_define,_sl_defined,_sl_run,_sl_out_ptr,_sl_out_len,_sl_alloc,_sl_free,_sl_memory
ls -l "$OUT"
