// CLIENT REPLY ON|OFF|SKIP: a client may silence its replies. As in Redis, Pub/Sub
// confirmations and messages (pushes) still reach it; everything else, MONITOR lines included,
// is dropped while replies are off, or for the one command after SKIP. The transport applies it
// (SocketConnection), since only it knows what is written.
import { OK, PushReply, Replies, type Reply, fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { lower } from './args.js';
import type { ClientState } from './client-state.js';
import type { Context } from './types.js';

export function clientReply(ctx: Context, argv: Buffer[]): Reply {
  const { client } = ctx;
  const mode = lower(argv[2]!);
  if (mode === 'on') {
    client.replyOff = false;
    client.replySkip = 'none';
    return OK;
  }
  if (mode === 'off') {
    client.replyOff = true;
    return new Replies([]);
  }
  if (mode === 'skip') {
    if (!client.replyOff) client.replySkip = 'next';
    return new Replies([]);
  }
  return fail(Errors.syntax);
}

/** What of a reply is sent to a client whose replies may be silenced (undefined: nothing). */
export function audibleReply(client: ClientState, reply: Reply): Reply | undefined {
  if (!client.replyOff && client.replySkip !== 'current') return reply;
  if (reply instanceof PushReply) return reply;
  if (reply instanceof Replies) {
    const pushes = reply.items.filter((r) => r instanceof PushReply);
    return pushes.length > 0 ? new Replies(pushes) : undefined;
  }
  return undefined;
}

/** After each command: SKIP silences exactly the command that follows it. */
export function commandDone(client: ClientState): void {
  if (client.replySkip === 'current') client.replySkip = 'none';
  else if (client.replySkip === 'next') client.replySkip = 'current';
}
