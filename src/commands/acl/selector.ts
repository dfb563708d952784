// One ACL selector, as Redis 7.0's aclSelector (acl.c): the commands it allows (a set of full
// names standing for Redis's command bitmap, plus its reserved "future commands" bit that only
// +@all sets), first-args allowed of otherwise denied commands, key patterns with their
// read/write permissions, channel patterns. ACLSetSelector's rules applied to it, and its
// description (ACLDescribeSelector, ACLDescribeSelectorCommandRules) rebuilt from the bits.
import { ACL_CATEGORIES, type AclCommand, type AclCommandSet, categoryNamed } from './acl-commands.js';

/** Why a rule was refused: the errno ACLSetUser leaves (ACLSetUserStringError words each). */
export type AclRuleErrno = 'ENOENT' | 'EINVAL' | 'EEXIST' | 'EISDIR' | 'ENODEV' | 'EBADMSG' | 'ECHILD';

export class AclRuleError extends Error {
  constructor(readonly errno: AclRuleErrno) {
    super(errno);
  }
}

/** A key pattern and what it grants: ~ both, %R~ reading, %W~ writing (latin1 text). */
export interface KeyPattern {
  readonly pattern: string;
  read: boolean;
  write: boolean;
}

/** isspace() or NUL: what usernames and patterns may not contain. */
export function hasSpaces(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0 || c === 32 || (c >= 9 && c <= 13)) return true;
  }
  return false;
}

/** strcasecmp of ASCII names. */
function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

export class Selector {
  allKeys = false;
  allChannels = false;
  allCommands = false;
  /** Full names of the allowed commands and subcommands (Redis's bitmap). */
  allowed = new Set<string>();
  /** The bitmap's reserved bit: set by +@all, cleared by -@all; +@all is described from it. */
  future = false;
  /** Allowed first arguments of otherwise denied commands (+select|0), by full name. */
  firstArgs: Map<string, string[]> | null = null;
  patterns: KeyPattern[] = [];
  channels: string[] = [];

  constructor(
    readonly commands: AclCommandSet,
    readonly root: boolean,
    pubsubAllChannels: boolean,
  ) {
    this.allChannels = pubsubAllChannels;
  }

  copy(): Selector {
    const s = new Selector(this.commands, this.root, this.allChannels);
    s.allKeys = this.allKeys;
    s.allCommands = this.allCommands;
    s.allowed = new Set(this.allowed);
    s.future = this.future;
    s.firstArgs = this.firstArgs === null ? null : new Map([...this.firstArgs].map(([k, v]) => [k, [...v]]));
    s.patterns = this.patterns.map((p) => ({ ...p }));
    s.channels = [...this.channels];
    return s;
  }

  private setBit(cmd: AclCommand, allow: boolean): void {
    if (allow) this.allowed.add(cmd.fullName);
    else {
      this.allowed.delete(cmd.fullName);
      this.allCommands = false;
    }
  }

  /** ACLChangeSelectorPerm: a command, and a container's subcommands with it. */
  changePerm(cmd: AclCommand, allow: boolean): void {
    this.setBit(cmd, allow);
    this.firstArgs?.delete(cmd.fullName);
    for (const sub of cmd.subcommands) this.setBit(sub, allow);
  }

  private setAll(allow: boolean): void {
    this.allowed = allow ? new Set(this.commands.flat.map((c) => c.fullName)) : new Set();
    this.future = allow;
    this.allCommands = allow;
    this.firstArgs = null;
  }

  /** ACLSetSelectorCommandBitsForCategoryLogic over the whole table. */
  private setCategory(category: string, allow: boolean): void {
    for (const cmd of this.commands.commands) {
      if (cmd.categories.has(category)) this.changePerm(cmd, allow);
      for (const sub of cmd.subcommands) if (sub.categories.has(category)) this.changePerm(sub, allow);
    }
  }

  private addFirstArg(fullName: string, arg: string): void {
    this.firstArgs ??= new Map();
    const list = this.firstArgs.get(fullName) ?? [];
    if (list.some((a) => sameName(a, arg))) return;
    list.push(arg);
    this.firstArgs.set(fullName, list);
  }

  /** ACLSetSelector: one rule (`op` as latin1 text). Throws AclRuleError. */
  apply(op: string): void {
    const lowered = op.toLowerCase();
    if (lowered === 'allkeys' || op === '~*') {
      this.allKeys = true;
      this.patterns = [];
    } else if (lowered === 'resetkeys') {
      this.allKeys = false;
      this.patterns = [];
    } else if (lowered === 'allchannels' || op === '&*') {
      this.allChannels = true;
      this.channels = [];
    } else if (lowered === 'resetchannels') {
      this.allChannels = false;
      this.channels = [];
    } else if (lowered === 'allcommands' || lowered === '+@all') {
      this.setAll(true);
    } else if (lowered === 'nocommands' || lowered === '-@all') {
      this.setAll(false);
    } else if (op[0] === '~' || op[0] === '%') {
      this.addKeyPattern(op);
    } else if (op[0] === '&') {
      if (this.allChannels) throw new AclRuleError('EISDIR');
      const pattern = op.slice(1);
      if (hasSpaces(pattern)) throw new AclRuleError('EINVAL');
      if (!this.channels.includes(pattern)) this.channels.push(pattern);
      this.allChannels = false;
    } else if (op[0] === '+' && op[1] !== '@') {
      this.allowCommand(op.slice(1));
    } else if (op[0] === '-' && op[1] !== '@') {
      const cmd = this.commands.lookup(op.slice(1));
      if (cmd === undefined) throw new AclRuleError('ENOENT');
      this.changePerm(cmd, false);
    } else if ((op[0] === '+' || op[0] === '-') && op[1] === '@') {
      const category = categoryNamed(op.slice(2));
      if (category === null) throw new AclRuleError('ENOENT');
      this.setCategory(category, op[0] === '+');
    } else {
      throw new AclRuleError('EINVAL');
    }
  }

  private addKeyPattern(op: string): void {
    if (this.allKeys) throw new AclRuleError('EEXIST');
    let read = true;
    let write = true;
    let offset = 1;
    if (op[0] === '%') {
      read = false;
      write = false;
      for (; offset < op.length; offset++) {
        const c = op[offset]!.toUpperCase();
        if (c === 'R' && !read) read = true;
        else if (c === 'W' && !write) write = true;
        else if (op[offset] === '~') {
          offset++;
          break;
        } else throw new AclRuleError('EINVAL');
      }
      // %~pattern grants nothing: redis-server 7.0.15 refuses it (a syntax error).
      if (!read && !write) throw new AclRuleError('EINVAL');
    }
    const pattern = op.slice(offset);
    if (hasSpaces(pattern)) throw new AclRuleError('EINVAL');
    const existing = this.patterns.find((p) => p.pattern === pattern);
    if (existing === undefined) this.patterns.push({ pattern, read, write });
    else {
      existing.read ||= read;
      existing.write ||= write;
    }
    this.allKeys = false;
  }

  /** +command, +container|sub, +command|first-arg. */
  private allowCommand(name: string): void {
    const bar = name.lastIndexOf('|');
    if (bar < 0) {
      const cmd = this.commands.lookup(name);
      if (cmd === undefined) throw new AclRuleError('ENOENT');
      this.changePerm(cmd, true);
      return;
    }
    const cmd = this.commands.lookup(name.slice(0, bar));
    if (cmd === undefined) throw new AclRuleError('ENOENT');
    if (cmd.parent !== null) throw new AclRuleError('ECHILD');
    const sub = name.slice(bar + 1);
    if (sub.length === 0) throw new AclRuleError('EINVAL');
    if (cmd.subcommands.length > 0) {
      const subcommand = this.commands.lookup(name);
      if (subcommand === undefined) throw new AclRuleError('ENOENT');
      this.changePerm(subcommand, true);
    } else {
      this.addFirstArg(cmd.fullName, sub);
    }
  }

  /** The key patterns as ACL GETUSER's "keys" and ACL LIST show them. */
  describeKeys(separator: string): string {
    if (this.allKeys) return '~*';
    return this.patterns.map(patternText).join(separator);
  }

  /** ACLDescribeSelector: keys, channels, then the command rules. */
  describe(): string {
    let res = '';
    if (this.allKeys) res += '~* ';
    else for (const p of this.patterns) res += patternText(p) + ' ';
    if (this.allChannels) res += '&* ';
    else {
      res += 'resetchannels ';
      for (const c of this.channels) res += `&${c} `;
    }
    return res + this.describeCommandRules();
  }

  /** Commands this selector allows among those in `category` (on) and not (off). */
  private countCategory(allowed: ReadonlySet<string>, category: string): { on: number; off: number } {
    let on = 0;
    let off = 0;
    for (const cmd of this.commands.flat) {
      if (!cmd.categories.has(category)) continue;
      if (allowed.has(cmd.fullName)) on++;
      else off++;
    }
    return { on, off };
  }

  /**
   * ACLDescribeSelectorCommandRules: +@all or -@all, then the categories that fit best, then
   * the single commands that still differ, and allowed first-args, as Redis derives them.
   */
  describeCommandRules(): string {
    let rules = '';
    const additive = !this.future;
    const fake = new Selector(this.commands, false, false);
    fake.setAll(!additive);
    rules += additive ? '-@all ' : '+@all ';
    // Categories are applied, inverted, to a copy of the bits, to see what is left to explain.
    const temp = new Selector(this.commands, false, false);
    temp.allowed = new Set(this.allowed);
    const applied = new Set<string>();
    for (;;) {
      let best: string | null = null;
      let mindiff = Number.MAX_SAFE_INTEGER;
      let maxsame = 0;
      for (const category of ACL_CATEGORIES) {
        if (applied.has(category)) continue;
        const { on, off } = this.countCategory(temp.allowed, category);
        const diff = additive ? off : on;
        const same = additive ? on : off;
        if (same > diff && (diff < mindiff || (diff === mindiff && same > maxsame))) {
          best = category;
          mindiff = diff;
          maxsame = same;
        }
      }
      if (best === null) break;
      fake.setCategory(best, additive);
      temp.setCategory(best, !additive);
      rules += `${additive ? '+@' : '-@'}${best} `;
      applied.add(best);
    }
    rules = this.singleCommandRules(fake, rules, this.commands.commands);
    return rules.slice(0, -1);
  }

  private singleCommandRules(fake: Selector, rules: string, commands: readonly AclCommand[]): string {
    for (const cmd of commands) {
      const userbit = this.allowed.has(cmd.fullName);
      const fakebit = fake.allowed.has(cmd.fullName);
      if (userbit !== fakebit) {
        rules += `${userbit ? '+' : '-'}${cmd.fullName} `;
        fake.changePerm(cmd, userbit);
      }
      if (cmd.subcommands.length > 0) rules = this.singleCommandRules(fake, rules, cmd.subcommands);
      const firstArgs = this.firstArgs?.get(cmd.fullName);
      if (!userbit && firstArgs !== undefined) for (const arg of firstArgs) rules += `+${cmd.fullName}|${arg} `;
    }
    return rules;
  }
}

/** sdsCatPatternString. */
export function patternText(p: KeyPattern): string {
  return `${p.read && p.write ? '~' : p.read ? '%R~' : '%W~'}${p.pattern}`;
}
