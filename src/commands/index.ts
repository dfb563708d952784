// Every command family, one file each. The table is shared by the server and the embedded client.
import { commands as connection } from './connection.js';
import { commands as hashes } from './hashes.js';
import { commands as keys } from './keys.js';
import { commands as lists } from './lists.js';
import { commands as persistence } from './persistence.js';
import { commands as scripting } from './scripting.js';
import { commands as server } from './server.js';
import { commands as sets } from './sets.js';
import { commands as streamBasic } from './stream-basic.js';
import { commands as streamGroups } from './stream-groups.js';
import { commands as streamInfo } from './stream-info.js';
import { commands as streamRedis8 } from './stream-redis8.js';
import { commands as strings } from './strings.js';
import { commands as transactions } from './transactions.js';
import type { CommandSpec } from './types.js';

export const allCommands: CommandSpec[] = [
  ...connection,
  ...server,
  ...transactions,
  ...keys,
  ...strings,
  ...lists,
  ...hashes,
  ...sets,
  ...streamBasic,
  ...streamGroups,
  ...streamInfo,
  ...streamRedis8,
  ...persistence,
  ...scripting,
];
