// An instance's ACL users, as Redis 7.0's Users radix tree and DefaultUser (acl.c): creating
// and changing users all-or-nothing (ACLStringSetUser), deleting them (their clients are
// disconnected), checking credentials for AUTH and HELLO, the permission check dispatch runs
// for clients of a restricted user, the default user's password kept in step with
// requirepass, and the ACL LOG. Made once per instance (aclOf).
import { Buffer } from 'node:buffer';
import { Errors } from '../../resp/errors.js';
import { clientInfoLine } from '../client-info.js';
import type { ClientState } from '../client-state.js';
import type { InstanceView } from '../types.js';
import { perInstance } from '../per-instance.js';
import { AclCommandSet } from './acl-commands.js';
import { type AclContext, type AclDenial, AclLog } from './acl-log.js';
import { ACL_DENIED_CMD, ACL_DENIED_KEY, type AclVerdict, checkCommand, channelAllowed } from './permission-check.js';
import { AclRuleError, hasSpaces } from './selector.js';
import { ruleErrorText } from './rule-errors.js';
import { AclUser } from './user.js';

/**
 * ACLMergeSelectorArguments: a selector spread over several arguments ("(+get" "~key)") joined
 * into one; `unmatched`, the index of the opening argument, when a parenthesis is left open.
 */
export function mergeSelectorArgs(args: string[]): { merged: string[] } | { unmatched: number } {
  const merged: string[] = [];
  let open = -1;
  let selector = '';
  args.forEach((op, j) => {
    if (op[0] === '(' && op[op.length - 1] !== ')') {
      selector = op;
      open = j;
      return;
    }
    if (open !== -1) {
      selector += ` ${op}`;
      if (op[op.length - 1] === ')') {
        open = -1;
        merged.push(selector);
      }
      return;
    }
    merged.push(op);
  });
  return open !== -1 ? { unmatched: open } : { merged };
}

/** The aclfile's bytes (installed by the server; absent in the embedded database). */
export interface AclFileControl {
  /** The file's text; throws an Error whose message is strerror's (ENOENT: "No such file or directory"). */
  read(): string;
  /** Replaces the file atomically; throws on failure. */
  write(text: string): void;
  /** The path as configured (aclfile), for messages. */
  readonly name: string;
}

/** Bytes as the latin1 text users, rules and patterns are kept in. */
export const latin1 = (b: Buffer): string => b.toString('latin1');

export class AclUsers {
  private readonly users = new Map<string, AclUser>();
  readonly defaultUser: AclUser;
  readonly log: AclLog;
  /** The requirepass last applied to the default user. */
  private requirepass: string | null = null;
  private commandSet: AclCommandSet | null = null;

  constructor(private readonly instance: InstanceView) {
    this.log = new AclLog(() => instance.config.getNumber('acllog-max-len'));
    this.defaultUser = this.freshDefault();
    this.users.set('default', this.defaultUser);
    const config = instance.config;
    this.applyRequirepass(config.get('requirepass'));
    const param = config.param('requirepass');
    if (param !== undefined) {
      config.declare({
        ...param,
        onChange: (value) => {
          param.onChange?.(value);
          this.applyRequirepass(value);
        },
      });
    }
  }

  get commands(): AclCommandSet {
    this.commandSet ??= new AclCommandSet(this.instance.table);
    return this.commandSet;
  }

  private readonly pubsubAllChannels = (): boolean => this.instance.config.get('acl-pubsub-default') === 'allchannels';

  private create(name: string): AclUser {
    const user = this.unlinked(name);
    this.users.set(name, user);
    return user;
  }

  /** ACLCreateUnlinkedUser: a user not (yet) among the users. */
  unlinked(name: string): AclUser {
    return new AclUser(name, this.commands, this.pubsubAllChannels);
  }

  /** ACLCreateUser (the config file's users at start). */
  add(name: string): AclUser {
    return this.create(name);
  }

  /** The aclfile's bytes, installed by the server (ACL LOAD / SAVE); null in the embedded database. */
  file: AclFileControl | null = null;

  /**
   * ACL LOAD's swap (ACLLoadFromFile): the loaded users replace all; the default user keeps its
   * identity and takes the loaded rules (a fresh default user's without a line for it); the
   * clients of every other former user are disconnected, as Redis frees those users.
   */
  replaceAll(loaded: Map<string, AclUser>, current?: ClientState): void {
    const fresh = loaded.get('default') ?? this.freshDefault();
    this.defaultUser.copyFrom(fresh);
    for (const [name, user] of this.users) {
      if (name !== 'default') this.disconnect(user, current);
    }
    this.users.clear();
    this.users.set('default', this.defaultUser);
    for (const [name, user] of loaded) if (name !== 'default') this.users.set(name, user);
  }

  private freshDefault(): AclUser {
    const user = this.unlinked('default');
    for (const op of ['+@all', '~*', '&*', 'on', 'nopass']) user.apply(op);
    return user;
  }

  /**
   * ACLUpdateDefaultUserPassword: requirepass is the default user's password. Applied at start
   * and at every CONFIG SET that changes it (its onChange), as Redis's apply function.
   */
  private applyRequirepass(pass: string): void {
    // Redis's CONFIG SET applies nothing when the value does not change.
    if (pass === this.requirepass) return;
    this.requirepass = pass;
    this.defaultUser.apply('resetpass');
    this.defaultUser.apply(pass === '' ? 'nopass' : `>${Buffer.from(pass, 'utf8').toString('latin1')}`);
  }

  /** authRequired: a new connection must AUTH when the default user has a password or is off. */
  authRequired(): boolean {
    return !this.defaultUser.nopass || !this.defaultUser.enabled;
  }

  get(name: string): AclUser | undefined {
    return this.users.get(name);
  }

  /** Users in the radix tree's order: by their names' bytes. */
  all(): AclUser[] {
    return [...this.users.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * ACL SETUSER (ACLStringSetUser): the rules applied to a copy, then to the user (made if new)
   * only if all of them hold. Returns the error text, or null.
   */
  setUser(name: string, args: string[]): string | null {
    if (hasSpaces(name)) return Errors.aclUsernameSpaces;
    const merged = mergeSelectorArgs(args);
    if ('unmatched' in merged) return Errors.aclUnmatchedParenthesis(args[merged.unmatched]!);
    const existing = this.users.get(name);
    const temp = new AclUser(name, this.commands, this.pubsubAllChannels);
    if (existing !== undefined) temp.copyFrom(existing);
    for (const op of merged.merged) {
      try {
        temp.apply(op);
      } catch (err) {
        if (!(err instanceof AclRuleError)) throw err;
        return Errors.aclSetUserModifier(op, ruleErrorText(err.errno));
      }
    }
    if (existing !== undefined) this.killSubscribersIfNeeded(temp, existing);
    (existing ?? this.create(name)).copyFrom(temp);
    return null;
  }

  /** ACL DELUSER of one user: false when there is none; its clients are disconnected. */
  delete(name: string, current: ClientState): boolean {
    const user = this.users.get(name);
    if (user === undefined) return false;
    this.users.delete(name);
    this.disconnect(user, current);
    return true;
  }

  /** ACLFreeUserAndKillClients: the user's clients fall back to the default user, unauthenticated, and are closed. */
  private disconnect(user: AclUser, current?: ClientState): void {
    user.deleted = true;
    for (const client of [...this.instance.clients.values()]) {
      if (client.user !== user) continue;
      client.user = this.defaultUser;
      client.authenticated = false;
      if (client === current) client.closeAfterReply = true;
      else client.kill();
    }
  }

  /** ACLCheckUserCredentials. */
  credentialsValid(name: string, password: Buffer): boolean {
    return this.users.get(name)?.accepts(password) ?? false;
  }

  /** ACLAuthenticateUser: the client runs as the user from now on, or the failure is logged. */
  authenticate(client: ClientState, name: string, password: Buffer, command: string): boolean {
    if (this.credentialsValid(name, password)) {
      client.authenticated = true;
      client.user = this.users.get(name)!;
      return true;
    }
    // The object is the command as typed; the client line names it as Redis's table does.
    this.logDenial(client, 'auth', client.multi !== null ? 'multi' : 'toplevel', command, name, command.toLowerCase());
    return false;
  }

  /** The check dispatch runs for a restricted user: null when allowed. */
  check(user: AclUser, fullName: string, argv: Buffer[]): AclVerdict | null {
    const cmd = this.commands.byFullName(fullName);
    if (cmd === undefined) return null;
    const verdict = checkCommand(user, cmd, argv);
    return verdict.result === 0 ? null : verdict;
  }

  /** Logs a denial found by check() (addACLLogEntry with the object Redis names). */
  logVerdict(client: ClientState, user: AclUser, verdict: AclVerdict, context: AclContext, fullName: string, argv: Buffer[], current: string): void {
    const reason: AclDenial = verdict.result === ACL_DENIED_CMD ? 'command' : verdict.result === ACL_DENIED_KEY ? 'key' : 'channel';
    const object = verdict.result === ACL_DENIED_CMD ? fullName : latin1(argv[verdict.pos]!);
    this.logDenial(client, reason, context, object, user.name, current);
  }

  logDenial(client: ClientState, reason: AclDenial, context: AclContext, object: string, username: string, current: string): void {
    this.log.add(reason, context, object, username, clientInfoLine(client, Date.now(), current));
  }

  /** The NOPERM error of processCommand for a denial. */
  static noPermText(verdict: AclVerdict, fullName: string): string {
    if (verdict.result === ACL_DENIED_CMD) return Errors.noPermCommand(fullName);
    if (verdict.result === ACL_DENIED_KEY) return Errors.noPermKey;
    return Errors.noPermChannel;
  }

  /**
   * ACLKillPubsubClientsIfNeeded: when a user's channels shrink, its subscribed clients with a
   * subscription the new rules deny are disconnected.
   */
  private killSubscribersIfNeeded(updated: AclUser, original: AclUser): void {
    if (updated.selectors.some((s) => s.allChannels)) return;
    const upcoming = updated.selectors.flatMap((s) => s.channels);
    let superset = true;
    for (const s of original.selectors) {
      if (s.allChannels || s.channels.some((c) => !upcoming.includes(c))) {
        superset = false;
        break;
      }
    }
    if (superset) return;
    for (const client of [...this.instance.clients.values()]) {
      if (client.user !== original || !client.subscriptions.active) continue;
      const subs = client.subscriptions;
      const denied =
        [...subs.patterns].some((p) => !channelAllowed(upcoming, p, true)) ||
        [...subs.channels].some((c) => !channelAllowed(upcoming, c, false)) ||
        [...subs.shardChannels].some((c) => !channelAllowed(upcoming, c, false));
      if (denied) client.kill();
    }
  }
}

/** The instance's ACL users (made at the first use). */
export const aclOf = perInstance((instance) => new AclUsers(instance));
