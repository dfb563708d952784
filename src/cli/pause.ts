// `sluice pause|resume STREAM --group G`: group-wide, across processes. Workers of the group
// check the flag every pauseCheckMs (500 ms by default): paused, they finish what they hold and
// take nothing new; resumed, they read again.
import type { Command } from 'commander';
import { pauseGroup, resumeGroup } from '../broker/pause.js';
import { DEFAULT_URL } from './errors.js';
import { connectOrFail } from './operator-connection.js';

interface PauseFlags {
  group: string;
  url: string;
  partitions?: string;
}

export function register(program: Command): void {
  for (const [name, action, verb] of [
    ['pause', pauseGroup, 'paused'],
    ['resume', resumeGroup, 'resumed'],
  ] as const) {
    program
      .command(`${name} <stream>`)
      .description(name === 'pause' ? "Pause a consumer group: its workers finish what they hold and take nothing new" : 'Resume a paused consumer group')
      .requiredOption('--group <group>', 'consumer group')
      .option('--url <url>', 'server to use', process.env['SLUICE_URL'] ?? DEFAULT_URL)
      .option('--partitions <n>', 'the stream is partitioned over N streams (as Producer/Worker partitions)')
      .option('--debug', 'print stack traces of errors')
      .action(async (stream: string, flags: PauseFlags) => {
        const partitions = flags.partitions === undefined ? undefined : Number(flags.partitions);
        if (partitions !== undefined && !(Number.isInteger(partitions) && partitions >= 1)) throw new Error('--partitions must be a positive integer');
        const conn = await connectOrFail(flags.url);
        try {
          await action(conn, stream, flags.group, partitions === undefined ? {} : { partitions });
        } finally {
          await conn.close();
        }
        console.log(`${verb} group ${flags.group} on ${stream}`);
      });
  }
}
