/* sluice's glue around Redis's Lua 5.1 (deps/lua of Redis 7.0), built to WebAssembly by
 * scripts/build-lua-wasm.sh. It sets the interpreter up as Redis's scriptingInit() does (the
 * libraries, the redis.* API, the error handler, the protected globals) and converts values
 * both ways as script_lua.c does: a redis.call's reply arrives as RESP bytes from JavaScript
 * (sl_js_call) and becomes Lua values; a script's return value becomes RESP bytes for the
 * caller's protocol in the output buffer (sl_out_ptr/sl_out_len), which JavaScript sends as
 * they are. The JavaScript side is src/commands/lua/lua-vm.ts. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lauxlib.h"
#include "lstate.h" /* nCcalls and baseCcalls: whether the hook may yield (lua_yield's own test) */
#include "lua.h"
#include "lualib.h"

#define IMPORT(name) __attribute__((import_module("env"), import_name(name)))
#define EXPORT __attribute__((used, visibility("default")))

/* Runs argv as the script's client; returns a malloc'd block: a 4-byte little-endian length,
 * then the reply as RESP in protocol `resp`. The glue frees it. */
IMPORT("sl_js_call") extern char *sl_js_call(int argc, char **argv, size_t *lens, int resp);
IMPORT("sl_js_log") extern void sl_js_log(int level, const char *msg, size_t len);
IMPORT("sl_js_sha1hex") extern void sl_js_sha1hex(const char *s, size_t len, char *out40);
IMPORT("sl_js_set_repl") extern void sl_js_set_repl(int flags);
/* redis.acl_check_cmd: 1 when the script's caller may run argv, 0 when not, -1 for no such command. */
IMPORT("sl_js_acl_check") extern int sl_js_acl_check(int argc, char **argv, size_t *lens);
/* Asked every 100000 instructions of a script: 0 go on, 1 stop it (SCRIPT KILL), 2 yield (the
 * server serves its other clients, then resumes the script). `yieldable`: 2 may be answered. */
IMPORT("sl_js_interrupt") extern int sl_js_interrupt(int yieldable);

LUALIB_API int(luaopen_cjson)(lua_State *L);
LUALIB_API int(luaopen_struct)(lua_State *L);
LUALIB_API int(luaopen_cmsgpack)(lua_State *L);
LUALIB_API int(luaopen_bit)(lua_State *L);

/* Redis's rand.c (linked in): math.random gives the same sequence on every platform. */
int32_t redisLrand48(void);
void redisSrand48(int32_t seedval);
#define REDIS_LRAND48_MAX INT32_MAX

static lua_State *L = NULL;
static int script_resp = 2; /* the script client's protocol (redis.setresp) */
static int caller_resp = 2; /* the protocol of the client the script's reply goes to */
static int running = 0;
/* A script runs in a coroutine of its own (reused while scripts end well), so that past
 * busy-reply-threshold the count hook can yield it: the server goes back to its event loop,
 * answers the other clients (BUSY, SCRIPT KILL), and resumes the script with sl_resume. Where
 * the script is inside a C call (pcall, a metamethod, a sort comparator) Lua 5.1 cannot yield;
 * the hook then lets JavaScript serve what it can from inside the hook. */
static lua_State *co = NULL;
static int co_ref = LUA_NOREF;
static int gc_count = 0;
/* How deep a returned table may nest: the conversion recurses, and the engine's stack (the
 * JavaScript thread's) is smaller than redis-server's C stack, so the limit is ours. */
#define MAX_REPLY_DEPTH 1000

/* --- the output buffer ------------------------------------------------------------------- */

static char *out = NULL;
static size_t out_len = 0, out_cap = 0;

static void out_reserve(size_t more) {
    if (out_len + more <= out_cap) return;
    size_t cap = out_cap ? out_cap : 1024;
    while (cap < out_len + more) cap *= 2;
    out = realloc(out, cap);
    out_cap = cap;
}

static void out_add(const char *s, size_t len) {
    out_reserve(len);
    memcpy(out + out_len, s, len);
    out_len += len;
}

static void out_str(const char *s) { out_add(s, strlen(s)); }

static void out_fmt_ll(char prefix, long long v) {
    char buf[32];
    int n = snprintf(buf, sizeof(buf), "%c%lld\r\n", prefix, v);
    out_add(buf, n);
}

static void out_bulk(const char *s, size_t len) {
    out_fmt_ll('$', (long long)len);
    out_add(s, len);
    out_add("\r\n", 2);
}

/* A header written in front of what was written since `at` (array/map/set lengths are known
 * only after their elements). */
static void out_insert_header(size_t at, char prefix, long long n) {
    char buf[32];
    int len = snprintf(buf, sizeof(buf), "%c%lld\r\n", prefix, n);
    out_reserve(len);
    memmove(out + at + len, out + at, out_len - at);
    memcpy(out + at, buf, len);
    out_len += len;
}

/* A simple string or error line: \r and \n become spaces, as Redis keeps the protocol valid. */
static void out_line(char prefix, const char *s, size_t len) {
    out_reserve(len + 3);
    out[out_len++] = prefix;
    for (size_t i = 0; i < len; i++) out[out_len++] = (s[i] == '\r' || s[i] == '\n') ? ' ' : s[i];
    out[out_len++] = '\r';
    out[out_len++] = '\n';
}

static void out_null(void) { out_str(caller_resp == 2 ? "$-1\r\n" : "_\r\n"); }

EXPORT char *sl_out_ptr(void) { return out; }
EXPORT size_t sl_out_len(void) { return out_len; }
EXPORT void *sl_alloc(size_t n) { return malloc(n); }
EXPORT void sl_free(void *p) { free(p); }

/* --- errors as Redis's scripts see them ----------------------------------------------------- */

/* Pushes {err="CODE message"}: "-CODE message" keeps its code, a plain text gets ERR
 * (luaPushErrorBuff). */
static void push_error(lua_State *lua, const char *text, size_t len) {
    const char *code = "ERR";
    size_t code_len = 3;
    const char *msg = text;
    size_t msg_len = len;
    if (len > 0 && text[0] == '-') {
        const char *space = memchr(text, ' ', len);
        if (space == NULL) {
            msg = text + 1;
            msg_len = len - 1;
        } else {
            code = text + 1;
            code_len = space - text - 1;
            msg = space + 1;
            msg_len = len - (msg - text);
        }
    }
    while (msg_len > 0 && (msg[msg_len - 1] == '\r' || msg[msg_len - 1] == '\n')) msg_len--;
    while (msg_len > 0 && (msg[0] == '\r' || msg[0] == '\n')) { msg++; msg_len--; }
    luaL_Buffer b;
    lua_newtable(lua);
    lua_pushstring(lua, "err");
    luaL_buffinit(lua, &b);
    luaL_addlstring(&b, code, code_len);
    luaL_addchar(&b, ' ');
    luaL_addlstring(&b, msg, msg_len);
    luaL_pushresult(&b);
    lua_settable(lua, -3);
}

static void push_error_c(lua_State *lua, const char *text) { push_error(lua, text, strlen(text)); }

/* --- RESP (a redis.call's reply) to Lua: redisProtocolToLuaType ------------------------------ */

static const char *parse_reply(lua_State *lua, const char *p, int push);

static const char *line_end(const char *p) { return strstr(p, "\r\n"); }

static const char *parse_reply(lua_State *lua, const char *p, int push) {
    const char *end = line_end(p);
    char type = *p;
    if (push && !lua_checkstack(lua, 5)) luaL_error(lua, "lua stack limit reach when parsing redis.call reply");
    switch (type) {
    case '+':
        if (push) {
            lua_newtable(lua);
            lua_pushstring(lua, "ok");
            lua_pushlstring(lua, p + 1, end - p - 1);
            lua_settable(lua, -3);
        }
        return end + 2;
    case '-':
        if (push) {
            push_error(lua, p, end - p);
            lua_pushstring(lua, "ignore_error_stats_update");
            lua_pushboolean(lua, 1);
            lua_settable(lua, -3);
        }
        return end + 2;
    case ':':
        if (push) lua_pushnumber(lua, (lua_Number)strtoll(p + 1, NULL, 10));
        return end + 2;
    case '$': {
        long long len = strtoll(p + 1, NULL, 10);
        if (len < 0) {
            if (push) lua_pushboolean(lua, 0);
            return end + 2;
        }
        if (push) lua_pushlstring(lua, end + 2, (size_t)len);
        return end + 2 + len + 2;
    }
    case '=': {
        long long len = strtoll(p + 1, NULL, 10);
        const char *s = end + 2;
        if (push) {
            lua_newtable(lua);
            lua_pushstring(lua, "verbatim_string");
            lua_newtable(lua);
            lua_pushstring(lua, "string");
            lua_pushlstring(lua, s + 4, (size_t)len - 4);
            lua_settable(lua, -3);
            lua_pushstring(lua, "format");
            lua_pushlstring(lua, s, 3);
            lua_settable(lua, -3);
            lua_settable(lua, -3);
        }
        return s + len + 2;
    }
    case '*': {
        long long n = strtoll(p + 1, NULL, 10);
        p = end + 2;
        if (n < 0) {
            if (push) lua_pushboolean(lua, 0);
            return p;
        }
        if (push) lua_newtable(lua);
        for (long long j = 0; j < n; j++) {
            if (push) lua_pushnumber(lua, (lua_Number)(j + 1));
            p = parse_reply(lua, p, push);
            if (push) lua_settable(lua, -3);
        }
        return p;
    }
    case '%': {
        long long n = strtoll(p + 1, NULL, 10);
        p = end + 2;
        if (push) {
            lua_newtable(lua);
            lua_pushstring(lua, "map");
            lua_newtable(lua);
        }
        for (long long j = 0; j < n; j++) {
            p = parse_reply(lua, p, push);
            p = parse_reply(lua, p, push);
            if (push) lua_settable(lua, -3);
        }
        if (push) lua_settable(lua, -3);
        return p;
    }
    case '~': {
        long long n = strtoll(p + 1, NULL, 10);
        p = end + 2;
        if (push) {
            lua_newtable(lua);
            lua_pushstring(lua, "set");
            lua_newtable(lua);
        }
        for (long long j = 0; j < n; j++) {
            p = parse_reply(lua, p, push);
            if (push) {
                lua_pushboolean(lua, 1);
                lua_settable(lua, -3);
            }
        }
        if (push) lua_settable(lua, -3);
        return p;
    }
    case '|': {
        /* Attributes are not shown to scripts: skip them, then read the reply itself. */
        long long n = strtoll(p + 1, NULL, 10);
        p = end + 2;
        for (long long j = 0; j < 2 * n; j++) p = parse_reply(lua, p, 0);
        return parse_reply(lua, p, push);
    }
    case '_':
        if (push) lua_pushnil(lua);
        return end + 2;
    case '#':
        if (push) lua_pushboolean(lua, p[1] == 't');
        return end + 2;
    case ',': {
        if (push) {
            char buf[128];
            size_t len = end - p - 1;
            if (len >= sizeof(buf)) len = sizeof(buf) - 1;
            memcpy(buf, p + 1, len);
            buf[len] = 0;
            double d;
            if (!strcmp(buf, "inf")) d = INFINITY;
            else if (!strcmp(buf, "-inf")) d = -INFINITY;
            else if (!strcmp(buf, "nan") || !strcmp(buf, "-nan")) d = NAN;
            else d = strtod(buf, NULL);
            lua_newtable(lua);
            lua_pushstring(lua, "double");
            lua_pushnumber(lua, d);
            lua_settable(lua, -3);
        }
        return end + 2;
    }
    case '(':
        if (push) {
            lua_newtable(lua);
            lua_pushstring(lua, "big_number");
            lua_pushlstring(lua, p + 1, end - p - 1);
            lua_settable(lua, -3);
        }
        return end + 2;
    default:
        if (push) lua_pushnil(lua);
        return end ? end + 2 : p + strlen(p);
    }
}

/* --- Lua to RESP (a script's return value): luaReplyToRedisReply ---------------------------- */

/* (long long) of a double as x86 gives it: out of range and NaN become LLONG_MIN (a plain cast
 * traps in WebAssembly). */
static long long to_ll(double d) {
    if (isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) return INT64_MIN;
    return (long long)d;
}

static void out_double(double d) {
    char buf[64];
    if (isinf(d)) {
        if (caller_resp == 2) out_bulk(d > 0 ? "inf" : "-inf", d > 0 ? 3 : 4);
        else out_str(d > 0 ? ",inf\r\n" : ",-inf\r\n");
        return;
    }
    int n = snprintf(buf, sizeof(buf), "%.17g", d);
    if (caller_resp == 2) {
        out_bulk(buf, n);
    } else {
        out_add(",", 1);
        out_add(buf, n);
        out_add("\r\n", 2);
    }
}

/* Extracts the error information of the table on the top of the stack (luaExtractErrorInformation). */
typedef struct {
    const char *msg, *source, *line;
    int ignore_stats;
} ErrInfo;

static int ignore_stats_of_reply = 0;

static void reply_value(lua_State *lua, int depth);

static void reply_table(lua_State *lua, int depth) {
    int t;
    /* {err=...} */
    lua_pushstring(lua, "err");
    lua_rawget(lua, -2);
    t = lua_type(lua, -1);
    if (t == LUA_TSTRING) {
        size_t len;
        const char *msg = lua_tolstring(lua, -1, &len);
        /* The error's text as the client sees it: "-" and the message, newlines made spaces. */
        while (len > 0 && (msg[len - 1] == '\r' || msg[len - 1] == '\n')) len--;
        out_line('-', msg, len);
        lua_pop(lua, 1);
        lua_getfield(lua, -1, "ignore_error_stats_update");
        if (depth == 0 && lua_toboolean(lua, -1)) ignore_stats_of_reply = 1;
        lua_pop(lua, 1);
        return;
    }
    lua_pop(lua, 1);
    /* {ok=...} */
    lua_pushstring(lua, "ok");
    lua_rawget(lua, -2);
    if (lua_type(lua, -1) == LUA_TSTRING) {
        size_t len;
        const char *s = lua_tolstring(lua, -1, &len);
        /* sdsnew(lua_tostring()): the status ends at its first zero byte. */
        out_line('+', s, strlen(s));
        lua_pop(lua, 1);
        return;
    }
    lua_pop(lua, 1);
    /* {double=...} */
    lua_pushstring(lua, "double");
    lua_rawget(lua, -2);
    if (lua_type(lua, -1) == LUA_TNUMBER) {
        out_double(lua_tonumber(lua, -1));
        lua_pop(lua, 1);
        return;
    }
    lua_pop(lua, 1);
    /* {big_number=...} */
    lua_pushstring(lua, "big_number");
    lua_rawget(lua, -2);
    if (lua_type(lua, -1) == LUA_TSTRING) {
        size_t len;
        const char *s = lua_tolstring(lua, -1, &len);
        if (caller_resp == 2) {
            /* addReplyBigNum in RESP2: a bulk string (with \r\n made spaces, as sdsmapchars). */
            out_fmt_ll('$', (long long)len);
            size_t at = out_len;
            out_add(s, len);
            for (size_t i = at; i < out_len; i++) if (out[i] == '\r' || out[i] == '\n') out[i] = ' ';
            out_add("\r\n", 2);
        } else {
            out_line('(', s, len);
        }
        lua_pop(lua, 1);
        return;
    }
    lua_pop(lua, 1);
    /* {verbatim_string={format=..., string=...}} */
    lua_pushstring(lua, "verbatim_string");
    lua_rawget(lua, -2);
    if (lua_type(lua, -1) == LUA_TTABLE) {
        lua_pushstring(lua, "format");
        lua_rawget(lua, -2);
        if (lua_type(lua, -1) == LUA_TSTRING) {
            const char *format = lua_tostring(lua, -1);
            lua_pushstring(lua, "string");
            lua_rawget(lua, -3);
            if (lua_type(lua, -1) == LUA_TSTRING) {
                size_t len;
                const char *s = lua_tolstring(lua, -1, &len);
                if (caller_resp == 2) {
                    out_bulk(s, len);
                } else {
                    char fmt[4] = {' ', ' ', ' ', 0};
                    size_t fl = strlen(format);
                    memcpy(fmt, format, fl > 3 ? 3 : fl);
                    out_fmt_ll('=', (long long)len + 4);
                    out_add(fmt, 3);
                    out_add(":", 1);
                    out_add(s, len);
                    out_add("\r\n", 2);
                }
                lua_pop(lua, 3);
                return;
            }
            lua_pop(lua, 1);
        }
        lua_pop(lua, 1);
    }
    lua_pop(lua, 1);
    /* {map={...}} */
    lua_pushstring(lua, "map");
    lua_rawget(lua, -2);
    if (lua_type(lua, -1) == LUA_TTABLE) {
        size_t at = out_len;
        long long n = 0;
        lua_pushnil(lua);
        while (lua_next(lua, -2)) {
            lua_pushvalue(lua, -2);
            reply_value(lua, depth + 1); /* key */
            reply_value(lua, depth + 1); /* value */
            n++;
        }
        if (caller_resp == 2) out_insert_header(at, '*', n * 2);
        else out_insert_header(at, '%', n);
        lua_pop(lua, 1);
        return;
    }
    lua_pop(lua, 1);
    /* {set={...}} */
    lua_pushstring(lua, "set");
    lua_rawget(lua, -2);
    if (lua_type(lua, -1) == LUA_TTABLE) {
        size_t at = out_len;
        long long n = 0;
        lua_pushnil(lua);
        while (lua_next(lua, -2)) {
            lua_pop(lua, 1);
            lua_pushvalue(lua, -1);
            reply_value(lua, depth + 1);
            n++;
        }
        out_insert_header(at, caller_resp == 2 ? '*' : '~', n);
        lua_pop(lua, 1);
        return;
    }
    lua_pop(lua, 1);
    /* An array: elements 1, 2, ... up to the first nil. */
    size_t at = out_len;
    long long n = 0;
    for (int j = 1;; j++) {
        lua_pushnumber(lua, j);
        lua_rawget(lua, -2);
        if (lua_type(lua, -1) == LUA_TNIL) {
            lua_pop(lua, 1);
            break;
        }
        reply_value(lua, depth + 1);
        n++;
    }
    out_insert_header(at, '*', n);
}

/* Converts and pops the value on the top of the stack. */
static void reply_value(lua_State *lua, int depth) {
    if (!lua_checkstack(lua, 4) || depth > MAX_REPLY_DEPTH) {
        out_str("-ERR reached lua stack limit\r\n");
        lua_pop(lua, 1);
        return;
    }
    switch (lua_type(lua, -1)) {
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(lua, -1, &len);
        out_bulk(s, len);
        break;
    }
    case LUA_TBOOLEAN:
        if (script_resp == 2) {
            if (lua_toboolean(lua, -1)) out_str(":1\r\n");
            else out_null();
        } else if (caller_resp == 2) {
            out_str(lua_toboolean(lua, -1) ? ":1\r\n" : ":0\r\n");
        } else {
            out_str(lua_toboolean(lua, -1) ? "#t\r\n" : "#f\r\n");
        }
        break;
    case LUA_TNUMBER:
        out_fmt_ll(':', to_ll(lua_tonumber(lua, -1)));
        break;
    case LUA_TTABLE:
        reply_table(lua, depth);
        break;
    default:
        out_null();
    }
    lua_pop(lua, 1);
}

/* --- the redis.* API --------------------------------------------------------------------- */

/* The script's arguments to a redis.* call as C strings (numbers as %.17g: lua_tolstring's
 * %.14g would lose precision), popped from the stack. The texts are copied, as the values are
 * popped before the command runs. 0 when one is neither a string nor a number. */
static int args_from_stack(lua_State *lua, int argc, char ***argvp, size_t **lensp) {
    char **argv = malloc(sizeof(char *) * argc);
    size_t *lens = malloc(sizeof(size_t) * argc);
    char numbuf[64];
    int j;
    for (j = 0; j < argc; j++) {
        const char *s;
        size_t len;
        if (lua_type(lua, j + 1) == LUA_TNUMBER) {
            len = snprintf(numbuf, sizeof(numbuf), "%.17g", (double)lua_tonumber(lua, j + 1));
            s = numbuf;
        } else {
            s = lua_tolstring(lua, j + 1, &len);
            if (s == NULL) break;
        }
        argv[j] = malloc(len + 1);
        memcpy(argv[j], s, len);
        argv[j][len] = 0;
        lens[j] = len;
    }
    lua_pop(lua, argc);
    if (j != argc) {
        for (int k = 0; k < j; k++) free(argv[k]);
        free(argv);
        free(lens);
        return 0;
    }
    *argvp = argv;
    *lensp = lens;
    return 1;
}

static void free_args(int argc, char **argv, size_t *lens) {
    for (int j = 0; j < argc; j++) free(argv[j]);
    free(argv);
    free(lens);
}

static int redis_generic_call(lua_State *lua, int raise_error) {
    int argc = lua_gettop(lua);
    if (!running) {
        push_error_c(lua, "redis.call/pcall can only be called inside a script invocation");
        return lua_error(lua);
    }
    if (argc == 0) {
        push_error_c(lua, "Please specify at least one argument for this redis lib call");
        return raise_error ? lua_error(lua) : 1;
    }
    char **argv;
    size_t *lens;
    if (!args_from_stack(lua, argc, &argv, &lens)) {
        push_error_c(lua, "Lua redis lib command arguments must be strings or integers");
        return raise_error ? lua_error(lua) : 1;
    }
    char *reply = sl_js_call(argc, argv, lens, script_resp);
    free_args(argc, argv, lens);
    const char *body = reply + 4;
    int is_error = body[0] == '-';
    /* A malformed reply must not take the engine down with it: parse_reply stops at its end. */
    parse_reply(lua, body, 1);
    free(reply);
    if (raise_error && is_error) return lua_error(lua);
    return 1;
}

static int redis_call(lua_State *lua) { return redis_generic_call(lua, 1); }
static int redis_pcall_cmd(lua_State *lua) { return redis_generic_call(lua, 0); }

/* pcall that hands a {err=...} table's text back, as Redis 7 does (luaRedisPcall). */
static int redis_lua_pcall(lua_State *lua) {
    int argc = lua_gettop(lua);
    lua_pushboolean(lua, 1);
    lua_insert(lua, 1);
    if (lua_pcall(lua, argc - 1, LUA_MULTRET, 0)) {
        lua_remove(lua, 1);
        if (lua_istable(lua, -1)) {
            lua_getfield(lua, -1, "err");
            if (lua_isstring(lua, -1)) lua_replace(lua, -2);
            else lua_pop(lua, 1);
        }
        lua_pushboolean(lua, 0);
        lua_insert(lua, 1);
    }
    return lua_gettop(lua);
}

static int redis_sha1hex(lua_State *lua) {
    size_t len;
    char digest[41];
    if (lua_gettop(lua) != 1) {
        push_error_c(lua, "wrong number of arguments");
        return lua_error(lua);
    }
    const char *s = lua_tolstring(lua, 1, &len);
    if (s == NULL) {
        s = "";
        len = 0;
    }
    sl_js_sha1hex(s, len, digest);
    digest[40] = 0;
    lua_pushstring(lua, digest);
    return 1;
}

static int redis_error_reply(lua_State *lua) {
    if (lua_gettop(lua) != 1 || lua_type(lua, -1) != LUA_TSTRING) {
        push_error_c(lua, "wrong number or type of arguments");
        return 1;
    }
    const char *err = lua_tostring(lua, -1);
    if (err[0] == '-') {
        push_error(lua, err, strlen(err));
    } else {
        lua_pushfstring(lua, "-%s", err);
        const char *withdash = lua_tostring(lua, -1);
        push_error(lua, withdash, strlen(withdash));
    }
    return 1;
}

static int redis_status_reply(lua_State *lua) {
    if (lua_gettop(lua) != 1 || lua_type(lua, -1) != LUA_TSTRING) {
        push_error_c(lua, "wrong number or type of arguments");
        return 1;
    }
    lua_newtable(lua);
    lua_pushstring(lua, "ok");
    lua_pushvalue(lua, -3);
    lua_settable(lua, -3);
    return 1;
}

static int redis_set_repl(lua_State *lua) {
    int argc = lua_gettop(lua);
    if (!running) {
        push_error_c(lua, "redis.set_repl can only be called inside a script invocation");
        return lua_error(lua);
    }
    if (argc != 1) {
        push_error_c(lua, "redis.set_repl() requires two arguments.");
        return lua_error(lua);
    }
    int flags = (int)lua_tonumber(lua, -1);
    if ((flags & ~3) != 0) {
        push_error_c(lua, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
        return lua_error(lua);
    }
    sl_js_set_repl(flags);
    return 0;
}

static int redis_acl_check_cmd(lua_State *lua) {
    if (!running) {
        push_error_c(lua, "redis.acl_check_cmd can only be called inside a script invocation");
        return lua_error(lua);
    }
    if (lua_gettop(lua) == 0) {
        push_error_c(lua, "Please specify at least one argument for this redis lib call");
        return lua_error(lua);
    }
    int argc = lua_gettop(lua);
    char **argv;
    size_t *lens;
    if (!args_from_stack(lua, argc, &argv, &lens)) {
        push_error_c(lua, "Lua redis lib command arguments must be strings or integers");
        return lua_error(lua);
    }
    /* The caller's user's permissions, as luaRedisAclCheckCmdPermissionsCommand. */
    int allowed = sl_js_acl_check(argc, argv, lens);
    free_args(argc, argv, lens);
    if (allowed < 0) {
        push_error_c(lua, "Invalid command passed to redis.acl_check_cmd()");
        return lua_error(lua);
    }
    lua_pushboolean(lua, allowed);
    return 1;
}

static int redis_log(lua_State *lua) {
    int argc = lua_gettop(lua);
    if (argc < 2) {
        push_error_c(lua, "redis.log() requires two arguments or more.");
        return lua_error(lua);
    } else if (!lua_isnumber(lua, -argc)) {
        push_error_c(lua, "First argument must be a number (log level).");
        return lua_error(lua);
    }
    int level = (int)lua_tonumber(lua, -argc);
    if (level < 0 || level > 3) {
        push_error_c(lua, "Invalid debug level.");
        return lua_error(lua);
    }
    luaL_Buffer b;
    luaL_buffinit(lua, &b);
    for (int j = 1; j < argc; j++) {
        size_t len;
        const char *s = lua_tolstring(lua, j + 1, &len);
        if (s) {
            if (j != 1) luaL_addchar(&b, ' ');
            luaL_addlstring(&b, s, len);
        }
    }
    luaL_pushresult(&b);
    size_t len;
    const char *msg = lua_tolstring(lua, -1, &len);
    sl_js_log(level, msg, len);
    return 0;
}

static int redis_setresp(lua_State *lua) {
    if (!running) {
        push_error_c(lua, "redis.setresp can only be called inside a script invocation");
        return lua_error(lua);
    }
    if (lua_gettop(lua) != 1) {
        push_error_c(lua, "redis.setresp() requires one argument.");
        return lua_error(lua);
    }
    int resp = (int)lua_tonumber(lua, -1);
    if (resp != 2 && resp != 3) {
        push_error_c(lua, "RESP version must be 2 or 3.");
        return lua_error(lua);
    }
    script_resp = resp;
    return 0;
}

static int redis_breakpoint(lua_State *lua) {
    lua_pushboolean(lua, 0); /* no debugging session: never stops */
    return 1;
}

static int redis_debug(lua_State *lua) {
    (void)lua;
    return 0;
}

static int redis_replicate_commands(lua_State *lua) {
    lua_pushboolean(lua, 1);
    return 1;
}

static int redis_math_random(lua_State *lua) {
    if (!running) return luaL_error(lua, "math.random can only be called inside a script invocation");
    lua_Number r = (lua_Number)(redisLrand48() % REDIS_LRAND48_MAX) / (lua_Number)REDIS_LRAND48_MAX;
    switch (lua_gettop(lua)) {
    case 0:
        lua_pushnumber(lua, r);
        break;
    case 1: {
        int u = luaL_checkint(lua, 1);
        luaL_argcheck(lua, 1 <= u, 1, "interval is empty");
        lua_pushnumber(lua, floor(r * u) + 1);
        break;
    }
    case 2: {
        int l = luaL_checkint(lua, 1);
        int u = luaL_checkint(lua, 2);
        luaL_argcheck(lua, l <= u, 2, "interval is empty");
        lua_pushnumber(lua, floor(r * (u - l + 1)) + l);
        break;
    }
    default:
        return luaL_error(lua, "wrong number of arguments");
    }
    return 1;
}

static int redis_math_randomseed(lua_State *lua) {
    if (!running) return luaL_error(lua, "math.randomseed can only be called inside a script invocation");
    redisSrand48(luaL_checkint(lua, 1));
    return 0;
}

/* --- the sandbox: allowed globals, protected tables ------------------------------------------ */

static const char *allowed_globals[] = {
    /* libraries */
    "string", "cjson", "bit", "cmsgpack", "math", "table", "struct",
    /* the Redis API */
    "redis", "__redis__err__handler",
    /* Lua builtins */
    "xpcall", "tostring", "getfenv", "setmetatable", "next", "assert", "tonumber", "rawequal",
    "collectgarbage", "getmetatable", "rawset", "pcall", "coroutine", "type", "_G", "select",
    "unpack", "gcinfo", "pairs", "rawget", "loadstring", "ipairs", "_VERSION", "setfenv", "load",
    "error",
    /* removed once the error handler is made */
    "debug", NULL};

static int protected_table_error(lua_State *lua) {
    if (lua_gettop(lua) != 2) luaL_error(lua, "Wrong number of arguments to luaProtectedTableError");
    if (!lua_isstring(lua, -1) && !lua_isnumber(lua, -1))
        luaL_error(lua, "Second argument to luaProtectedTableError must be a string or number");
    const char *name = lua_tostring(lua, -1);
    luaL_error(lua, "Script attempted to access nonexistent global variable '%s'", name);
    return 0;
}

/* While the globals are set up, only the allowed names may be added (others are dropped). */
static int new_index_allow_list(lua_State *lua) {
    if (lua_gettop(lua) != 3) luaL_error(lua, "Wrong number of arguments to luaNewIndexAllowList");
    if (!lua_istable(lua, -3)) luaL_error(lua, "first argument to luaNewIndexAllowList must be a table");
    if (!lua_isstring(lua, -2) && !lua_isnumber(lua, -2))
        luaL_error(lua, "Second argument to luaNewIndexAllowList must be a string or number");
    const char *name = lua_tostring(lua, -2);
    for (const char **c = allowed_globals; *c; c++) {
        if (strcmp(*c, name) == 0) {
            lua_rawset(lua, -3);
            return 0;
        }
    }
    return 0;
}

static void protect_recursively(lua_State *lua) {
    if (lua_isreadonlytable(lua, -1)) return;
    lua_enablereadonlytable(lua, -1, 1);
    lua_checkstack(lua, 2);
    lua_pushnil(lua);
    while (lua_next(lua, -2)) {
        if (lua_istable(lua, -1)) protect_recursively(lua);
        lua_pop(lua, 1);
    }
    if (lua_getmetatable(lua, -1)) {
        protect_recursively(lua);
        lua_pop(lua, 1);
    }
}

static void load_lib(lua_State *lua, const char *name, lua_CFunction f) {
    lua_pushcfunction(lua, f);
    lua_pushstring(lua, name);
    lua_call(lua, 1, 0);
}

static void set_field_fn(lua_State *lua, const char *name, lua_CFunction f) {
    lua_pushstring(lua, name);
    lua_pushcfunction(lua, f);
    lua_settable(lua, -3);
}

static void set_field_num(lua_State *lua, const char *name, double n) {
    lua_pushstring(lua, name);
    lua_pushnumber(lua, n);
    lua_settable(lua, -3);
}

static void register_log_and_version(lua_State *lua, int version_num, const char *version) {
    set_field_fn(lua, "log", redis_log);
    set_field_num(lua, "LOG_DEBUG", 0);
    set_field_num(lua, "LOG_VERBOSE", 1);
    set_field_num(lua, "LOG_NOTICE", 2);
    set_field_num(lua, "LOG_WARNING", 3);
    set_field_num(lua, "REDIS_VERSION_NUM", version_num);
    lua_pushstring(lua, "REDIS_VERSION");
    lua_pushstring(lua, version);
    lua_settable(lua, -3);
}

static const char *ERR_HANDLER =
    "local dbg = debug\n"
    "debug = nil\n"
    "function __redis__err__handler(err, co)\n"
    "  local i = dbg.getinfo(co, 0,'nSl')\n"
    "  if i and i.what == 'C' then\n"
    "    i = dbg.getinfo(co, 1,'nSl')\n"
    "  end\n"
    "  if type(err) ~= 'table' then\n"
    "    err = {err='ERR ' .. tostring(err)}"
    "  end"
    "  if i then\n"
    "    err['source'] = i.source\n"
    "    err['line'] = i.currentline\n"
    "  end"
    "  return err\n"
    "end\n";

/* The libraries and the redis.* table both kinds of interpreter get (luaRegisterRedisAPI). */
static void register_redis_api(lua_State *lua, int version_num, const char *version) {
    lua_pushvalue(lua, LUA_GLOBALSINDEX);
    lua_newtable(lua);
    lua_pushcfunction(lua, new_index_allow_list);
    lua_setfield(lua, -2, "__newindex");
    lua_setmetatable(lua, -2);
    lua_pop(lua, 1);

    load_lib(lua, "", luaopen_base);
    load_lib(lua, LUA_TABLIBNAME, luaopen_table);
    load_lib(lua, LUA_STRLIBNAME, luaopen_string);
    load_lib(lua, LUA_MATHLIBNAME, luaopen_math);
    load_lib(lua, LUA_DBLIBNAME, luaopen_debug);
    load_lib(lua, "cjson", luaopen_cjson);
    load_lib(lua, "struct", luaopen_struct);
    load_lib(lua, "cmsgpack", luaopen_cmsgpack);
    load_lib(lua, "bit", luaopen_bit);

    lua_pushcfunction(lua, redis_lua_pcall);
    lua_setglobal(lua, "pcall");

    lua_newtable(lua);
    set_field_fn(lua, "call", redis_call);
    set_field_fn(lua, "pcall", redis_pcall_cmd);
    register_log_and_version(lua, version_num, version);
    set_field_fn(lua, "setresp", redis_setresp);
    set_field_fn(lua, "sha1hex", redis_sha1hex);
    set_field_fn(lua, "error_reply", redis_error_reply);
    set_field_fn(lua, "status_reply", redis_status_reply);
    set_field_fn(lua, "set_repl", redis_set_repl);
    set_field_num(lua, "REPL_NONE", 0);
    set_field_num(lua, "REPL_AOF", 1);
    set_field_num(lua, "REPL_SLAVE", 2);
    set_field_num(lua, "REPL_REPLICA", 2);
    set_field_num(lua, "REPL_ALL", 3);
    set_field_fn(lua, "acl_check_cmd", redis_acl_check_cmd);
    lua_setglobal(lua, "redis");

    lua_getglobal(lua, "math");
    set_field_fn(lua, "random", redis_math_random);
    set_field_fn(lua, "randomseed", redis_math_randomseed);
    lua_setglobal(lua, "math");
}

static void set_error_metatable(lua_State *lua) {
    lua_newtable(lua);
    lua_pushcfunction(lua, protected_table_error);
    lua_setfield(lua, -2, "__index");
    lua_setmetatable(lua, -2);
}

static int functions_mode = 0;

static void init_eval(int version_num, const char *version) {
    register_redis_api(L, version_num, version);
    lua_getglobal(L, "redis");
    set_field_fn(L, "breakpoint", redis_breakpoint);
    set_field_fn(L, "debug", redis_debug);
    set_field_fn(L, "replicate_commands", redis_replicate_commands);
    lua_setglobal(L, "redis");

    luaL_loadbuffer(L, ERR_HANDLER, strlen(ERR_HANDLER), "@err_handler_def");
    lua_pcall(L, 0, 0, 0);

    /* Lock the globals: reading a missing one is an error, and nothing reachable from them
     * may change. */
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    set_error_metatable(L);
    protect_recursively(L);
    lua_pop(L, 1);
}

static int redis_register_function(lua_State *lua);

static const char *FN_ERR_HANDLER =
    "local dbg = debug\n"
    "debug = nil\n"
    "local error_handler = function (err, co)\n"
    "  local i = dbg.getinfo(co, 0,'nSl')\n"
    "  if i and i.what == 'C' then\n"
    "    i = dbg.getinfo(co, 1,'nSl')\n"
    "  end\n"
    "  if type(err) ~= 'table' then\n"
    "    err = {err='ERR ' .. tostring(err)}"
    "  end"
    "  if i then\n"
    "    err['source'] = i.source\n"
    "    err['line'] = i.currentline\n"
    "  end"
    "  return err\n"
    "end\n"
    "return error_handler";

/* The functions' interpreter (function_lua.c's luaEngineInitEngine): while a library loads,
 * its globals resolve to a table holding only redis.register_function, log and the version;
 * when its functions run, to the full globals. */
static void init_functions(int version_num, const char *version) {
    register_redis_api(L, version_num, version);
    lua_newtable(L); /* the library's globals */
    lua_newtable(L); /* its redis table */
    set_field_fn(L, "register_function", redis_register_function);
    register_log_and_version(L, version_num, version);
    set_error_metatable(L);
    lua_setfield(L, -2, "redis");
    set_error_metatable(L);
    protect_recursively(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "__library_api__");

    lua_pushstring(L, "__ERROR_HANDLER__");
    luaL_loadbuffer(L, FN_ERR_HANDLER, strlen(FN_ERR_HANDLER), "@err_handler_def");
    lua_pcall(L, 0, 1, 0);
    lua_settable(L, LUA_REGISTRYINDEX);

    lua_pushvalue(L, LUA_GLOBALSINDEX);
    set_error_metatable(L);
    protect_recursively(L);
    lua_pop(L, 1);

    lua_pushvalue(L, LUA_GLOBALSINDEX);
    lua_setfield(L, LUA_REGISTRYINDEX, "__globals__api__");

    lua_newtable(L); /* new globals */
    lua_newtable(L); /* their metatable */
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    lua_setfield(L, -2, "__index");
    lua_enablereadonlytable(L, -1, 1);
    lua_setmetatable(L, -2);
    lua_enablereadonlytable(L, -1, 1);
    lua_replace(L, LUA_GLOBALSINDEX);
}

/* Creates the interpreter (dropping any previous one: SCRIPT FLUSH); `functions`: the
 * interpreter of function libraries rather than of EVAL's scripts. */
EXPORT int sl_init(int version_num, const char *version, int functions) {
    if (L != NULL) lua_close(L);
    co = NULL;
    co_ref = LUA_NOREF;
    L = lua_open();
    functions_mode = functions;
    if (functions) init_functions(version_num, version);
    else init_eval(version_num, version);
    return 0;
}

/* --- scripts ------------------------------------------------------------------------------ */

/* Compiles body[skip..len) as the function `name` in the registry (luaCreateFunction). On a
 * compile error, returns 1 with Lua's message in the output buffer. */
EXPORT int sl_define(const char *name, const char *body, size_t len) {
    out_len = 0;
    if (luaL_loadbuffer(L, body, len, "@user_script")) {
        size_t mlen;
        const char *msg = lua_tolstring(L, -1, &mlen);
        out_add(msg, mlen);
        lua_pop(L, 1);
        return 1;
    }
    lua_setfield(L, LUA_REGISTRYINDEX, name);
    return 0;
}

EXPORT int sl_defined(const char *name) {
    lua_getfield(L, LUA_REGISTRYINDEX, name);
    int defined = !lua_isnil(L, -1);
    lua_pop(L, 1);
    return defined;
}

/* The run in progress, kept across yields. */
static char *run_display = NULL;
static int run_with_hook = 0, run_eval_mode = 0;

static void interrupt_hook(lua_State *lua, lua_Debug *ar) {
    (void)ar;
    int yieldable = lua == co && lua->nCcalls == lua->baseCcalls;
    int what = sl_js_interrupt(yieldable);
    if (what == 1) {
        /* Every line from now on: a pcall in the script cannot catch the kill and go on. */
        lua_sethook(lua, interrupt_hook, LUA_MASKLINE, 0);
        push_error_c(lua, "Script killed by user with SCRIPT KILL...");
        lua_error(lua);
    } else if (what == 2 && yieldable) {
        lua_yield(lua, 0);
    }
}

static void push_array(int n, char **ptrs, size_t *lens) {
    lua_newtable(L);
    for (int j = 0; j < n; j++) {
        lua_pushlstring(L, ptrs[j], lens[j]);
        lua_rawseti(L, -2, j + 1);
    }
}

/* The coroutine scripts run in: the last one, or a new one after a script failed in it. */
static lua_State *script_thread(void) {
    if (co == NULL) {
        co = lua_newthread(L);
        co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    return co;
}

static void drop_script_thread(void) {
    luaL_unref(L, LUA_REGISTRYINDEX, co_ref);
    co_ref = LUA_NOREF;
    co = NULL;
}

/* The error handler's work (__redis__err__handler / the functions' error_handler), done once
 * the script's coroutine has failed: its stack is left as it was at the error, so the handler
 * is given the thread to look at. Leaves the handler's result on L. */
static void handle_error(void) {
    lua_xmove(co, L, 1); /* the error value */
    if (run_eval_mode) {
        lua_getglobal(L, "__redis__err__handler");
    } else {
        lua_pushstring(L, "__ERROR_HANDLER__");
        lua_gettable(L, LUA_REGISTRYINDEX);
    }
    lua_insert(L, -2);
    lua_pushthread(co);
    lua_xmove(co, L, 1);
    if (lua_pcall(L, 2, 1, 0)) {
        /* the handler failed: its own error is what the caller sees, as a plain message */
    }
}

/* Writes a finished run's reply or error (luaCallFunction) and clears it. Returns 0 (bit 1:
 * the error reply must not count in the error statistics again), or 4: the script yielded. */
static int finish_run(int status) {
    if (status == LUA_YIELD) return 4;
    if (++gc_count == 50) {
        lua_gc(L, LUA_GCSTEP, 50);
        gc_count = 0;
    }
    const char *display = run_display;
    if (status != 0) {
        handle_error();
        drop_script_thread();
        if (!lua_istable(L, -1)) {
            const char *msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
            char head[200];
            int n = snprintf(head, sizeof(head), "ERR Error running script %s, ", display);
            size_t mlen = strlen(msg);
            if (mlen > 100) mlen = 100;
            char *text = malloc(n + mlen + 1);
            memcpy(text, head, n);
            memcpy(text + n, msg, mlen);
            size_t tl = n + mlen;
            while (tl > 0 && (text[tl - 1] == '\r' || text[tl - 1] == '\n')) tl--;
            out_line('-', text, tl);
            free(text);
        } else {
            size_t elen = 0;
            lua_getfield(L, -1, "err");
            const char *emsg = lua_isstring(L, -1) ? lua_tolstring(L, -1, &elen) : "";
            lua_getfield(L, -2, "source");
            const char *source = lua_isstring(L, -1) ? lua_tostring(L, -1) : NULL;
            lua_getfield(L, -3, "line");
            const char *line = lua_isstring(L, -1) ? lua_tostring(L, -1) : NULL;
            size_t cap = elen + strlen(display) + (source ? strlen(source) : 0) + (line ? strlen(line) : 0) + 32;
            char *text = malloc(cap);
            memcpy(text, emsg, elen);
            size_t tl = elen;
            if (source && line) tl += snprintf(text + tl, cap - tl, " script: %s, on %s:%s.", display, source, line);
            out_line('-', text, tl);
            free(text);
            lua_pop(L, 3);
            lua_getfield(L, -1, "ignore_error_stats_update");
            if (lua_toboolean(L, -1)) ignore_stats_of_reply = 1;
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    } else {
        /* One result, as lua_pcall(..., 1, ...) kept: the first, or nil. */
        if (lua_gettop(co) == 0) lua_pushnil(co);
        else lua_settop(co, 1);
        reply_value(co, 0);
        lua_settop(co, 0);
        if (run_with_hook) lua_sethook(co, NULL, 0, 0);
    }
    free(run_display);
    run_display = NULL;
    running = 0;
    return ignore_stats_of_reply ? 2 : 0;
}

/* Starts the function on top of L's stack (luaCallFunction). EVAL mode: KEYS and ARGV are
 * globals; function mode: the two arrays are its arguments. */
static int call_function(const char *display, int nkeys, int nargs, char **ptrs, size_t *lens, int resp, int with_hook,
                         int eval_mode) {
    caller_resp = resp;
    script_resp = 2;
    running = 1;
    run_display = strdup(display);
    run_with_hook = with_hook;
    run_eval_mode = eval_mode;
    lua_State *thread = script_thread();
    lua_xmove(L, thread, 1); /* the function */
    if (with_hook) lua_sethook(thread, interrupt_hook, LUA_MASKCOUNT, 100000);
    push_array(nkeys, ptrs, lens);
    if (eval_mode) {
        lua_enablereadonlytable(L, LUA_GLOBALSINDEX, 0);
        lua_setglobal(L, "KEYS");
        lua_enablereadonlytable(L, LUA_GLOBALSINDEX, 1);
    }
    push_array(nargs, ptrs + nkeys, lens + nkeys);
    if (eval_mode) {
        lua_enablereadonlytable(L, LUA_GLOBALSINDEX, 0);
        lua_setglobal(L, "ARGV");
        lua_enablereadonlytable(L, LUA_GLOBALSINDEX, 1);
    } else {
        lua_xmove(L, thread, 2);
    }
    return finish_run(lua_resume(thread, eval_mode ? 0 : 2));
}

/* Runs the EVAL script `name` with KEYS and ARGV set. The reply, as RESP for `resp`, is left
 * in the output buffer. Returns 0, or -1 when no such function exists, or 4 when the script
 * yielded (sl_resume goes on with it). `display` is the script's name in error messages (its
 * sha). Bit 1 of the result: the error reply must not count in the error statistics again. */
EXPORT int sl_run(const char *name, const char *display, int nkeys, int nargs, char **ptrs, size_t *lens, int resp,
                  int with_hook) {
    out_len = 0;
    ignore_stats_of_reply = 0;
    lua_getfield(L, LUA_REGISTRYINDEX, name);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return -1;
    }
    return call_function(display, nkeys, nargs, ptrs, lens, resp, with_hook, 1);
}

/* FCALL: runs the registered function `ref` (see sl_fload). */
EXPORT int sl_fcall(int ref, const char *display, int nkeys, int nargs, char **ptrs, size_t *lens, int resp, int with_hook) {
    out_len = 0;
    ignore_stats_of_reply = 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    return call_function(display, nkeys, nargs, ptrs, lens, resp, with_hook, 0);
}

/* Goes on with the script that yielded (sl_run or sl_fcall returned 4); the same results. */
EXPORT int sl_resume(void) {
    out_len = 0;
    return finish_run(lua_resume(co, 0));
}

/* --- function libraries (function_lua.c) -------------------------------------------------- */

#define MAX_PENDING 1024
typedef struct {
    char *name;
    char *desc; /* NULL: none */
    size_t desc_len;
    int ref;
    int flags;
} Pending;

static Pending pending[MAX_PENDING];
static int pending_count = 0;
static int loading = 0;

static const char *FLAG_NAMES[] = {"no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys", NULL};

/* functionsVerifyName over the whole Lua string: an embedded NUL makes the name invalid. */
static int valid_name(const char *name, size_t len) {
    if (len == 0) return 0;
    for (size_t i = 0; i < len; i++) {
        if (!isalnum((unsigned char)name[i]) && name[i] != '_') return 0;
    }
    return 1;
}

static void drop_pending(void) {
    for (int i = 0; i < pending_count; i++) {
        free(pending[i].name);
        free(pending[i].desc);
        lua_unref(L, pending[i].ref);
    }
    pending_count = 0;
}

static char *dup_string(lua_State *lua, int idx, size_t *len_out) {
    size_t len;
    const char *s = lua_tolstring(lua, idx, &len);
    char *copy = malloc(len + 1);
    memcpy(copy, s, len);
    copy[len] = 0;
    if (len_out) *len_out = len;
    return copy;
}

static int register_fail(lua_State *lua, char *name, char *desc, int ref, const char *err) {
    free(name);
    free(desc);
    if (ref != LUA_NOREF) lua_unref(lua, ref);
    push_error_c(lua, err);
    return lua_error(lua);
}

/* redis.register_function(name, callback) or redis.register_function{function_name=...,
 * callback=..., flags={...}, description=...} (luaRegisterFunction). */
static int redis_register_function(lua_State *lua) {
    if (!loading) {
        push_error_c(lua, "redis.register_function can only be called on FUNCTION LOAD command");
        return lua_error(lua);
    }
    int argc = lua_gettop(lua);
    char *name = NULL, *desc = NULL;
    size_t desc_len = 0, name_len = 0;
    int ref = LUA_NOREF, flags = 0;
    if (argc < 1 || argc > 2) return register_fail(lua, name, desc, ref, "wrong number of arguments to redis.register_function");
    if (argc == 1) {
        if (!lua_istable(lua, 1))
            return register_fail(lua, name, desc, ref,
                                 "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).");
        lua_pushnil(lua);
        while (lua_next(lua, -2)) {
            if (!lua_isstring(lua, -2))
                return register_fail(lua, name, desc, ref, "named argument key given to redis.register_function is not a string");
            const char *key = lua_tostring(lua, -2);
            if (!strcasecmp(key, "function_name")) {
                if (!lua_isstring(lua, -1))
                    return register_fail(lua, name, desc, ref, "function_name argument given to redis.register_function must be a string");
                free(name);
                name = dup_string(lua, -1, &name_len);
            } else if (!strcasecmp(key, "description")) {
                if (!lua_isstring(lua, -1))
                    return register_fail(lua, name, desc, ref, "description argument given to redis.register_function must be a string");
                free(desc);
                desc = dup_string(lua, -1, &desc_len);
            } else if (!strcasecmp(key, "callback")) {
                if (!lua_isfunction(lua, -1))
                    return register_fail(lua, name, desc, ref, "callback argument given to redis.register_function must be a function");
                if (ref != LUA_NOREF) lua_unref(lua, ref);
                ref = luaL_ref(lua, LUA_REGISTRYINDEX);
                continue; /* luaL_ref popped the value */
            } else if (!strcasecmp(key, "flags")) {
                if (!lua_istable(lua, -1))
                    return register_fail(lua, name, desc, ref,
                                         "flags argument to redis.register_function must be a table representing function flags");
                for (int j = 1;; j++) {
                    lua_pushnumber(lua, j);
                    lua_gettable(lua, -2);
                    if (lua_isnil(lua, -1)) {
                        lua_pop(lua, 1);
                        break;
                    }
                    if (!lua_isstring(lua, -1)) return register_fail(lua, name, desc, ref, "unknown flag given");
                    const char *f = lua_tostring(lua, -1);
                    int found = 0;
                    for (int k = 0; FLAG_NAMES[k]; k++) {
                        if (!strcasecmp(FLAG_NAMES[k], f)) {
                            flags |= 1 << k;
                            found = 1;
                        }
                    }
                    lua_pop(lua, 1);
                    if (!found) return register_fail(lua, name, desc, ref, "unknown flag given");
                }
            } else {
                return register_fail(lua, name, desc, ref, "unknown argument given to redis.register_function");
            }
            lua_pop(lua, 1);
        }
        if (name == NULL) return register_fail(lua, name, desc, ref, "redis.register_function must get a function name argument");
        if (ref == LUA_NOREF) return register_fail(lua, name, desc, ref, "redis.register_function must get a callback argument");
    } else {
        if (!lua_isstring(lua, 1)) return register_fail(lua, name, desc, ref, "first argument to redis.register_function must be a string");
        name = dup_string(lua, 1, &name_len);
        if (!lua_isfunction(lua, 2))
            return register_fail(lua, name, desc, ref, "second argument to redis.register_function must be a function");
        ref = luaL_ref(lua, LUA_REGISTRYINDEX);
    }
    if (!valid_name(name, name_len))
        return register_fail(lua, name, desc, ref,
                             "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long");
    for (int i = 0; i < pending_count; i++) {
        if (!strcmp(pending[i].name, name)) return register_fail(lua, name, desc, ref, "Function already exists in the library");
    }
    if (pending_count == MAX_PENDING) return register_fail(lua, name, desc, ref, "Too many functions in the library");
    pending[pending_count++] = (Pending){name, desc, desc_len, ref, flags};
    return 0;
}

static void load_hook(lua_State *lua, lua_Debug *ar) {
    (void)ar;
    if (sl_js_interrupt(0)) {
        lua_sethook(lua, load_hook, LUA_MASKLINE, 0);
        push_error_c(lua, "FUNCTION LOAD timeout");
        lua_error(lua);
    }
}

static void set_globals_index(const char *registry_name) {
    lua_getmetatable(L, LUA_GLOBALSINDEX);
    lua_enablereadonlytable(L, -1, 0);
    lua_getfield(L, LUA_REGISTRYINDEX, registry_name);
    lua_setfield(L, -2, "__index");
    lua_enablereadonlytable(L, -1, 1);
    lua_pop(L, 1);
}

static void out_u32(uint32_t v) { out_add((const char *)&v, 4); }

/* Loads a library's code (luaEngineCreate). Returns 0 with the registered functions in the
 * output buffer (per function: ref, flags, name length, name, description length or -1,
 * description; 32-bit little endian numbers), or 1 with the error text. */
EXPORT int sl_fload(const char *code, size_t len, int with_hook) {
    out_len = 0;
    pending_count = 0;
    set_globals_index("__library_api__");
    int failed = 0;
    if (luaL_loadbuffer(L, code, len, "@user_function")) {
        const char *msg = lua_tostring(L, -1);
        out_str("ERR Error compiling function: ");
        out_str(msg ? msg : "");
        lua_pop(L, 1);
        failed = 1;
    } else {
        loading = 1;
        if (with_hook) lua_sethook(L, load_hook, LUA_MASKCOUNT, 100000);
        if (lua_pcall(L, 0, 0, 0)) {
            out_str("ERR Error registering functions: ");
            if (lua_isstring(L, -1)) {
                out_str("ERR ");
                out_str(lua_tostring(L, -1));
            } else if (lua_istable(L, -1)) {
                lua_getfield(L, -1, "err");
                if (lua_isstring(L, -1)) out_str(lua_tostring(L, -1));
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
            failed = 1;
        }
        if (with_hook) lua_sethook(L, NULL, 0, 0);
        loading = 0;
    }
    set_globals_index("__globals__api__");
    if (failed) {
        drop_pending();
        return 1;
    }
    for (int i = 0; i < pending_count; i++) {
        Pending *p = &pending[i];
        out_u32((uint32_t)p->ref);
        out_u32((uint32_t)p->flags);
        out_u32((uint32_t)strlen(p->name));
        out_str(p->name);
        out_u32(p->desc ? (uint32_t)p->desc_len : 0xffffffffu);
        if (p->desc) out_add(p->desc, p->desc_len);
        free(p->name);
        free(p->desc);
    }
    pending_count = 0;
    return 0;
}

/* Forgets a registered function (its library was deleted or replaced). */
EXPORT void sl_funref(int ref) { lua_unref(L, ref); }

/* Bytes the interpreter holds (used_memory_lua). */
EXPORT int sl_memory(void) { return lua_gc(L, LUA_GCCOUNT, 0) * 1024 + lua_gc(L, LUA_GCCOUNTB, 0); }
