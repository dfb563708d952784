// Lua scripts run by EVAL/EVALSHA/SCRIPT, compared byte for byte with redis-server 7.0: the
// conversions both ways (RESP2 and RESP3, redis.setresp), errors and their texts, the sandbox,
// the libraries Redis loads, shebang flags, read-only scripts.
import type { DiffCase, Step } from './case-types.js';

/** EVAL of a script with keys and arguments. */
function ev(script: string, keys: string[] = [], ...args: string[]): string[] {
  return ['EVAL', script, String(keys.length), ...keys, ...args];
}

const conversions: Step[] = [
  ev('return 1'),
  ev('return -3.9'),
  ev('return 1e300'),
  ev('return 0/0'),
  ev("return 'hello'"),
  ev('return true'),
  ev('return false'),
  ev('return nil'),
  ev("return {1, 2, 'three', {4, {5}}, true, false}"),
  ev('return {1, nil, 3}'),
  ev("return {err = 'My Error'}"),
  ev("return {err = 'CODE with code'}"),
  ev("return redis.error_reply('MY_ERR custom')"),
  ev("return redis.error_reply('-MY_ERR dash')"),
  ev("return redis.status_reply('FINE')"),
  ev("return {ok = 'a\\r\\nb'}"),
  ev("return {double = 3.5}"),
  ev("return {big_number = '123456789012345678901234567890'}"),
  ev("return {map = {a = 1}}"),
  ev("return {set = {a = true}}"),
  ev("return {verbatim_string = {format = 'txt', string = 'hi'}}"),
  ev('return {1, {err = "inner"}}'),
  ev('return redis.sha1hex("Pizza & Mandolino")'),
  ev('return redis.sha1hex()'),
  ev('return redis.REDIS_VERSION_NUM'),
  ev("return type(redis.REDIS_VERSION)"),
  ev('return redis.replicate_commands()'),
  ev('return redis.breakpoint()'),
  ev('return redis.debug("x")'),
  ev('return redis.error_reply(1)'),
  ev('return redis.status_reply()'),
];

const calls: Step[] = [
  ev("redis.call('set', KEYS[1], ARGV[1]); return redis.call('get', KEYS[1])", ['k'], 'v'),
  ev("return redis.call('incr', 'n')"),
  ev("return redis.call('incrbyfloat', 'f', 1.5)"),
  ev("return redis.call('set', 'x', 3.14159265358979)"),
  ev("return redis.call('get', 'x')"),
  ev("return redis.call('get', 'nosuchkey')"),
  ev("return redis.call('rpush', 'l', 'a', 'b', 'c')"),
  ev("return redis.call('lrange', 'l', 0, -1)"),
  ev("return redis.call('hset', 'h', 'f1', 'v1', 'f2', 'v2')"),
  ev("return redis.call('hgetall', 'h')"),
  ev("redis.setresp(3); return redis.call('hgetall', 'h')"),
  ev("redis.setresp(3); return redis.call('smembers', 'nosuch')"),
  ev("redis.setresp(3); return redis.call('get', 'nosuchkey')"),
  ev("redis.setresp(3); return redis.call('zadd', 'z', 1, 'a')"),
  ev("redis.setresp(3); return redis.call('zscore', 'z', 'a')"),
  ev("redis.setresp(3); local r = redis.call('zscore', 'z', 'a'); return type(r) .. r['double']"),
  ev("redis.setresp(3); return redis.call('exists', 'z') == 1"),
  ev('redis.setresp(3); return true'),
  ev('redis.setresp(3); return false'),
  ev('redis.setresp(4)'),
  ev('redis.setresp()'),
  ev("return redis.call('ping')"),
  ev("return redis.call('ping')['ok']"),
  ev("return redis.pcall('nosuch')"),
  ev("return redis.call('nosuch')"),
  ev("return redis.pcall('get')"),
  ev("return redis.call('get')"),
  ev("return redis.call('incr', 'l')"),
  ev("return redis.pcall('incr', 'l')"),
  ev("local e = redis.pcall('incr', 'l'); return e['err']"),
  ev("return redis.call()"),
  ev("return redis.pcall()"),
  ev("return redis.call('get', {})"),
  ev("return redis.call('multi')"),
  ev("return redis.call('eval', 'return 1', 0)"),
  ev("return redis.call('subscribe', 'c')"),
  ev("return redis.call('blpop', 'emptylist', 0)"),
  ev("redis.call('select', 9); redis.call('set', 'in9', 1); return redis.call('dbsize')"),
  ev("return redis.call('get', 'in9')"),
  ev('return pcall(function() error("boom") end)'),
  ev("return {pcall(function() redis.call('nosuch') end)}"),
  ev('local ok, e = pcall(error, {err = "X y"}); return e'),
];

const sandbox: Step[] = [
  ev('return a'),
  ev('a = 1'),
  ev('os.exit()'),
  ev("return io.open('/etc/passwd')"),
  ev('return loadfile'),
  ev('return print'),
  ev('return dofile'),
  ev('redis.call = nil'),
  ev("string.upper = function() return 'x' end"),
  ev('return _G.KEYS == KEYS'),
  ev("setmetatable(_G, {})"),
  ev('return type(loadstring)'),
  ev("return loadstring('return 5')()"),
  ev('return unpack({1, 2, 3})'),
  ev('return {unpack({1, 2, 3})}'),
  ev('return table.getn({1, 2})'),
  ev('return tostring(0.1)'),
  ev('return tostring(1e15) .. " " .. tostring(2^53)'),
  ev('return math.floor(3.7)'),
  ev("return string.format('%d %s %5.2f', 3, 'x', 1.5)"),
  ev("return string.rep('ab', 3)"),
  ev('return #KEYS + #ARGV', ['a', 'b'], 'c'),
  ev('return ARGV', [], 'x', 'y'),
  ev('return KEYS', ['k1', 'k2']),
  ev('return _VERSION'),
  ev('return type(newproxy)'),
  ev('return type(debug)'),
  ev('return math.random(10) <= 10'),
  ev("return 'x"),
  ev('return return'),
  ev('error("plain")'),
  ev('error({err = "ERR table error"})'),
  ev('error()'),
  ev('local t = {}; t[1] = t; return cjson.encode(t)'),
];

const libraries: Step[] = [
  ev("return cjson.encode({1, 2, 'x', {a = 1}})"),
  ev("return cjson.decode('[1,2,{\"a\":3}]')[3].a"),
  ev("return cjson.decode('{\"x\":[true,null,1.5]}').x[3]"),
  ev('return cjson.encode(cjson.decode("[1.5e300, -0.0001]"))'),
  ev('return cjson.decode("[")'),
  ev("return cmsgpack.pack({1, 2, 'three'})"),
  ev("return cmsgpack.unpack(cmsgpack.pack({1, 2, 'three', {a = 1}}))"),
  ev("return cmsgpack.pack(1.5, -1, 65536, 'x')"),
  ev('return bit.band(0xff, 0x0f) .. bit.bor(1, 2) .. bit.bxor(3, 1) .. bit.lshift(1, 4)'),
  ev('return bit.tohex(65535)'),
  ev("return struct.pack('>I2', 258)"),
  ev("return {struct.unpack('HB', '\\1\\2\\3')}"),
  ev("return struct.size('i4')"),
];

const shebang: Step[] = [
  ev('#!lua\nreturn 1'),
  ev('#!lua flags=no-writes\nreturn redis.call("get", "k")'),
  ev('#!lua flags=no-writes\nreturn redis.call("set", "k", 1)'),
  ev('#!lua flags=no-writes,allow-oom\nreturn 1'),
  ev('#!lua flags=bad-flag\nreturn 1'),
  ev('#!lua foo=bar\nreturn 1'),
  ev('#!nosuch\nreturn 1'),
  ev('#!lua'),
  ev('#!lua flags=\nreturn 2'),
  ev('#!lua\nreturn a'),
  ['EVAL_RO', 'return redis.call("get", "k")', '0'],
  ['EVAL_RO', 'return redis.call("set", "k", 1)', '0'],
  ['EVAL_RO', 'return redis.pcall("set", "k", 1)', '0'],
  ['EVAL_RO', '#!lua\nreturn 1', '0'],
  ['EVAL_RO', '#!lua flags=no-writes\nreturn 1', '0'],
  ['EVAL_RO', "return redis.call('publish', 'c', 'm')", '0'],
];

const cache: Step[] = [
  ['SCRIPT', 'FLUSH'],
  ['SCRIPT', 'LOAD', 'return 7'],
  ['SCRIPT', 'LOAD', 'return 7'],
  ['SCRIPT', 'LOAD', "return 'x"],
  ['SCRIPT', 'EXISTS', 'c6d0e9b0d4f1a9a6c5e6c5e0c5c1fa1b8a9d4e5f', '6e6a7f5d3c79d28c9d1f2eae0b5a9bbcaaa0f6c3'],
  ['EVALSHA', '1da6ac96f3c9e9b4ee6a1c5b9d94af4d25ae3bd8', '0'],
  ['EVAL', 'return 7', '0'],
  ['SCRIPT', 'LOAD', 'return ARGV[1]'],
  ['EVALSHA_RO', 'ae1fbc02bbbeacd1fd2dd3dbc9d7a32de57a6b2b', '0', 'x'],
  ['SCRIPT', 'FLUSH', 'SYNC'],
  ['SCRIPT', 'EXISTS', 'ae1fbc02bbbeacd1fd2dd3dbc9d7a32de57a6b2b'],
  ['EVALSHA', 'ae1fbc02bbbeacd1fd2dd3dbc9d7a32de57a6b2b', '0', 'x'],
  ['EVAL', 'return ARGV[1]', '0', 'x'],
  ['EVALSHA', 'AE1FBC02BBBEACD1FD2DD3DBC9D7A32DE57A6B2B', '0', 'y'],
  ['SCRIPT', 'EXISTS', 'AE1FBC02BBBEACD1FD2DD3DBC9D7A32DE57A6B2B'],
];

const transactions: Step[] = [
  ['MULTI'],
  ev("return redis.call('incr', 'm')"),
  ev("return redis.call('incr', 'm')"),
  ['EXEC'],
  ev("return redis.call('blpop', 'nolist', 1)"),
  ev("return redis.call('xread', 'count', 1, 'streams', 's', '0')"),
  ev("return redis.call('xread', 'block', 0, 'streams', 's', '$')"),
];

// redis.call's replies come through one reused arena: replies bigger than it (40 KB, then
// 1.5 MB, past what it keeps), small ones, errors and RESP3 ones, in turn within one script,
// each read whole before the next call.
const replyArena: Step[] = [
  ev("redis.call('set', KEYS[1], string.rep('x', 40000)); redis.call('set', KEYS[2], string.rep('y', 1500000)); return redis.call('rpush', KEYS[3], 'a', 'b', 'c')", ['ra:big', 'ra:huge', 'ra:list']),
  ev(
    `local out = {}
    for i = 1, 40 do
      local big = redis.call('get', KEYS[i % 2 + 1])
      local small = redis.call('lrange', KEYS[3], 0, -1)
      local e = redis.pcall('incr', KEYS[1])
      out[#out + 1] = #big .. ':' .. string.sub(big, 1, 2) .. ':' .. table.concat(small, ',') .. ':' .. e.err
    end
    redis.setresp(3)
    local h = redis.call('hgetall', KEYS[4])
    out[#out + 1] = string.sub(redis.call('get', KEYS[2]), -3) .. ':' .. #redis.call('get', KEYS[1]) .. ':' .. tostring(h.f)
    return out`,
    ['ra:big', 'ra:huge', 'ra:list', 'ra:hash'],
  ),
  ['HSET', 'ra:hash', 'f', 'v'],
  ev("redis.setresp(3); local h = redis.call('hgetall', KEYS[1]); redis.setresp(2); return {h.f, #redis.call('get', KEYS[2]), redis.call('hgetall', KEYS[1])}", ['ra:hash', 'ra:huge']),
];

// SORT of a set without a real sort order: sorted (ALPHA) when a script asks, as when it stores,
// so the script sees the same order everywhere; a plain client gets the set's own order.
const sortInScripts: Step[] = [
  ['SADD', 'ss:set', ...'a b c d e f g h i l m n o p q r s t u v z aa aaa azz'.split(' ')],
  ev("return redis.call('sort', KEYS[1], 'by', '_')", ['ss:set']),
  ev("return redis.call('sort', KEYS[1], 'by', 'nosort', 'limit', 1, 3)", ['ss:set']),
  ev("return redis.call('sort', KEYS[1], 'by', '_', 'get', '#', 'get', '_:*')", ['ss:set']),
  ['RPUSH', 'ss:list', 'c', 'a', 'b'],
  ev("return redis.call('sort', KEYS[1], 'by', '_')", ['ss:list']),
  ev("return redis.call('sort_ro', KEYS[1], 'by', '_')", ['ss:set']),
];

export const cases: DiffCase[] = [
  { name: 'EVAL: SORT BY a constant of a set is ordered for scripts', steps: sortInScripts },
  { name: 'EVAL: Lua values to replies', steps: conversions },
  { name: 'EVAL: redis.call and redis.pcall, replies to Lua values', steps: calls },
  { name: 'EVAL: the sandbox, errors, Lua 5.1 builtins', steps: sandbox },
  { name: 'EVAL: cjson, cmsgpack, bit, struct', steps: libraries },
  { name: 'EVAL: shebang flags and read-only scripts', steps: shebang },
  { name: 'SCRIPT LOAD / EXISTS / FLUSH and EVALSHA', steps: cache },
  { name: 'EVAL in MULTI, blocking commands in scripts', steps: transactions },
  { name: "EVAL: redis.call's replies of every size and protocol in one script", steps: replyArena },
];
