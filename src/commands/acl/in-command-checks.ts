// The ACL checks made from inside commands: a script's redis.call checked as the caller's user
// (script.c's scriptVerifyACL, logged in the "lua" context), redis.acl_check_cmd's answer
// (luaRedisAclCheckCmdPermissionsCommand), and SORT's BY and GET, which need read access to
// every key (sort.c).
import type { Buffer } from 'node:buffer';
import type { RequestArgs } from '../../resp/request-args.js';
import { Errors } from '../../resp/errors.js';
import type { ClientState } from '../client-state.js';
import type { InstanceView } from '../types.js';
import { aclOf, latin1 } from './acl-users.js';
import { ACL_DENIED_CMD, ACL_DENIED_KEY, checkCommand, readsAnyKey } from './permission-check.js';
import type { AclUser } from './user.js';

/** getAclErrorMessage. */
function reasonText(result: number): string {
  if (result === ACL_DENIED_CMD) return "can't run this command or subcommand";
  if (result === ACL_DENIED_KEY) return "can't access at least one of the keys mentioned in the command arguments";
  return "can't publish to the channel mentioned in the command";
}

/**
 * The error redis.call gets for a command the caller's user may not run, or null. The request's
 * argv is built only for a restricted user (a script's calls are otherwise read in place).
 */
export function aclDenialInScript(instance: InstanceView, caller: ClientState, fullName: string, args: RequestArgs): string | null {
  const user = caller.user;
  if (user === null || user.unrestricted) return null;
  const argv = args.toArgv();
  const acl = aclOf(instance);
  const verdict = acl.check(user as AclUser, fullName, argv);
  if (verdict === null) return null;
  acl.logVerdict(caller, user as AclUser, verdict, 'lua', fullName, argv, caller.lastCommand);
  return Errors.scriptAcl(reasonText(verdict.result));
}

/** redis.acl_check_cmd: may the caller's user run argv; null when there is no such command. */
export function aclCheckForScript(instance: InstanceView, caller: ClientState, argv: Buffer[]): boolean | null {
  const acl = aclOf(instance);
  // lookupCommand: the container's subcommand when there is an argument after it.
  const base = acl.commands.lookup(latin1(argv[0]!).replaceAll('|', '\0'));
  if (base === undefined) return null;
  let cmd = base;
  if (base.subcommands.length > 0 && argv.length > 1) {
    const sub = acl.commands.lookup(`${base.fullName}|${latin1(argv[1]!)}`);
    if (sub === undefined) return null;
    cmd = sub;
  }
  const user = caller.user;
  if (user === null || user.unrestricted) return true;
  return checkCommand(user as AclUser, cmd, argv).result === 0;
}

/** For SORT's BY and GET: may the client's user read every key with this command (true without a user). */
export function clientReadsAnyKey(instance: InstanceView, client: ClientState, fullName: string, argv: Buffer[]): boolean {
  const user = client.user;
  if (user === null || user.unrestricted) return true;
  const cmd = aclOf(instance).commands.byFullName(fullName);
  return cmd === undefined || readsAnyKey(user as AclUser, cmd, argv);
}
