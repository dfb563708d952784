// LATENCY against redis-server: what a fresh server (threshold 0, no samples) answers, HELP,
// DOCTOR's report with the monitor off, histograms of commands never called, and the errors.
// Samples themselves depend on timing: unit/latency-monitor of Redis's suite covers them.
import type { DiffCase } from './case-types.js';

export const cases: DiffCase[] = [
  {
    name: 'LATENCY on a server without samples: LATEST, HISTORY, RESET, GRAPH, DOCTOR, HELP, errors',
    steps: [
      ['CONFIG', 'SET', 'latency-monitor-threshold', '0'],
      ['LATENCY', 'RESET'],
      ['LATENCY', 'LATEST'],
      ['LATENCY', 'HISTORY', 'command'],
      ['LATENCY', 'RESET', 'command', 'nosuch'],
      ['LATENCY', 'GRAPH', 'command'],
      ['LATENCY', 'DOCTOR'],
      ['LATENCY', 'HELP'],
      ['LATENCY', 'HELP', 'x'],
      ['LATENCY', 'LATEST', 'x'],
      ['LATENCY', 'HISTORY'],
      ['LATENCY', 'NOSUCH'],
      ['LATENCY'],
      ['LATENCY', 'HISTOGRAM', 'nosuchcommand', 'lpushx', 'client|nosuch'],
      ['CONFIG', 'GET', 'latency-monitor-threshold'],
    ],
  },
];
