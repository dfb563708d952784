import type { CommandSpec } from './types.js';

export const commands: CommandSpec[] = [];
