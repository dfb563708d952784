// A script's reply: the RESP bytes the Lua glue wrote for the caller's protocol, sent as they
// are. Converting them to a Reply tree first would recurse once per nesting level, and a
// script may return a table nested a thousand deep. toReply() parses them for the embedded
// engine, with an explicit stack instead of recursion.
import { Buffer } from 'node:buffer';
import {
  BooleanReply, DirectReply, DoubleReply, ErrorReply, MapReply, NULL_ARRAY, type Reply, type ReplyWriter, SetReply,
  SimpleString, VerbatimReply,
} from '../../resp/reply.js';

export class ScriptReply extends DirectReply {
  constructor(readonly bytes: Buffer) {
    super();
  }

  writeTo(w: ReplyWriter): void {
    w.raw(this.bytes);
  }

  toReply(): Reply {
    return parseResp(this.bytes);
  }
}

interface Open {
  kind: '*' | '%' | '~';
  left: number;
  items: Reply[];
}

/** The first reply in `bytes` as a Reply tree (the RESP2/RESP3 types the glue writes). */
export function parseResp(bytes: Buffer): Reply {
  const stack: Open[] = [];
  let at = 0;
  let result: Reply = null;
  const line = (): string => {
    const end = bytes.indexOf('\r\n', at, 'latin1');
    const text = bytes.toString('latin1', at + 1, end);
    at = end + 2;
    return text;
  };
  for (;;) {
    const type = String.fromCharCode(bytes[at]!);
    let value: Reply | undefined;
    if (type === '*' || type === '%' || type === '~') {
      const n = Number(line());
      if (n < 0) value = NULL_ARRAY;
      else if (n === 0) value = type === '%' ? new MapReply([]) : type === '~' ? new SetReply([]) : [];
      else stack.push({ kind: type, left: type === '%' ? 2 * n : n, items: [] });
    } else if (type === '$' || type === '=') {
      const n = Number(line());
      if (n < 0) {
        value = null;
      } else {
        const body = bytes.subarray(at, at + n);
        at += n + 2;
        value = type === '$' ? Buffer.from(body) : new VerbatimReply(body.toString('latin1', 0, 3), body.toString('utf8', 4));
      }
    } else if (type === '+') {
      value = new SimpleString(line());
    } else if (type === '-') {
      value = new ErrorReply(line(), true);
    } else if (type === ':' || type === '(') {
      const text = line();
      const n = Number(text);
      value = Number.isSafeInteger(n) ? n : BigInt(text);
    } else if (type === ',') {
      const text = line();
      value = new DoubleReply(text === 'inf' ? Infinity : text === '-inf' ? -Infinity : Number(text));
    } else if (type === '#') {
      value = new BooleanReply(line() === 't');
    } else {
      line();
      value = null;
    }
    // Close every aggregate this value completes.
    while (value !== undefined) {
      const top = stack[stack.length - 1];
      if (top === undefined) {
        result = value;
        return result;
      }
      top.items.push(value);
      value = undefined;
      if (--top.left === 0) {
        stack.pop();
        if (top.kind === '*') value = top.items;
        else if (top.kind === '~') value = new SetReply(top.items);
        else {
          const entries: Array<[Reply, Reply]> = [];
          for (let i = 0; i < top.items.length; i += 2) entries.push([top.items[i]!, top.items[i + 1]!]);
          value = new MapReply(entries);
        }
      }
    }
  }
}
