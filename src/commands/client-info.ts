// A client as CLIENT LIST, CLIENT INFO and ACL LOG's client-info describe it (Redis's
// catClientInfoString).
import type { ClientState } from './client-state.js';

/** CLIENT LIST's flags, in the order Redis's catClientInfoString writes them. */
function clientFlags(client: ClientState): string {
  let flags = '';
  if (client.isReplica) flags += 'S';
  if (client.kind === 'primary') flags += 'M';
  if (client.monitor) flags += 'O';
  if (client.subscriptions.active) flags += 'P';
  if (client.multi !== null) flags += 'x';
  if (client.blocked !== null) flags += 'b';
  if (client.tracking !== null) flags += 't';
  if (client.tracking?.brokenRedirect === true) flags += 'R';
  if (client.tracking?.bcast === true) flags += 'B';
  if (client.dirtyCas) flags += 'd';
  if (client.closeAfterReply) flags += 'c';
  if (client.noEvict) flags += 'e';
  return flags === '' ? 'N' : flags;
}

/** One CLIENT LIST line. `current` is the command the caller is running (Redis shows it). */
export function clientInfoLine(client: ClientState, now: number, current?: string): string {
  // lastInteraction comes from the monotonic clock, which may run a hair ahead of Date.now().
  const age = Math.max(0, Math.floor((now - client.createdAt) / 1000));
  const idle = Math.max(0, Math.floor((now - client.lastInteraction) / 1000));
  const cmd = current ?? client.lastCommand;
  const subs = client.subscriptions;
  const buffers = client.buffers?.();
  const qbuf = buffers?.queryBuffered ?? 0;
  const qbufFree = buffers?.queryFree ?? 0;
  const omem = buffers?.outputUnsent ?? 0;
  return (
    `id=${client.id} addr=${client.addr} laddr=${client.laddr} fd=${client.fd} name=${client.name} ` +
    `age=${age} idle=${idle} flags=${clientFlags(client)} db=${client.db} ` +
    `sub=${subs.channels.size} psub=${subs.patterns.size} ssub=${subs.shardChannels.size} ` +
    `multi=${client.multi === null ? -1 : client.multi.length} qbuf=${qbuf} qbuf-free=${qbufFree} argv-mem=0 ` +
    `multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=${omem} tot-mem=${qbuf + qbufFree + omem} events=r cmd=${cmd} user=${client.user?.name ?? '(superuser)'} ` +
    `redir=${client.tracking?.redirect ?? -1} resp=${client.resp} lib-name=${client.libName} lib-ver=${client.libVersion}`
  );
}

