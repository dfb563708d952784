// Who may scrape `sluice server`'s metrics. They name every stream and group and count every
// command, so they are guarded as the RESP port is: with a password (the requirepass, or a token
// of their own) every scrape must carry it as `Authorization: Bearer <token>`, from any address;
// without one, protected mode answers only loopback peers, as it does RESP clients. The
// listener itself binds to loopback unless told otherwise (`--metrics-bind`).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerToken, tokenMatches } from './bearer-token.js';
import { isLoopback } from './protected-mode.js';

export interface MetricsAccess {
  /** The token a scrape must carry, '' for none; read per request (CONFIG SET requirepass applies). */
  token(): string;
  /** protected-mode yes: without a token, only loopback peers are answered. */
  protectedMode(): boolean;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** `handler`, answered only to the scrapes `access` allows (401 without the token, 403 off loopback). */
export function guardedMetricsHandler(handler: Handler, access: MetricsAccess): Handler {
  return (req, res) => {
    const token = access.token();
    if (token !== '') {
      const given = bearerToken(req);
      if (given === null || !tokenMatches(token, given)) {
        res
          .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="sluice metrics"' })
          .end('token required: send Authorization: Bearer <the requirepass or --metrics-token>\n');
        return;
      }
    } else if (access.protectedMode() && !isLoopback(req.socket.remoteAddress)) {
      res
        .writeHead(403, { 'content-type': 'text/plain' })
        .end('sluice is running in protected mode (no password set): metrics are only served to the loopback interface. Set --requirepass or --metrics-token, or --protected-mode no.\n');
      return;
    }
    handler(req, res);
  };
}
