// ACLSetUserStringError: the reason a rule was refused, by the errno ACLSetUser left.
import type { AclRuleErrno } from './selector.js';

/** ACLSetUserStringError. */
export function ruleErrorText(errno: AclRuleErrno | 'EALREADY'): string {
  switch (errno) {
    case 'ENOENT':
      return 'Unknown command or category name in ACL';
    case 'EINVAL':
      return 'Syntax error';
    case 'EEXIST':
      return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns";
    case 'EISDIR':
      return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels";
    case 'ENODEV':
      return 'The password you are trying to remove from the user does not exist';
    case 'EBADMSG':
      return 'The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters';
    case 'EALREADY':
      return 'Duplicate user found. A user can only be defined once in config files';
    case 'ECHILD':
      return 'Allowing first-arg of a subcommand is not supported';
  }
}
