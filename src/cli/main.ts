#!/usr/bin/env node
// `sluice` command line: each subcommand lives in its own module and registers itself here.
// Only the module of the subcommand being run is loaded (`sluice server` would otherwise carry
// the broker, dashboard and client modules in memory: ~25 MB of RSS); help and unknown
// subcommands load them all.
import { Command } from 'commander';
import { exitWithError } from './errors.js';

/** Subcommand name → the module that registers it, in the order help lists them. */
const MODULES: Record<string, string> = {
  server: './server.js',
  demo: './demo.js',
  stats: './stats.js',
  dlq: './dlq.js',
  dashboard: './dashboard.js',
  pause: './pause.js',
  resume: './pause.js',
  jobs: './jobs.js',
};

async function main(): Promise<void> {
  const program = new Command();
  program.name('sluice').description('Reliable message streams: a Redis Streams engine and broker').version('0.1.0');
  const wanted = MODULES[process.argv[2] ?? ''];
  const modules = wanted !== undefined ? [wanted] : [...new Set(Object.values(MODULES))];
  for (const m of modules) ((await import(m)) as { register(p: Command): void }).register(program);
  await program.parseAsync(process.argv);
}

// Every failure is one line on stderr and exit 1 (the stack only with --debug).
main().catch((err: unknown) => exitWithError(err));
