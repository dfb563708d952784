// Users from files, as Redis 7.0 loads them (acl.c): `user` lines of the config file
// (ACLAppendUserForLoading's check at parse time, ACLLoadConfiguredUsers at start), and the
// aclfile (ACLLoadFromFile: every line checked, nothing changed when one is wrong; ACL SAVE
// writes ACL LIST's lines). The file's bytes come and go through an AclFileControl, which the
// server installs (AclFileControl, in acl-users.ts).
import type { ClientState } from '../client-state.js';
import { type AclUsers, mergeSelectorArgs } from './acl-users.js';
import { type AclCommandSet } from './acl-commands.js';
import { AclRuleError, hasSpaces } from './selector.js';
import { AclUser } from './user.js';
import { ruleErrorText } from './rule-errors.js';

/**
 * ACLAppendUserForLoading's check of a config file's `user name rules...` line (`args` after
 * "user"): the rules as they will be applied, or the error Redis's config loader reports.
 * Unknown commands are let through (reported when applied at start).
 */
export function checkUserDeclaration(commands: AclCommandSet, args: string[], seen: ReadonlySet<string>): { rules: string[] } | { error: string } {
  const line = ['user', ...args];
  const declaration = (index: number, reason: string) => ({ error: `Error in user declaration '${line[index] ?? ''}': ${reason}` });
  if (seen.has(args[0]!)) return declaration(1, ruleErrorText('EALREADY'));
  const merged = mergeSelectorArgs(args.slice(1));
  if ('unmatched' in merged) return declaration(merged.unmatched, 'Syntax error');
  const fake = new AclUser('__fake__', commands, () => false);
  for (let j = 0; j < merged.merged.length; j++) {
    try {
      fake.apply(merged.merged[j]!);
    } catch (err) {
      if (!(err instanceof AclRuleError)) throw err;
      // Redis names argv[j], an index into the merged rules used on the whole line.
      if (err.errno !== 'ENOENT') return declaration(j, ruleErrorText(err.errno));
    }
  }
  return { rules: merged.merged };
}

/** ACLLoadConfiguredUsers: the config file's users, at start. Returns the error to log, or null. */
export function loadConfiguredUsers(acl: AclUsers, users: readonly string[][]): string | null {
  for (const [name, ...rules] of users) {
    if (hasSpaces(name!)) return 'Spaces not allowed in ACL usernames';
    const user = acl.get(name!) ?? acl.add(name!);
    if (name === 'default') user.apply('reset');
    for (const rule of rules) {
      try {
        user.apply(rule);
      } catch (err) {
        if (!(err instanceof AclRuleError)) throw err;
        return `Error loading ACL rule '${rule}' for the user named '${name}': ${ruleErrorText(err.errno)}`;
      }
    }
  }
  return null;
}

/** Splits like sdssplitlen on single spaces (empty parts kept, as Redis's ACL file loader). */
function splitSpaces(line: string): string[] {
  return line.split(' ');
}

/** ACLLoadFromFile over the file's text: null when loaded, else the errors (nothing changed). */
export function loadAclFile(acl: AclUsers, text: string, filename: string, current?: ClientState): string | null {
  let errors = '';
  const users = new Map<string, AclUser>();
  text.split('\n').forEach((raw, i) => {
    const linenum = i + 1;
    const line = raw.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
    if (line === '') return;
    const argv = splitSpaces(line);
    if (argv[0] !== 'user' || argv.length < 2) {
      errors += `${filename}:${linenum} should start with user keyword followed by the username. `;
      return;
    }
    const name = argv[1]!;
    if (hasSpaces(name)) {
      errors += `'${filename}:${linenum}: username '${name}' contains invalid characters. `;
      return;
    }
    if (users.has(name)) {
      errors += `WARNING: Duplicate user '${name}' found on line ${linenum}. `;
      return;
    }
    const user = acl.unlinked(name);
    users.set(name, user);
    const merged = mergeSelectorArgs(argv.slice(2));
    if ('unmatched' in merged) {
      errors += `${filename}:${linenum}: Unmatched parenthesis in selector definition.`;
      return;
    }
    let syntaxError = false;
    for (const arg of merged.merged) {
      const rule = arg.replace(/^[\t\r\n]+|[\t\r\n]+$/g, '');
      try {
        user.apply(rule);
      } catch (err) {
        if (!(err instanceof AclRuleError)) throw err;
        if (err.errno === 'ENOENT') errors += `${filename}:${linenum}: Error in applying operation '${rule}': ${ruleErrorText(err.errno)}. `;
        else if (!syntaxError) {
          errors += `${filename}:${linenum}: ${ruleErrorText(err.errno)}. `;
          syntaxError = true;
        }
      }
    }
  });
  if (errors !== '') return `${errors}WARNING: ACL errors detected, no change to the previously active ACL rules was performed`;
  acl.replaceAll(users, current);
  return null;
}

/** ACLSaveToFile's text: ACL LIST's lines. */
export function aclFileText(acl: AclUsers): string {
  return acl.all().map((u) => `user ${u.name} ${u.describe()}\n`).join('');
}

/** ACL users could not be loaded at start: the server refuses to start (Redis exits). */
export class AclStartupError extends Error {
  override name = 'AclStartupError';
}

/**
 * ACLLoadUsersAtStartup: the config file's users, then the aclfile's (never both). Throws
 * AclStartupError with the lines Redis logs before exiting.
 */
export function loadUsersAtStartup(acl: AclUsers, users: readonly string[][], aclfile: string): void {
  if (aclfile !== '' && users.length > 0) {
    throw new AclStartupError(
      'Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. ' +
        'This setup is very likely to lead to configuration errors and security holes, please define either an ACL file ' +
        'or declare users directly in your redis.conf, but not both.',
    );
  }
  const error = loadConfiguredUsers(acl, users);
  if (error !== null) throw new AclStartupError(`${error}\nCritical error while loading ACLs. Exiting.`);
  if (aclfile === '' || acl.file === null) return;
  let text: string;
  try {
    text = acl.file.read();
  } catch (err) {
    throw new AclStartupError(`Aborting Redis startup because of ACL errors: Error loading ACLs, opening file '${aclfile}': ${(err as Error).message}`);
  }
  const errors = loadAclFile(acl, text, aclfile);
  if (errors !== null) throw new AclStartupError(`Aborting Redis startup because of ACL errors: ${errors}`);
}
