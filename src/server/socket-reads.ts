// Reading a client socket into one buffer shared by all connections, instead of a new Buffer
// per read delivered through the Readable stream's 'data' event.
//
// Per read, Node's stream path allocates a 64 KiB backing store, shrinks it to the bytes read,
// wraps it in a Buffer and runs Readable.push and an event emit: for 16 pipelined requests that
// is a fifth of the CPU the connection spends outside the commands. Node's `onread` socket
// option reads into a caller's buffer and calls back directly, skipping all of it, and net.Socket
// honours it (pause/resume included) for any socket, but net.Server has no way to ask for it.
// So an accepted socket (created paused, `pauseOnConnect`) gets the same internal fields the
// `onread` option would have set. When they are not there (another Node version), the socket is
// read through 'data' events as before.
import { Buffer } from 'node:buffer';
import type { Socket } from 'node:net';

/** One read at most: the size Node's own reads use. */
const READ_SIZE = 64 * 1024;

/** Every connection reads into this buffer; the callback copies what it keeps before returning. */
const shared = Buffer.allocUnsafeSlow(READ_SIZE);

type OnBytes = (bytes: Buffer) => void;

interface UserBufferFields {
  buffer: symbol;
  callback: symbol;
  generator: symbol;
}

let fields: UserBufferFields | null | undefined;

/** The symbols net.Socket keeps the `onread` option under, or null when it has none. */
function userBufferFields(socket: Socket): UserBufferFields | null {
  if (fields !== undefined) return fields;
  const bySymbol = new Map(Object.getOwnPropertySymbols(socket).map((s) => [s.description, s]));
  const buffer = bySymbol.get('kBuffer');
  const callback = bySymbol.get('kBufferCb');
  const generator = bySymbol.get('kBufferGen');
  const handle = (socket as unknown as { _handle?: { useUserBuffer?: unknown } })._handle;
  fields =
    buffer !== undefined && callback !== undefined && generator !== undefined && typeof handle?.useUserBuffer === 'function'
      ? { buffer, callback, generator }
      : null;
  return fields;
}

/**
 * Starts reading a socket accepted with `pauseOnConnect`. `onBytes` gets each read's bytes; with
 * the shared buffer they are only valid until it returns. Returns true when the shared buffer is
 * used, false when the socket fell back to 'data' events (whose Buffers the callee may keep).
 */
export function startReading(socket: Socket, onBytes: OnBytes): boolean {
  const f = userBufferFields(socket);
  const handle = (socket as unknown as { _handle?: { useUserBuffer(buf: Uint8Array): void } })._handle;
  if (f === null || handle === undefined) {
    socket.on('data', onBytes);
    socket.resume();
    return false;
  }
  const target = socket as unknown as Record<symbol, unknown>;
  target[f.buffer] = shared;
  target[f.generator] = null;
  target[f.callback] = (nread: number) => {
    onBytes(shared.subarray(0, nread));
  };
  handle.useUserBuffer(shared);
  socket.resume();
  return true;
}
