// The process title `ps` shows: a server started with `--requirepass <password>` (or another
// secret flag) would show it to every user of the machine in /proc/PID/cmdline. As Redis does
// (redisSetProcTitle), the title replaces the arguments: Node's process.title writes over the
// whole argv area, the rest zeroed.

/** Hides the command line at once: the title is just the command until the address is known. */
export function hideCommandLine(command: string): void {
  process.title = command;
}

/** The title once listening, as Redis's "{title} {listen-addr}": `sluice server 127.0.0.1:6379`. */
export function showListening(command: string, host: string, port: number): void {
  process.title = `${command} ${host.includes(':') ? `[${host}]` : host}:${port}`;
}
