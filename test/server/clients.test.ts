// Real clients end to end against an in-process server: ioredis, node-redis (which sends
// HELLO and CLIENT SETINFO on connect) and redis-cli.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { type RunningServer, startServer } from '../../src/server/server.js';
import { WAIT_LIMIT_MS, waitFor } from '../support/wait.js';

const exec = promisify(execFile);
let server: RunningServer;
before(async () => {
  server = await startServer({ port: 0 });
});
after(() => server.close());

test('ioredis: commands, pipeline, MULTI, blocking read beside other calls', async () => {
  const redis = new Redis({ port: server.port, host: '127.0.0.1', lazyConnect: true });
  await redis.connect();
  try {
    assert.equal(await redis.ping(), 'PONG');
    assert.equal(await redis.set('io:k', 'v'), 'OK');
    assert.equal(await redis.get('io:k'), 'v');
    const piped = await redis.pipeline().incr('io:n').incr('io:n').get('io:n').exec();
    assert.deepEqual(piped, [[null, 1], [null, 2], [null, '2']]);
    assert.deepEqual(await redis.multi().set('io:m', '1').get('io:m').exec(), [[null, 'OK'], [null, '1']]);
    await assert.rejects(redis.call('SELECT', '99'), { message: 'ERR DB index is out of range' });
    const blocking = redis.duplicate();
    const read = blocking.xread('BLOCK', 0, 'STREAMS', 'io:s', '$');
    // The blocked connection does not hold up this one.
    await waitFor(async () => /flags=b/.test(String(await redis.client('LIST'))), 'the XREAD to block', WAIT_LIMIT_MS, 0);
    const id = await redis.xadd('io:s', '*', 'f', 'v');
    assert.deepEqual(await read, [['io:s', [[id, ['f', 'v']]]]]);
    blocking.disconnect();
    const info = await redis.info('server');
    assert.match(info, /redis_version:7\.0\.15/);
  } finally {
    redis.disconnect();
  }
});

test('node-redis: RESP2 and RESP3 connections, CLIENT SETINFO accepted', async () => {
  const client = createClient({ socket: { port: server.port, host: '127.0.0.1' } });
  client.on('error', () => {});
  await client.connect();
  try {
    assert.equal(await client.ping(), 'PONG');
    await client.set('nr:k', 'v');
    assert.equal(await client.get('nr:k'), 'v');
    const [results] = [await client.multi().incr('nr:n').incr('nr:n').exec()];
    assert.deepEqual(results, [1, 2]);
    const info = await client.sendCommand(['CLIENT', 'INFO']);
    assert.match(String(info), /lib-name=node-redis/);
  } finally {
    await client.quit();
  }
  const resp3 = createClient({ socket: { port: server.port, host: '127.0.0.1' }, RESP: 3 });
  resp3.on('error', () => {});
  await resp3.connect();
  try {
    assert.equal(await resp3.get('nr:k'), 'v');
    assert.equal(await resp3.get('nr:missing'), null);
    const hello = (await resp3.sendCommand(['HELLO'])) as Record<string, unknown> | unknown[];
    assert.equal(Array.isArray(hello) ? hello[5] : hello['proto'], 3);
  } finally {
    await resp3.quit();
  }
});

test('redis-cli: plain commands, RESP3, errors, INFO', async () => {
  const cli = (...args: string[]) => exec('redis-cli', ['-p', String(server.port), ...args]);
  assert.equal((await cli('PING')).stdout, 'PONG\n');
  assert.equal((await cli('SET', 'cli:k', 'hello world')).stdout, 'OK\n');
  assert.equal((await cli('GET', 'cli:k')).stdout, 'hello world\n');
  assert.equal((await cli('-3', 'HELLO')).stdout.split('\n')[0], 'server redis');
  assert.equal((await cli('SELECT', '99')).stdout, 'ERR DB index is out of range\n\n');
  assert.match((await cli('INFO', 'keyspace')).stdout, /^# Keyspace\r?\ndb0:keys=\d+,expires=0,avg_ttl=0/);
  // A pipe of commands, as `redis-cli < file` sends them.
  const piped = await new Promise<string>((resolve, reject) => {
    const child = execFile('redis-cli', ['-p', String(server.port)], (err, stdout) => (err ? reject(err) : resolve(stdout)));
    child.stdin!.end('INCR cli:n\nINCR cli:n\nGET cli:n\n');
  });
  assert.equal(piped, '1\n2\n2\n');
});
