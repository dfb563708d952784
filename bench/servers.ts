// Starting the two servers every benchmark compares: `sluice server` and Debian's redis-server,
// each as a child process on a free loopback port, without persistence unless asked.
import { type ChildProcess, spawn } from 'node:child_process';
import * as net from 'node:net';
import { fileURLToPath } from 'node:url';

export interface StartedServer {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts connections on the port. */
export async function waitForPort(port: number, attempts = 400): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nothing listens on port ${port}`);
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
}

/** Starts `sluice server --port 0 [extra...]` and resolves once it prints "ready on". */
export function startSluice(extra: string[] = []): Promise<StartedServer> {
  const main = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  const child = spawn(process.execPath, [main, 'server', '--port', '0', ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`sluice server exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /ready on [^\s:]+:(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]), stop: stopper(child) });
    });
  });
}

/** Starts redis-server on a free port; `extra` are more config flags (e.g. --appendonly yes). */
export async function startRedis(extra: string[] = []): Promise<StartedServer> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no', ...extra], {
    stdio: 'ignore',
  });
  await waitForPort(port);
  return { child, port, stop: stopper(child) };
}
