// One ACL user, as Redis 7.0's user struct (acl.c): its flags (on/off, nopass, payload
// sanitizing), its passwords as SHA-256 hex, its root selector and the selectors added in
// parentheses. ACLSetUser's rules, ACLDescribeUser's text and the credential check.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Buffer } from 'node:buffer';
import type { AclCommandSet } from './acl-commands.js';
import { AclRuleError, Selector } from './selector.js';

/** ACLHashPassword: the SHA-256 of the bytes, as lower-case hex. */
export function hashPassword(password: Buffer): string {
  return createHash('sha256').update(password).digest('hex');
}

/** ACLCheckPasswordHash: exactly 64 lower-case hex digits. */
function validHash(hash: string): boolean {
  return /^[0-9a-f]{64}$/.test(hash);
}

export class AclUser {
  enabled = false;
  nopass = false;
  /** Redis's USER_FLAG_SANITIZE_PAYLOAD and _SKIP: neither is set until a rule says one. */
  sanitizePayload = false;
  skipSanitizePayload = false;
  passwords: string[] = [];
  /** The root selector first, then the ones added with (...). */
  selectors: Selector[];
  /**
   * Allowed every command, key and channel by its root selector: the permission check is
   * skipped for its clients (the default user's case, checked once per command).
   */
  unrestricted = false;
  /** Set when the user is deleted: its clients are disconnected. */
  deleted = false;

  constructor(
    readonly name: string,
    private readonly commands: AclCommandSet,
    /** acl-pubsub-default: new selectors start with allchannels (else resetchannels). */
    private readonly pubsubAllChannels: () => boolean,
  ) {
    this.selectors = [new Selector(commands, true, pubsubAllChannels())];
  }

  get root(): Selector {
    return this.selectors[0]!;
  }

  /** ACLCopyUser: `other`'s rules into this user (the name stays). */
  copyFrom(other: AclUser): void {
    this.enabled = other.enabled;
    this.nopass = other.nopass;
    this.sanitizePayload = other.sanitizePayload;
    this.skipSanitizePayload = other.skipSanitizePayload;
    this.passwords = [...other.passwords];
    this.selectors = other.selectors.map((s) => s.copy());
    this.refresh();
  }

  /** Recomputes `unrestricted` after a change. */
  refresh(): void {
    const root = this.root;
    this.unrestricted = root.allCommands && root.allKeys && root.allChannels;
  }

  /** ACLSetUser: one rule (latin1 text). Throws AclRuleError. */
  apply(op: string): void {
    if (op.length === 0) return;
    const lowered = op.toLowerCase();
    if (lowered === 'on') this.enabled = true;
    else if (lowered === 'off') this.enabled = false;
    else if (lowered === 'skip-sanitize-payload') {
      this.skipSanitizePayload = true;
      this.sanitizePayload = false;
    } else if (lowered === 'sanitize-payload') {
      this.skipSanitizePayload = false;
      this.sanitizePayload = true;
    } else if (lowered === 'nopass') {
      this.nopass = true;
      this.passwords = [];
    } else if (lowered === 'resetpass') {
      this.nopass = false;
      this.passwords = [];
    } else if (op[0] === '>' || op[0] === '#') {
      const hash = op[0] === '>' ? hashPassword(Buffer.from(op.slice(1), 'latin1')) : op.slice(1);
      if (op[0] === '#' && !validHash(hash)) throw new AclRuleError('EBADMSG');
      if (!this.passwords.includes(hash)) this.passwords.push(hash);
      this.nopass = false;
    } else if (op[0] === '<' || op[0] === '!') {
      const hash = op[0] === '<' ? hashPassword(Buffer.from(op.slice(1), 'latin1')) : op.slice(1);
      if (op[0] === '!' && !validHash(hash)) throw new AclRuleError('EBADMSG');
      const at = this.passwords.indexOf(hash);
      if (at < 0) throw new AclRuleError('ENODEV');
      this.passwords.splice(at, 1);
    } else if (op[0] === '(' && op[op.length - 1] === ')') {
      const selector = new Selector(this.commands, false, this.pubsubAllChannels());
      // Unbalanced quotes leave sdssplitargs no arguments: an empty selector, as in Redis.
      let rules: string[] = [];
      try {
        rules = splitArgs(op.slice(1, -1));
      } catch {
        rules = [];
      }
      for (const rule of rules) selector.apply(rule);
      this.selectors.push(selector);
    } else if (lowered === 'clearselectors') {
      this.selectors = [this.root];
    } else if (lowered === 'reset') {
      this.apply('resetpass');
      this.apply('resetkeys');
      this.apply('resetchannels');
      if (this.pubsubAllChannels()) this.apply('allchannels');
      this.apply('off');
      this.apply('sanitize-payload');
      this.apply('clearselectors');
      this.apply('-@all');
    } else {
      this.root.apply(op);
    }
    this.refresh();
  }

  /** ACLCheckUserCredentials for an existing user. */
  accepts(password: Buffer): boolean {
    if (!this.enabled) return false;
    if (this.nopass) return true;
    const hashed = Buffer.from(hashPassword(password), 'latin1');
    let ok = false;
    for (const p of this.passwords) if (timingSafeEqual(hashed, Buffer.from(p, 'latin1'))) ok = true;
    return ok;
  }

  /** The flags in ACLUserFlags' order (ACL GETUSER, ACL LIST). */
  flags(): string[] {
    const out: string[] = [];
    if (this.enabled) out.push('on');
    else out.push('off');
    if (this.nopass) out.push('nopass');
    if (this.skipSanitizePayload) out.push('skip-sanitize-payload');
    if (this.sanitizePayload) out.push('sanitize-payload');
    return out;
  }

  /** ACLDescribeUser: the rules that recreate this user (ACL LIST, ACL SAVE, CONFIG REWRITE). */
  describe(): string {
    let res = '';
    for (const flag of this.flags()) res += `${flag} `;
    for (const p of this.passwords) res += `#${p} `;
    for (const s of this.selectors) res += s.root ? s.describe() : ` (${s.describe()})`;
    return res;
  }
}

/**
 * sdssplitargs, as a selector's rules inside parentheses are split: spaces separate, "..." and
 * '...' quote (with \x.. and the usual escapes in double quotes). Throws EINVAL on unbalanced quotes.
 */
export function splitArgs(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  const isSpace = (c: string | undefined) => c !== undefined && ' \n\r\t\v\f'.includes(c);
  for (;;) {
    while (isSpace(line[i])) i++;
    if (i >= line.length) return out;
    let current = '';
    let inDq = false;
    let inSq = false;
    for (;;) {
      const c = line[i];
      if (inDq) {
        if (c === undefined) throw new AclRuleError('EINVAL');
        if (c === '\\' && line[i + 1] === 'x' && /^[0-9a-fA-F]{2}$/.test(line.slice(i + 2, i + 4))) {
          current += String.fromCharCode(parseInt(line.slice(i + 2, i + 4), 16));
          i += 3;
        } else if (c === '\\' && line[i + 1] !== undefined) {
          const e = line[++i]!;
          current += e === 'n' ? '\n' : e === 'r' ? '\r' : e === 't' ? '\t' : e === 'b' ? '\b' : e === 'a' ? '\x07' : e;
        } else if (c === '"') {
          if (line[i + 1] !== undefined && !isSpace(line[i + 1])) throw new AclRuleError('EINVAL');
          inDq = false;
          i++;
          break;
        } else current += c;
      } else if (inSq) {
        if (c === undefined) throw new AclRuleError('EINVAL');
        if (c === '\\' && line[i + 1] === "'") {
          i++;
          current += "'";
        } else if (c === "'") {
          if (line[i + 1] !== undefined && !isSpace(line[i + 1])) throw new AclRuleError('EINVAL');
          inSq = false;
          i++;
          break;
        } else current += c;
      } else {
        if (c === undefined || isSpace(c)) break;
        if (c === '"') inDq = true;
        else if (c === "'") inSq = true;
        else current += c;
      }
      i++;
    }
    out.push(current);
  }
}
