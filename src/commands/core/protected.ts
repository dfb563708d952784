// Redis 7's protected commands: DEBUG runs only when `enable-debug-command` allows it (yes, or
// local for loopback and in-process clients). MODULE is the other protected command in Redis;
// sluice has no modules.
import type { ClientState } from '../client-state.js';
import type { Instance } from './instance.js';

const LOOPBACK = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

/** As Redis's islocalClient: a unix socket or a loopback peer; in-process clients are local too. */
function isLocal(client: ClientState): boolean {
  if (client.kind !== 'tcp') return true;
  const ip = client.addr.startsWith('[') ? client.addr.slice(1, client.addr.indexOf(']')) : client.addr.slice(0, client.addr.lastIndexOf(':'));
  return LOOPBACK.includes(ip);
}

/** Redis's refusal text when the command is protected and not allowed for this client, else null. */
export function protectedRefusal(instance: Instance, client: ClientState, fullName: string): string | null {
  if (fullName !== 'debug' || client.kind === 'aof') return null;
  const setting = instance.config.get('enable-debug-command');
  if (setting === 'yes' || (setting === 'local' && isLocal(client))) return null;
  return (
    'ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a ' +
    'local connection, otherwise you need to set this option in the configuration file, and then restart the server.'
  );
}
