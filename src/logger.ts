// The logger sluice writes its notices to. The library is silent unless one is passed; the
// shape is what console and pino both provide, so either can be handed over as is.

/** One level: a message and optional details (an Error, say). */
export type LogMethod = (msg: string, ...args: unknown[]) => void;

/** The console / pino compatible logger sluice accepts (`logger` on open, connect, serve, Producer, Worker). */
export interface Logger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

const ignore: LogMethod = () => {};

/** The library's default: says nothing. */
export const silentLogger: Logger = Object.freeze({ debug: ignore, info: ignore, warn: ignore, error: ignore });
