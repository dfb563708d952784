// The counters INFO stats / commandstats / errorstats report (Redis's server.stat_*).

export interface CommandStats {
  calls: number;
  usec: number;
  rejectedCalls: number;
  failedCalls: number;
  /** Calls by duration (LATENCY HISTOGRAM, commands/latency.ts); null until the first call. */
  histogram: number[] | null;
}

export class Stats {
  commandsProcessed = 0;
  connectionsReceived = 0;
  rejectedConnections = 0;
  expiredKeys = 0;
  evictedKeys = 0;
  keyspaceHits = 0;
  keyspaceMisses = 0;
  totalErrorReplies = 0;
  netInputBytes = 0;
  netOutputBytes = 0;
  /** Full syncs served, PSYNCs continued from the backlog, and PSYNCs that could not be. */
  syncFull = 0;
  syncPartialOk = 0;
  syncPartialErr = 0;
  readonly perCommand = new Map<string, CommandStats>();
  readonly errorCodes = new Map<string, number>();

  forCommand(fullName: string): CommandStats {
    let s = this.perCommand.get(fullName);
    if (s === undefined) {
      s = { calls: 0, usec: 0, rejectedCalls: 0, failedCalls: 0, histogram: null };
      this.perCommand.set(fullName, s);
    }
    return s;
  }

  countError(message: string): void {
    this.totalErrorReplies++;
    const space = message.indexOf(' ');
    const code = space < 0 ? message : message.slice(0, space);
    this.errorCodes.set(code, (this.errorCodes.get(code) ?? 0) + 1);
  }

  /** CONFIG RESETSTAT. */
  reset(): void {
    this.commandsProcessed = 0;
    this.connectionsReceived = 0;
    this.rejectedConnections = 0;
    this.expiredKeys = 0;
    this.evictedKeys = 0;
    this.keyspaceHits = 0;
    this.keyspaceMisses = 0;
    this.totalErrorReplies = 0;
    this.netInputBytes = 0;
    this.netOutputBytes = 0;
    this.syncFull = 0;
    this.syncPartialOk = 0;
    this.syncPartialErr = 0;
    // Zeroed in place: dispatch keeps each command's counters (Resolved.stats).
    for (const s of this.perCommand.values()) {
      s.calls = 0;
      s.usec = 0;
      s.rejectedCalls = 0;
      s.failedCalls = 0;
      s.histogram = null;
    }
    this.errorCodes.clear();
  }
}
