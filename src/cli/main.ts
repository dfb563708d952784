#!/usr/bin/env node
// `sluice` command line: each subcommand lives in its own module and registers itself here.
import { Command } from 'commander';
import { register as registerDemo } from './demo.js';
import { register as registerServer } from './server.js';

const program = new Command();
program.name('sluice').description('Reliable message streams: a Redis Streams engine and broker').version('0.1.0');
registerServer(program);
registerDemo(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  const debug = process.argv.includes('--debug');
  console.error(`sluice: ${debug ? (err as Error).stack : (err as Error).message ?? String(err)}`);
  process.exit(1);
});
