// The RDB format's numbers as Redis 7.0's rdb.h names them (type bytes, opcodes, versions).

/** Redis 7.0 writes RDB version 10 (files "REDIS0010", DUMP payload footers). */
export const RDB_VERSION = 10;
/** Redis 7.2 writes 11; its files and payloads are accepted when they use known types. */
export const RDB_MAX_LOADABLE_VERSION = 11;

export const TYPE_STRING = 0;
export const TYPE_LIST = 1;
export const TYPE_SET = 2;
export const TYPE_ZSET = 3;
export const TYPE_HASH = 4;
export const TYPE_ZSET_2 = 5;
export const TYPE_HASH_ZIPMAP = 9;
export const TYPE_LIST_ZIPLIST = 10;
export const TYPE_SET_INTSET = 11;
export const TYPE_ZSET_ZIPLIST = 12;
export const TYPE_HASH_ZIPLIST = 13;
export const TYPE_LIST_QUICKLIST = 14;
export const TYPE_STREAM_LISTPACKS = 15;
export const TYPE_HASH_LISTPACK = 16;
export const TYPE_ZSET_LISTPACK = 17;
export const TYPE_LIST_QUICKLIST_2 = 18;
export const TYPE_STREAM_LISTPACKS_2 = 19;
export const TYPE_SET_LISTPACK = 20;
export const TYPE_STREAM_LISTPACKS_3 = 21;

export const OPCODE_FUNCTION2 = 245;
export const OPCODE_FUNCTION_PRE_GA = 246;
export const OPCODE_MODULE_AUX = 247;
export const OPCODE_IDLE = 248;
export const OPCODE_FREQ = 249;
export const OPCODE_AUX = 250;
export const OPCODE_RESIZEDB = 251;
export const OPCODE_EXPIRETIME_MS = 252;
export const OPCODE_EXPIRETIME = 253;
export const OPCODE_SELECTDB = 254;
export const OPCODE_EOF = 255;

/** Quicklist node containers (RDB_TYPE_LIST_QUICKLIST_2). */
export const QUICKLIST_NODE_PLAIN = 1;
export const QUICKLIST_NODE_PACKED = 2;

/** Thrown for any payload that does not decode: RESTORE answers "ERR Bad data format". */
export class RdbFormatError extends Error {}
