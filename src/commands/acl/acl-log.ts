// ACL LOG's entries, as Redis 7.0's ACLLog (acl.c addACLLogEntry): the newest first, a denial
// like one of the last ten (same reason, context, object and user, within 60 s) bumps that
// entry's count instead of adding one, and the list keeps acllog-max-len entries.
import { Buffer } from 'node:buffer';
import { DoubleReply, MapReply, type Reply } from '../../resp/reply.js';

export type AclDenial = 'command' | 'key' | 'channel' | 'auth';
export type AclContext = 'toplevel' | 'multi' | 'lua' | 'module';

interface Entry {
  count: number;
  readonly reason: AclDenial;
  readonly context: AclContext;
  readonly object: string;
  readonly username: string;
  ctime: number;
  cinfo: string;
}

/** ACL_LOG_GROUPING_MAX_TIME_DELTA. */
const GROUPING_MS = 60000;

export class AclLog {
  private entries: Entry[] = [];

  constructor(private readonly maxLength: () => number) {}

  /** addACLLogEntry; `object` and `username` as latin1 text, `clientInfo` the client's line. */
  add(reason: AclDenial, context: AclContext, object: string, username: string, clientInfo: string): void {
    const now = Date.now();
    const scan = Math.min(10, this.entries.length);
    for (let i = 0; i < scan; i++) {
      const e = this.entries[i]!;
      if (e.reason === reason && e.context === context && Math.abs(e.ctime - now) <= GROUPING_MS && e.object === object && e.username === username) {
        this.entries.splice(i, 1);
        this.entries.unshift(e);
        e.cinfo = clientInfo;
        e.ctime = now;
        e.count++;
        return;
      }
    }
    this.entries.unshift({ count: 1, reason, context, object, username, ctime: now, cinfo: clientInfo });
    const max = this.maxLength();
    if (this.entries.length > max) this.entries.length = max;
  }

  reset(): void {
    this.entries = [];
  }

  /** ACL LOG [count]: the newest `count` entries, each a map of Redis 7.0's seven fields. */
  reply(count: number): Reply {
    const now = Date.now();
    const bytes = (s: string) => Buffer.from(s, 'latin1');
    return this.entries.slice(0, Math.max(0, count)).map(
      (e) =>
        new MapReply([
          ['count', e.count],
          ['reason', e.reason],
          ['context', e.context],
          ['object', bytes(e.object)],
          ['username', bytes(e.username)],
          ['age-seconds', new DoubleReply((now - e.ctime) / 1000)],
          ['client-info', bytes(e.cinfo)],
        ]),
    );
  }
}
