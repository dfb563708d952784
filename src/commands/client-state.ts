import type { Protocol } from '../resp/encoder.js';

/** A blocked client's registration; see Instance.block. */
export interface BlockedState {
  readonly db: number;
  readonly keys: string[];
  /** Ends the block with this reply (timeout, CLIENT UNBLOCK, disconnect). */
  finish(reply: import('../resp/reply.js').Reply | undefined): void;
  /** What the command replies on timeout (CLIENT UNBLOCK ... TIMEOUT replies it too). */
  readonly timeoutReply?: import('../resp/reply.js').Reply;
}

let nextClientId = 1;

/** Per-connection state, shared by the TCP server and the embedded client. */
export class ClientState {
  readonly id = nextClientId++;
  name = '';
  db = 0;
  resp: Protocol = 2;
  authenticated: boolean;
  /** Commands queued by MULTI, or null outside a transaction. */
  multi: Buffer[][] | null = null;
  /** Set when a command queued in MULTI was rejected: EXEC then fails with EXECABORT. */
  multiAborted = false;
  /** "db:key" of every WATCHed key. */
  readonly watched = new Set<string>();
  /** Set when a WATCHed key changed: EXEC then returns a null array. */
  dirtyCas = false;
  blocked: BlockedState | null = null;
  readonly createdAt = Date.now();
  lastInteraction = Date.now();
  lastCommand = 'NULL';
  /** Close the connection once the pending replies are written (QUIT, CLIENT KILL). */
  closeAfterReply = false;
  libName = '';
  libVersion = '';
  /** CLIENT NO-EVICT; sluice never evicts clients, the flag is only reported. */
  noEvict = false;

  constructor(
    readonly kind: 'tcp' | 'embedded' | 'aof',
    authenticated: boolean,
    readonly addr = '',
    readonly laddr = '',
    readonly fd = -1,
  ) {
    this.authenticated = authenticated;
  }

  /** Set by the transport: drops the connection (CLIENT KILL, SHUTDOWN). */
  kill: () => void = () => {
    this.closeAfterReply = true;
  };
}
