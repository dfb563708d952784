#!/usr/bin/env node
// `sluice` command line: each subcommand lives in its own module and registers itself here.
import { Command } from 'commander';
import { register as registerDemo } from './demo.js';
import { register as registerServer } from './server.js';
import { register as registerStats } from './stats.js';
import { register as registerDlq } from './dlq.js';
import { register as registerDashboard } from './dashboard.js';
import { register as registerPause } from './pause.js';
import { exitWithError } from './errors.js';

const program = new Command();
program.name('sluice').description('Reliable message streams: a Redis Streams engine and broker').version('0.1.0');
registerServer(program);
registerDemo(program);
registerStats(program);
registerDlq(program);
registerDashboard(program);
registerPause(program);

// Every failure is one line on stderr and exit 1 (the stack only with --debug).
program.parseAsync(process.argv).catch((err: unknown) => exitWithError(err));
