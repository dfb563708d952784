// Redis 7's protected actions: DEBUG runs for a network client only when `enable-debug-command`
// allows it, and the protected configs (dir, dbfilename: with SAVE they write a file anywhere)
// are set by CONFIG SET only when `enable-protected-configs` allows it; yes, or local for
// loopback clients. In-process callers (the embedded client, AOF replay) already hold the whole
// instance, so the settings do not apply to them. MODULE is the other protected command in
// Redis; sluice has no modules.
import type { ClientState } from '../client-state.js';
import type { InstanceView } from '../types.js';
import { Errors } from '../../resp/errors.js';

const LOOPBACK = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

/** As Redis's islocalClient: a loopback peer (sluice listens on no unix socket). */
function isLocal(client: ClientState): boolean {
  const ip = client.addr.startsWith('[') ? client.addr.slice(1, client.addr.indexOf(']')) : client.addr.slice(0, client.addr.lastIndexOf(':'));
  return LOOPBACK.includes(ip);
}

/** As Redis's allowProtectedAction: `setting` (enable-debug-command, ...) allows `client` the action. */
export function allowProtectedAction(setting: string, client: ClientState): boolean {
  return client.kind !== 'tcp' || setting === 'yes' || (setting === 'local' && isLocal(client));
}

/** Redis's refusal text when the command is protected and not allowed for this client, else null. */
export function protectedRefusal(instance: InstanceView, client: ClientState, fullName: string): string | null {
  if (fullName !== 'debug' || allowProtectedAction(instance.config.get('enable-debug-command'), client)) return null;
  return Errors.debugNotAllowed;
}
