// Redis's protected mode: with `protected-mode yes` and no password for the default user, only
// loopback clients are served; anyone else gets this error at connect time and is dropped.
import type { Config } from '../commands/config.js';

/** The exact bytes redis-server 7.0.15 sends (networking.c, clientAcceptHandler). */
export const DENIED_REPLY =
  '-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. ' +
  'In this mode connections are only accepted from the loopback interface. ' +
  'If you want to connect from external computers to Redis you may adopt one of the following solutions: ' +
  "1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. " +
  "2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. " +
  "3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. " +
  '4) Setup a an authentication password for the default user. ' +
  'NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n';

/** Redis compares the peer's address with exactly these (127.0.0.2 is not loopback to it). */
export function isLoopback(ip: string | undefined): boolean {
  return ip === '127.0.0.1' || ip === '::1' || ip === '::ffff:127.0.0.1';
}

/**
 * True when a client from `remoteAddress` must be refused with DENIED_REPLY: protected mode on
 * and the default ACL user without a password (`nopass`, which requirepass or ACL SETUSER ends).
 */
export function deniedByProtectedMode(config: Config, defaultUserNopass: boolean, remoteAddress: string | undefined): boolean {
  return config.get('protected-mode') === 'yes' && defaultUserNopass && !isLoopback(remoteAddress);
}
