// Client sockets read into one shared buffer (server/socket-reads.ts): on this Node the fast path
// must be taken (if Node renames its internals the test says so, and reads fall back to 'data').
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { startReading } from '../../src/server/socket-reads.js';
import { waitFor, within } from '../support/wait.js';

test('an accepted socket is read through the shared buffer, with pause and resume', async () => {
  const received: string[] = [];
  let shared: boolean | undefined;
  let serverSide: net.Socket | undefined;
  const server = net.createServer({ pauseOnConnect: true }, (socket) => {
    serverSide = socket;
    shared = startReading(socket, (bytes) => received.push(bytes.toString()));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  const client = net.connect(port, '127.0.0.1');
  await once(client, 'connect');
  client.write('first');
  await waitFor(() => received.join('') === 'first', "'first' read", 5000, 5);
  assert.equal(shared, true, 'the shared-buffer read path is available on this Node');

  serverSide!.pause();
  client.write('second');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(received.join(''), 'first', 'a paused socket reads nothing');
  serverSide!.resume();
  await waitFor(() => received.join('') === 'firstsecond', "'second' read after resume", 5000, 5);

  const ended = once(serverSide!, 'end');
  client.end();
  await within(ended, "the peer's FIN as 'end'", 5000); // it still arrives as 'end'
  server.close();
});
