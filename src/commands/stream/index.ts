// The stream commands, in the order COMMAND lists them. One file per concern:
// common.ts (lookups, errors, replies), read-args.ts (XREAD/XREADGROUP syntax),
// propagation.ts (the deterministic forms group commands log), add-trim.ts, range-read.ts,
// groups.ts, read-group.ts, claim.ts, info.ts and redis8.ts (Redis 8.2-8.8 commands).
import type { CommandSpec } from '../types.js';
import { xaddSpec, xdelSpec, xsetidSpec, xtrimSpec } from './add-trim.js';
import { xautoclaimSpec, xclaimSpec, xpendingSpec } from './claim.js';
import { xackSpec, xgroupSpec } from './groups.js';
import { commands as info } from './info.js';
import { xlenSpec, xrangeSpec, xreadSpec, xrevrangeSpec } from './range-read.js';
import { xreadgroupSpec } from './read-group.js';
import { commands as redis8 } from './redis8.js';

export const commands: CommandSpec[] = [
  xaddSpec,
  xrangeSpec,
  xrevrangeSpec,
  xlenSpec,
  xdelSpec,
  xtrimSpec,
  xreadSpec,
  xsetidSpec,
  xgroupSpec,
  xreadgroupSpec,
  xackSpec,
  xpendingSpec,
  xclaimSpec,
  xautoclaimSpec,
  ...info,
  ...redis8,
];
