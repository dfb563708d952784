// The dashboard as a request handler in an application's own HTTP server (under a prefix), and
// the CLI's refusals: a non-loopback --bind without a token, a bad or unreachable --url.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { connect } from '../../src/client/connect.js';
import type { Connection } from '../../src/client/connection.js';
import { dashboardHandler, type DashboardHandler } from '../../src/index.js';
import { bindRefusal, isLoopback } from '../../src/dashboard/guard.js';
import { freePort, runCli } from '../cli/helpers.js';
import { seed } from './seed.js';

describe('dashboardHandler mounted under /ops in an app server', () => {
  let conn: Connection;
  let handler: DashboardHandler;
  let server: Server;
  let base: string;
  before(async () => {
    conn = await connect('embedded:');
    await seed(conn);
    handler = dashboardHandler(conn, { basePath: '/ops', sampleIntervalMs: 200 });
    // The app's own routes next to the dashboard's.
    server = createServer((req, res) => {
      if (req.url?.startsWith('/ops')) return handler(req, res);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('app');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    handler.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await conn.close();
  });

  test('serves the page, its assets and the API under the prefix', async () => {
    const bare = await fetch(`${base}/ops`, { redirect: 'manual' });
    assert.equal(bare.status, 308);
    assert.equal(bare.headers.get('location'), '/ops/');
    const page = await fetch(`${base}/ops/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.headers.get('content-security-policy')!, /default-src 'self'/);
    const html = await page.text();
    // Relative asset URLs: they resolve under whatever prefix the page is served from.
    assert.match(html, /src="assets\/app\.js"/);
    for (const asset of ['app.js', 'charts.js', 'jobs.js', 'style.css', 'uPlot.iife.min.js', 'uPlot.min.css']) {
      const res = await fetch(`${base}/ops/assets/${asset}`);
      assert.equal(res.status, 200, asset);
      assert.ok((await res.arrayBuffer()).byteLength > 100, asset);
    }
    assert.equal((await fetch(`${base}/ops/assets/../handler.js`)).status, 404);
    assert.equal((await fetch(`${base}/ops/assets/handler.js`)).status, 404);
    const streams = await fetch(`${base}/ops/api/streams`);
    assert.equal(streams.status, 200);
    assert.deepEqual(((await streams.json()) as Array<{ name: string }>).map((s) => s.name), ['emails', 'orders']);
    assert.equal(await (await fetch(`${base}/other`)).text(), 'app');
  });

  test('the same handler without a prefix answers 404 outside its routes', async () => {
    const bare = dashboardHandler(conn);
    const srv = createServer(bare);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    try {
      assert.equal((await fetch(`${url}/`)).status, 200);
      assert.equal((await fetch(`${url}/api/streams`)).status, 200);
      assert.equal((await fetch(`${url}/nope`)).status, 404);
    } finally {
      bare.close();
      srv.closeAllConnections();
      await new Promise((r) => srv.close(r));
    }
  });
});

describe('sluice dashboard refuses to start', () => {
  const oneLine = (stderr: string): string => {
    const lines = stderr.split('\n').filter((l) => l !== '');
    assert.equal(lines.length, 1, `one line, got ${JSON.stringify(stderr)}`);
    return lines[0]!;
  };

  test('on a non-loopback address without a token, saying why', async () => {
    for (const bind of ['0.0.0.0', '::', '192.0.2.7']) {
      const r = await runCli(['dashboard', '--bind', bind, '--port', '0', '--url', 'redis://127.0.0.1:1'], { SLUICE_DASHBOARD_TOKEN: '' });
      assert.equal(r.code, 1, bind);
      assert.equal(r.stdout, '');
      assert.match(oneLine(r.stderr), /^sluice: refusing to serve the dashboard on .* without --token: anyone who can reach it could read payloads and delete entries/);
    }
  });

  test('loopback is always allowed; other addresses with a token', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) {
      assert.equal(isLoopback(host), true, host);
      assert.equal(bindRefusal(host, undefined), null, host);
    }
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com']) {
      assert.equal(isLoopback(host), false, host);
      assert.notEqual(bindRefusal(host, undefined), null, host);
      assert.notEqual(bindRefusal(host, ''), null, host);
      assert.equal(bindRefusal(host, 'token'), null, host);
    }
  });

  test('when the backend cannot be reached or the URL is not one', async () => {
    const port = await freePort();
    const down = await runCli(['dashboard', '--port', '0', '--url', `redis://127.0.0.1:${port}`]);
    assert.equal(down.code, 1);
    assert.match(oneLine(down.stderr), /^sluice: cannot reach redis:\/\/127\.0\.0\.1:\d+: /);
    const bad = await runCli(['dashboard', '--port', '0', '--url', 'http://x']);
    assert.equal(bad.code, 1);
    assert.match(oneLine(bad.stderr), /^sluice: invalid --url 'http:\/\/x'/);
    const badPort = await runCli(['dashboard', '--port', 'x', '--url', 'embedded:']);
    assert.match(oneLine(badPort.stderr), /^sluice: invalid --port 'x'/);
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const inUse = await runCli(['dashboard', '--port', String((taken.address() as AddressInfo).port), '--url', 'embedded:']);
      assert.equal(inUse.code, 1);
      assert.match(oneLine(inUse.stderr), /^sluice: cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});
