// Every command family, one file each. The table is shared by the server and the embedded client.
import { commands as acl } from './acl.js';
import { commands as bitfield } from './bitfield.js';
import { commands as bitmaps } from './bitmaps.js';
import { commands as cluster } from './cluster.js';
import { commands as connection } from './connection-commands.js';
import { commands as copyMove } from './copy-move.js';
import { commands as debug } from './debug.js';
import { commands as geo } from './geo.js';
import { commands as dumpRestore } from './dump-restore.js';
import { commands as migrate } from './migrate.js';
import { commands as hashes } from './hashes.js';
import { commands as keys } from './keys.js';
import { commands as lcs } from './lcs.js';
import { commands as lists } from './lists.js';
import { commands as hyperloglog } from './hyperloglog.js';
import { commands as introspection } from './introspection.js';
import { commands as monitor } from './monitor.js';
import { commands as persistence } from './persistence.js';
import { commands as pubsub } from './pubsub.js';
import { commands as replication } from './replication.js';
import { commands as scripting } from './scripting.js';
import { commands as server } from './server.js';
import { commands as sets } from './sets.js';
import { commands as slowlog } from './slowlog.js';
import { commands as latency } from './latency.js';
import { commands as sort } from './sort.js';
import { commands as sortedSets } from './sorted-sets.js';
import { commands as streams } from './stream/index.js';
import { commands as strings } from './strings.js';
import { commands as transactions } from './transactions.js';
import type { CommandSpec } from './types.js';

export const allCommands: CommandSpec[] = [
  ...connection,
  ...acl,
  ...server,
  ...slowlog,
  ...latency,
  ...debug,
  ...transactions,
  ...keys,
  ...copyMove,
  ...dumpRestore,
  ...migrate,
  ...strings,
  ...lcs,
  ...bitmaps,
  ...bitfield,
  ...hyperloglog,
  ...lists,
  ...hashes,
  ...sets,
  ...sortedSets,
  ...geo,
  ...sort,
  ...streams,
  ...persistence,
  ...replication,
  ...scripting,
  ...pubsub,
  ...monitor,
  ...introspection,
  ...cluster,
];
