// A `sluice server` started in this test process for a file's tests (before / after hooks), with
// RespClient connections it closes at the end.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { type RunningServer, startServer } from '../../src/server/server.js';
import { RespClient } from './resp-client.js';

export interface InProcessServer {
  /** The server's port (once the before hook ran). */
  readonly port: number;
  /** A new client, in RESP3 after HELLO 3 when asked; closed after the file's tests. */
  connect(resp?: 2 | 3): Promise<RespClient>;
}

export function useInProcessServer(): InProcessServer {
  let server: RunningServer;
  const clients: RespClient[] = [];
  before(async () => {
    server = await startServer({ port: 0, bind: '127.0.0.1' });
  });
  after(async () => {
    for (const c of clients) c.close();
    await server.close();
  });
  return {
    get port() {
      return server.port;
    },
    async connect(resp: 2 | 3 = 2): Promise<RespClient> {
      const c = await RespClient.connect(server.port);
      clients.push(c);
      if (resp === 3) assert.equal((await c.call('HELLO', '3')).t, 'map');
      return c;
    },
  };
}
