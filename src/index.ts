export { open, EmbeddedDatabase, EmbeddedSession, ReplyError, type OpenOptions, type Value } from './client/embedded.js';
