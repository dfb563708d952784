// Whether a user may run a command line, as Redis 7.0's ACLCheckAllUserCommandPerm: each
// selector in turn checks the command (or an allowed first argument), the keys the key specs
// find with the access each needs (read for ACCESS, write for INSERT/DELETE/UPDATE), and the
// channels of PUBLISH and the SUBSCRIBE family; the first selector that allows all wins.
import type { Buffer } from 'node:buffer';
import { globMatch } from '../glob.js';
import { flagsAt, searchKeySpecs } from '../key-spec-search.js';
import { KEY_SPECS } from '../key-specs.generated.js';
import type { AclCommand } from './acl-commands.js';
import type { Selector } from './selector.js';
import type { AclUser } from './user.js';

/** Redis's ACL_* results; a higher denial is the more relevant one to report. */
export const ACL_OK = 0;
export const ACL_DENIED_CMD = 1;
export const ACL_DENIED_KEY = 2;
export const ACL_DENIED_CHANNEL = 4;

export interface AclVerdict {
  readonly result: number;
  /** The argument (in the command line) of the key or channel denied. */
  readonly pos: number;
}

const ALLOWED: AclVerdict = { result: ACL_OK, pos: 0 };

interface KeyRef {
  readonly pos: number;
  readonly read: boolean;
  readonly write: boolean;
}

/** commands_with_channels (db.c): where the channels are and whether they are patterns. */
function channelsOf(fullName: string, argc: number): { from: number; to: number; pattern: boolean } | null {
  switch (fullName) {
    case 'subscribe':
    case 'ssubscribe':
      return { from: 1, to: argc, pattern: false };
    case 'psubscribe':
      return { from: 1, to: argc, pattern: true };
    case 'publish':
    case 'spublish':
      return { from: 1, to: Math.min(2, argc), pattern: false };
    default:
      return null;
  }
}

/** doesCommandHaveKeys. */
function hasKeys(cmd: AclCommand): boolean {
  const specs = KEY_SPECS[cmd.fullName];
  // Only NOT_KEY specs (SPUBLISH, SSUBSCRIBE: shard channels, not keys): no keys to check.
  if (specs !== undefined && specs.length > 0 && specs.every((s) => s.flags.includes('not_key'))) return false;
  const spec = cmd.spec;
  if (spec.keys !== undefined || spec.firstKey > 0) return true;
  return (specs ?? []).some((s) => !s.flags.includes('not_key'));
}

/** getKeysFromCommandWithSpecs: the key specs' search, else the command's own positions. */
function keysOf(cmd: AclCommand, argv: Buffer[]): KeyRef[] {
  const spec = cmd.spec;
  let refs = searchKeySpecs(cmd.fullName, argv, spec.arity);
  if (refs === null) {
    let positions: number[];
    if (spec.keys !== undefined) positions = spec.keys(argv);
    else {
      positions = [];
      const last = spec.lastKey < 0 ? argv.length + spec.lastKey : spec.lastKey;
      for (let i = spec.firstKey; i > 0 && i <= last && i < argv.length; i += Math.max(spec.step, 1)) positions.push(i);
    }
    refs = positions.map((pos) => ({ pos, flags: flagsAt(cmd.fullName, argv, pos) }));
  }
  return refs.map((r) => ({
    pos: r.pos,
    read: r.flags.includes('access'),
    write: r.flags.includes('insert') || r.flags.includes('delete') || r.flags.includes('update'),
  }));
}

/** ACLSelectorCheckKey. */
function keyAllowed(selector: Selector, key: string, read: boolean, write: boolean): boolean {
  if (selector.allKeys) return true;
  for (const p of selector.patterns) {
    if ((read && !p.read) || (write && !p.write)) continue;
    if (globMatch(p.pattern, key)) return true;
  }
  return false;
}

/** ACLCheckChannelAgainstList: a pattern (PSUBSCRIBE) must be one of the list literally. */
export function channelAllowed(list: readonly string[], channel: string, isPattern: boolean): boolean {
  for (const p of list) if (isPattern ? p === channel : globMatch(p, channel)) return true;
  return false;
}

/** ACLSelectorCheckCmd. `keys` is computed once for all the selectors. */
function selectorCheck(selector: Selector, cmd: AclCommand, argv: Buffer[], keys: { refs: KeyRef[] | null }): AclVerdict {
  if (!selector.allCommands && !cmd.noAuth && !selector.allowed.has(cmd.fullName)) {
    const firstArgs = selector.firstArgs?.get(cmd.fullName);
    if (argv.length < 2 || firstArgs === undefined) return { result: ACL_DENIED_CMD, pos: 0 };
    const arg = argv[cmd.parent !== null ? 2 : 1]?.toString('latin1').toLowerCase();
    if (!firstArgs.some((a) => a.toLowerCase() === arg)) return { result: ACL_DENIED_CMD, pos: 0 };
  }
  if (!selector.allKeys && hasKeys(cmd)) {
    keys.refs ??= keysOf(cmd, argv);
    for (const ref of keys.refs) {
      if (!keyAllowed(selector, argv[ref.pos]!.toString('latin1'), ref.read, ref.write)) return { result: ACL_DENIED_KEY, pos: ref.pos };
    }
  }
  if (!selector.allChannels) {
    const channels = channelsOf(cmd.fullName, argv.length);
    if (channels !== null) {
      for (let i = channels.from; i < channels.to; i++) {
        if (!channelAllowed(selector.channels, argv[i]!.toString('latin1'), channels.pattern)) return { result: ACL_DENIED_CHANNEL, pos: i };
      }
    }
  }
  return ALLOWED;
}

/** ACLCheckAllUserCommandPerm: allowed, or the most relevant denial of all the selectors. */
export function checkCommand(user: AclUser, cmd: AclCommand, argv: Buffer[]): AclVerdict {
  let relevant: AclVerdict = { result: ACL_DENIED_CMD, pos: 0 };
  const keys = { refs: null as KeyRef[] | null };
  for (const selector of user.selectors) {
    const verdict = selectorCheck(selector, cmd, argv, keys);
    if (verdict.result === ACL_OK) return ALLOWED;
    if (verdict.result > relevant.result || (verdict.result === relevant.result && verdict.pos > relevant.pos)) relevant = verdict;
  }
  return relevant;
}

/** ACLUserCheckChannelPerm: may the user subscribe to (or publish on) this channel or pattern. */
export function userChannelAllowed(user: AclUser, channel: string, isPattern: boolean): boolean {
  for (const s of user.selectors) if (s.allChannels || channelAllowed(s.channels, channel, isPattern)) return true;
  return false;
}

/** ACLSelectorHasUnrestrictedKeyAccess for read access: allkeys, or a `*` pattern that may read. */
function readsAllKeys(selector: Selector): boolean {
  return selector.allKeys || selector.patterns.some((p) => p.read && p.pattern === '*');
}

/**
 * ACLUserCheckCmdWithUnrestrictedKeyAccess(CMD_KEY_ACCESS): may the user run this command and
 * read any key at all (SORT's BY and GET name keys that its arguments do not show).
 */
export function readsAnyKey(user: AclUser, cmd: AclCommand, argv: Buffer[]): boolean {
  const keys = { refs: null as KeyRef[] | null };
  return user.selectors.some((s) => selectorCheck(s, cmd, argv, keys).result === ACL_OK && readsAllKeys(s));
}
