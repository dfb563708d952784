// ACL compared byte for byte with redis-server: SETUSER's rules and every error it words,
// GETUSER's reply shape and its rules rebuilt from the bits (categories that fit best, single
// commands, first-args, selectors), LIST, USERS, CAT, DRYRUN, AUTH and HELLO AUTH as a user,
// NOPERM refusals at top level, in MULTI and in scripts (redis.call and redis.acl_check_cmd),
// and ACL LOG's entries (their age and client line masked). Users are made and deleted within
// each case: the servers are shared by all the cases.
import type { DiffCase, Step } from './case-types.js';
import type { Frame } from './frames.js';
import type { Normaliser } from './normalize.js';

/** ACL LOG without age-seconds and client-info, which depend on timing and on the connection. */
const aclLog: Normaliser = (frame) =>
  (frame.children ?? [])
    .map((entry) => {
      const fields: Frame[] = entry.children ?? [];
      const kept: string[] = [];
      for (let i = 0; i + 1 < fields.length; i += 2) {
        const name = fields[i]!.raw.toString('latin1');
        if (name.includes('age-seconds') || name.includes('client-info')) continue;
        kept.push(name + fields[i + 1]!.raw.toString('latin1'));
      }
      return kept.join('');
    })
    .join('|');

/** Elements sorted: ACL CAT <category> lists commands in Redis's hash-table order. */
const sortedItems: Normaliser = (frame) => (frame.children ?? [frame]).map((c) => c.raw.toString('latin1')).sort().join('');

/**
 * The single-command rules (+get, -lpush, +client|id) of rule descriptions sorted in place:
 * Redis emits them in its command table's hash order, which its random hash seed changes at
 * each start. Categories and everything else keep their places; lengths are unchanged.
 */
const rules: Normaliser = (frame) => {
  const walk = (f: Frame): string => {
    if (f.children !== undefined) {
      const raw = f.raw.toString('latin1');
      return raw.slice(0, raw.indexOf('\r\n') + 2) + f.children.map(walk).join('');
    }
    const raw = f.raw.toString('latin1');
    const start = raw.indexOf('\r\n') + 2;
    const tokens = raw.slice(start, -2).split(' ');
    const single = (t: string) => /^\(?[+-][^@]/.test(t);
    const sortedSingles = tokens.filter(single).sort();
    return raw.slice(0, start) + tokens.map((t) => (single(t) ? sortedSingles.shift()! : t)).join(' ') + '\r\n';
  };
  return walk(frame);
};

const cleanup = (...users: string[]): Step[] => [['AUTH', 'default', ''], ['ACL', 'DELUSER', ...users]];

export const cases: DiffCase[] = [
  {
    name: 'SETUSER rules and GETUSER / LIST describing them',
    steps: [
      ['ACL', 'SETUSER', 'd1', 'on', 'nopass', '+@all', '-@dangerous', '~foo*', '%R~bar*', '%W~baz', '&chan*'],
      { argv: ['ACL', 'GETUSER', 'd1'], mask: rules },
      ['ACL', 'SETUSER', 'd1', '(+get ~x*)', '(+set', '%W~y)'],
      { argv: ['ACL', 'GETUSER', 'd1'], mask: rules },
      ['ACL', 'SETUSER', 'd2', 'reset', '+select|0', '+debug|digest', '+client|id', '>p1', '>p2', '<p1'],
      { argv: ['ACL', 'GETUSER', 'd2'], mask: rules },
      ['ACL', 'SETUSER', 'd3', '+@hash', '+@list', '-lpush', '+@string', '-@write', '%RW~k', 'resetchannels', '&a', '&b'],
      { argv: ['ACL', 'GETUSER', 'd3'], mask: rules },
      ['ACL', 'SETUSER', 'd3', 'clearselectors', 'allkeys', 'allchannels', 'nocommands', '+config|get', 'skip-sanitize-payload'],
      { argv: ['ACL', 'GETUSER', 'd3'], mask: rules },
      ['ACL', 'SETUSER', 'd3', 'reset'],
      { argv: ['ACL', 'GETUSER', 'd3'], mask: rules },
      ['ACL', 'SETUSER', 'd4', '#' + 'a'.repeat(64), '#' + 'b'.repeat(64), '!' + 'a'.repeat(64)],
      { argv: ['ACL', 'GETUSER', 'd4'], mask: rules },
      { argv: ['ACL', 'LIST'], mask: rules },
      ['ACL', 'USERS'],
      { argv: ['ACL', 'GETUSER', 'default'], mask: rules },
      { argv: ['ACL', 'GETUSER', 'nosuch'], mask: rules },
      ...cleanup('d1', 'd2', 'd3', 'd4'),
      ['ACL', 'USERS'],
    ],
  },
  {
    name: 'SETUSER errors, all or nothing',
    steps: [
      ['ACL', 'SETUSER', 'e1', '+get', '+config|get|x'],
      { argv: ['ACL', 'GETUSER', 'e1'], mask: rules },
      ['ACL', 'SETUSER', 'e1', '+config|'],
      ['ACL', 'SETUSER', 'e1', '+select|'],
      ['ACL', 'SETUSER', 'e1', '-select|0'],
      ['ACL', 'SETUSER', 'e1', '+nosuch'],
      ['ACL', 'SETUSER', 'e1', '+@nosuch'],
      ['ACL', 'SETUSER', 'e1', 'bogus'],
      ['ACL', 'SETUSER', 'e1', '#abc'],
      ['ACL', 'SETUSER', 'e1', '<notapassword'],
      ['ACL', 'SETUSER', 'e1', '~*', '~x'],
      ['ACL', 'SETUSER', 'e1', '&*', '&x'],
      ['ACL', 'SETUSER', 'e1', '(+get', '~x'],
      ['ACL', 'SETUSER', 'e1', '%X~a'],
      ['ACL', 'SETUSER', 'e1', '%RR~a'],
      ['ACL', 'SETUSER', 'e1', '%~a'],
      ['ACL', 'SETUSER', 'e1', '%'],
      ['ACL', 'SETUSER', 'e1', '%R', '%W~', '~'],
      { argv: ['ACL', 'GETUSER', 'e1'], mask: rules },
      ['ACL', 'SETUSER', 'e1', '(nosuch)'],
      ['ACL', 'SETUSER', 'a b'],
      ['ACL', 'SETUSER', 'e1', 'on', '+set', 'nosuchrule'],
      { argv: ['ACL', 'GETUSER', 'e1'], mask: rules },
      ['ACL', 'DELUSER', 'default', 'e1'],
      ['ACL', 'DELUSER', 'e1', 'nosuch'],
    ],
  },
  {
    name: 'CAT, GENPASS, HELP, LOAD and SAVE without an aclfile, unknown subcommands',
    steps: [
      ['ACL', 'CAT'],
      { argv: ['ACL', 'CAT', 'hash'], mask: sortedItems },
      { argv: ['ACL', 'CAT', 'SortedSet'], mask: sortedItems },
      { argv: ['ACL', 'CAT', 'geo'], mask: sortedItems },
      { argv: ['ACL', 'CAT', 'transaction'], mask: sortedItems },
      { argv: ['ACL', 'CAT', 'blocking'], mask: sortedItems },
      ['ACL', 'CAT', 'nosuch'],
      ['ACL', 'GENPASS', '0'],
      ['ACL', 'GENPASS', '4097'],
      ['ACL', 'GENPASS', 'x'],
      { argv: ['ACL', 'GENPASS', '9'], mask: 'typeOnly' },
      ['ACL', 'HELP'],
      ['ACL', 'HELP', 'x'],
      ['ACL', 'LOAD'],
      ['ACL', 'SAVE'],
      ['ACL', 'NOSUCH'],
      ['ACL'],
      ['ACL', 'WHOAMI'],
    ],
  },
  {
    name: 'DRYRUN: commands, keys, channels, unknown users and commands, arity',
    steps: [
      ['ACL', 'SETUSER', 'dr', 'on', '+set', '+publish', '+config|get', '~k*', 'resetchannels', '&ch*'],
      ['ACL', 'DRYRUN', 'dr', 'get', 'k1'],
      ['ACL', 'DRYRUN', 'dr', 'set', 'k1', 'v'],
      ['ACL', 'DRYRUN', 'dr', 'set', 'other', 'v'],
      ['ACL', 'DRYRUN', 'dr', 'publish', 'chan', 'm'],
      ['ACL', 'DRYRUN', 'dr', 'publish', 'news', 'm'],
      ['ACL', 'DRYRUN', 'dr', 'config', 'get', 'x'],
      ['ACL', 'DRYRUN', 'dr', 'config', 'set', 'x', 'y'],
      ['ACL', 'DRYRUN', 'dr', 'config', 'nosuch'],
      ['ACL', 'DRYRUN', 'dr', 'config'],
      ['ACL', 'DRYRUN', 'dr', 'set', 'k1'],
      ['ACL', 'DRYRUN', 'dr', 'nosuch'],
      ['ACL', 'DRYRUN', 'nosuch', 'get', 'k'],
      ...cleanup('dr'),
    ],
  },
  {
    name: 'AUTH and HELLO AUTH as a user; NOPERM at top level and in MULTI; ACL LOG',
    steps: [
      ['ACL', 'LOG', 'RESET'],
      ['ACL', 'SETUSER', 'au', '>pw', 'on', '+set', '+multi', '+exec', '+acl|whoami', '+eval', '~obj:*', 'resetchannels', '+publish', '&ch'],
      ['AUTH', 'au', 'wrong'],
      ['AUTH', 'nosuch', 'pw'],
      ['AUTH', 'pw'],
      ['AUTH', 'au', 'pw'],
      ['ACL', 'WHOAMI'],
      ['GET', 'x'],
      ['SET', 'x', '1'],
      ['SET', 'obj:1', '1'],
      ['PUBLISH', 'other', 'm'],
      ['PUBLISH', 'ch', 'm'],
      ['CLIENT', 'ID'],
      ['MULTI'],
      ['INCR', 'obj:1'],
      ['SET', 'obj:2', 'v'],
      ['EXEC'],
      ['MULTI'],
      ['SET', 'obj:3', 'v'],
      ['EXEC'],
      ['EVAL', "return redis.call('incr', 'obj:1')", '0'],
      ['EVAL', "return redis.pcall('set', 'x', '1')", '0'],
      ['EVAL', "return redis.call('set', 'obj:4', 'v')", '0'],
      ['EVAL', "return {redis.acl_check_cmd('set', 'obj:1', 'v'), redis.acl_check_cmd('get', 'obj:1'), redis.acl_check_cmd('set', 'x', '1')}", '0'],
      ['EVAL', "return redis.acl_check_cmd('nosuch')", '0'],
      ['EVAL', 'return redis.acl_check_cmd()', '0'],
      ['HELLO', '3', 'AUTH', 'au', 'bad'],
      ['AUTH', 'default', ''],
      ['ACL', 'WHOAMI'],
      { argv: ['ACL', 'LOG'], mask: aclLog },
      { argv: ['ACL', 'LOG', '2'], mask: aclLog },
      ['ACL', 'LOG', '-1'],
      ['ACL', 'LOG', 'x'],
      ['ACL', 'LOG', 'RESET'],
      ['ACL', 'LOG'],
      ...cleanup('au'),
    ],
  },
  {
    name: 'requirepass is the default user password; the default user turned off',
    steps: [
      ['CONFIG', 'SET', 'requirepass', 'sekret'],
      { argv: ['ACL', 'GETUSER', 'default'], mask: rules },
      ['AUTH', 'wrong'],
      ['AUTH', 'sekret'],
      ['AUTH', 'default', 'sekret'],
      // Set again to the value it has: the default user's passwords are replaced again.
      ['ACL', 'SETUSER', 'default', 'nopass'],
      { argv: ['ACL', 'GETUSER', 'default'], mask: rules },
      ['CONFIG', 'SET', 'requirepass', 'sekret'],
      { argv: ['ACL', 'GETUSER', 'default'], mask: rules },
      ['CONFIG', 'SET', 'requirepass', ''],
      { argv: ['ACL', 'GETUSER', 'default'], mask: rules },
      ['AUTH', 'x'],
      ['ACL', 'SETUSER', 'default', '-get'],
      ['GET', 'k'],
      ['ACL', 'SETUSER', 'default', '+get'],
      ['GET', 'k'],
      { argv: ['ACL', 'LIST'], mask: rules },
      ['ACL', 'LOG', 'RESET'],
    ],
  },
];
