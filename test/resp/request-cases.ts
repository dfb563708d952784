// Requests and what Redis 7.0.15 does with them, checked by sending the same bytes to
// redis-server 7.0.15 over a socket (protocol.redis.test.ts does so on every run).

export interface Case {
  input: string; // latin1
  commands: string[][];
  error?: string;
  /** Outcome legitimately depends on chunking (the 64 KiB limit applies to lines in progress). */
  chunkSensitive?: boolean;
}

export const E = (s: string) => `ERR Protocol error: ${s}`;

export const CASES: Case[] = [
  { input: '*1\r\n$4\r\nPING\r\n', commands: [['PING']] },
  { input: '*2\r\n$4\r\nECHO\r\n$0\r\n\r\n', commands: [['ECHO', '']] },
  { input: '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\na\r\nb\r\n', commands: [['SET', 'k', 'a\r\nb']] },
  // pipelining, skipped empty requests
  { input: '*0\r\n*-1\r\n*-5\r\nPING\r\n\r\n\n   \r\n*1\r\n$4\r\nPING\r\n', commands: [['PING'], ['PING']] },
  { input: '*-9223372036854775808\r\nPING\r\n', commands: [['PING']] },
  // the two bytes after '\r' and after a payload are skipped unchecked
  { input: '*1\rX$4\r\nPINGxx', commands: [['PING']] },
  { input: '*1\r\n$4\rXPINGxx*1\r\n$4\r\nPING\r\n', commands: [['PING'], ['PING']] },
  // binary payloads, NUL inside a bulk is fine
  { input: '*1\r\n$4\r\nPI\x00G\r\n', commands: [['PI\x00G']] },
  { input: '*1\r\n$2\r\n\xff\xfe\r\n', commands: [['\xff\xfe']] },
  // incomplete requests wait
  { input: '*1\r\n$536870912\r\n', commands: [] },
  { input: '*2147483647\r\n', commands: [] },
  { input: '*1\r\n$1\r', commands: [] },
  { input: '*1\r\n$4\r\nPING\r', commands: [] },
  // a NUL before the '\r' / '\n' hides the line from strchr: it waits
  { input: '*1\x00\r\n', commands: [] },
  { input: '*1\r\n$1\x00\r\nx\r\n', commands: [] },
  { input: '*1\r\nx\x00\r\n', commands: [] },
  { input: 'PI\x00NG\r\n', commands: [] },
  // multibulk count errors
  { input: '*x\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*+1\r\n$1\r\nx\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*-0\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*01\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*1 \r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*2147483648\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*3000000000\r\n', commands: [], error: E('invalid multibulk length') },
  { input: '*-9223372036854775809\r\n', commands: [], error: E('invalid multibulk length') },
  { input: `*${'1'.repeat(70000)}\r\n`, commands: [], error: E('invalid multibulk length'), chunkSensitive: true },
  // bulk header errors
  { input: '*1\r\n+4\r\n', commands: [], error: E("expected '$', got '+'") },
  { input: '*1\r\n\r\n', commands: [], error: E("expected '$', got ' '") },
  { input: '*1\r\n\n\r\n', commands: [], error: E("expected '$', got ' '") },
  { input: '*1\r\n\xc3\r\n', commands: [], error: E("expected '$', got '\xc3'") },
  { input: '*2\r\n$4\r\nECHO\r\nPING\r\n', commands: [], error: E("expected '$', got 'P'") },
  { input: '*1\r\n$-1\r\n', commands: [], error: E('invalid bulk length') },
  { input: '*1\r\n$-0\r\n', commands: [], error: E('invalid bulk length') },
  { input: '*1\r\n$01\r\nx\r\n', commands: [], error: E('invalid bulk length') },
  { input: '*1\r\n$\r\n', commands: [], error: E('invalid bulk length') },
  { input: '*1\r\n$536870913\r\n', commands: [], error: E('invalid bulk length') },
  { input: '*1\r\n$9223372036854775807\r\n', commands: [], error: E('invalid bulk length') },
  { input: '*1\r\n$99999999999999999999\r\n', commands: [], error: E('invalid bulk length') },
  // commands before an error are still delivered
  { input: '*1\r\n$4\r\nPING\r\n*x\r\n', commands: [['PING']], error: E('invalid multibulk length') },
  // length limits on lines without their '\r' / '\n'
  { input: `*1${'1'.repeat(65535)}`, commands: [], error: E('too big mbulk count string') },
  { input: `*1${'1'.repeat(65534)}`, commands: [] },
  { input: '*1\x00' + 'x'.repeat(70000), commands: [], error: E('too big mbulk count string') },
  { input: `*1\r\n$${'1'.repeat(65536)}`, commands: [], error: E('too big bulk count string') },
  { input: '*1\r\n\x00' + 'x'.repeat(70000), commands: [], error: E('too big bulk count string') },
  { input: 'x'.repeat(65536), commands: [] },
  { input: 'x'.repeat(65537), commands: [], error: E('too big inline request') },
  // inline commands, sdssplitargs quoting
  { input: 'PING\n', commands: [['PING']] },
  { input: 'PING\r\n', commands: [['PING']] },
  { input: '\r\n\nPING\r\n', commands: [['PING']] },
  { input: '  set   a\tb  \r\n', commands: [['set', 'a', 'b']] },
  { input: 'set a "x\\x41\\n" \r\n get a\r\n', commands: [['set', 'a', 'xA\n'], ['get', 'a']] },
  { input: 'ECHO "a\\qb\\""\r\n', commands: [['ECHO', 'aqb"']] },
  { input: 'ECHO "\\x4g"\r\n', commands: [['ECHO', 'x4g']] },
  { input: 'ECHO "\\r\\t\\b\\a\\\\"\r\n', commands: [['ECHO', '\r\t\b\x07\\']] },
  { input: "ECHO 'a\\'b\\n'\r\n", commands: [['ECHO', "a'b\\n"]] },
  { input: 'ECHO "" \'\'\r\n', commands: [['ECHO', '', '']] },
  { input: 'ab"c d" e\r\n', commands: [['abc d', 'e']] },
  { input: 'ECHO a\x0bb\r\n', commands: [['ECHO', 'a\x0bb']] },
  { input: 'PING \x0bx\r\n', commands: [['PING', 'x']] },
  { input: 'ECHO "a\r"\r\n', commands: [['ECHO', 'a\r']] },
  { input: 'ECHO a\rb\r\n', commands: [['ECHO', 'a', 'b']] },
  { input: 'ECHO \xe9t\xe9\r\n', commands: [['ECHO', '\xe9t\xe9']] },
  { input: 'set a "x\r\n', commands: [], error: E('unbalanced quotes in request') },
  { input: 'set a "x"y\r\n', commands: [], error: E('unbalanced quotes in request') },
  { input: "set a 'x'y\r\n", commands: [], error: E('unbalanced quotes in request') },
  { input: "set a 'x\r\n", commands: [], error: E('unbalanced quotes in request') },
  { input: 'ab"c d"e\r\n', commands: [], error: E('unbalanced quotes in request') },
  { input: 'ECHO "a\\"\r\n', commands: [], error: E('unbalanced quotes in request') },
  // a line over the inline limit whose '\n' came with it is accepted up to 81910 bytes, as
  // Redis's second read takes it (split so that over 64 KiB wait without it, refused)
  { input: 'x'.repeat(70000) + '\n', commands: [['x'.repeat(70000)]], chunkSensitive: true },
  { input: 'x'.repeat(81909) + '\n', commands: [['x'.repeat(81909)]], chunkSensitive: true },
  { input: 'x'.repeat(81910) + '\n', commands: [], error: E('too big inline request') },
  { input: 'PING ' + 'x'.repeat(100000) + '\r\n', commands: [], error: E('too big inline request') },
];

