// Every error text sluice replies, in one place, byte for byte as Redis 7 (or 8, for its stream
// commands) words it: the differential tests compare them with redis-server's. A text with a
// part that varies is a function. Texts of sluice's own (what it does not support, or what only
// it can refuse) say "sluice". Thrown as replies through `fail` (resp/reply.ts).

/** Every error text, by name: `fail(Errors.syntax)`, `fail(Errors.wrongArity(name))`. */
export const Errors = {
  // --- Redis's shared replies and the texts many commands give.
  /** A failed SAVE/BGREWRITEAOF, as Redis's shared.err: the reason is in the log. */
  bare: 'ERR',
  syntax: 'ERR syntax error',
  wrongType: 'WRONGTYPE Operation against a key holding the wrong kind of value',
  notInteger: 'ERR value is not an integer or out of range',
  notFloat: 'ERR value is not a valid float',
  notPositive: 'ERR value is out of range, must be positive',
  /** getRangeLongFromObjectOrReply's own text (SRANDMEMBER's count of -2^63). */
  valueRange: (min: string, max: string) => `ERR value is out of range, value must between ${min} and ${max}`,
  overflow: 'ERR increment or decrement would overflow',
  decrementOverflow: 'ERR decrement would overflow',
  nanOrInfinity: 'ERR increment would produce NaN or Infinity',
  noSuchKey: 'ERR no such key',
  dbIndexOutOfRange: 'ERR DB index is out of range',
  sameObject: 'ERR source and destination objects are the same',
  bitOffset: 'ERR bit offset is not an integer or out of range',
  bitValue: 'ERR bit is not an integer or out of range',
  bitArgument: 'ERR The bit argument must be 1 or 0.',
  bitopNotOneKey: 'ERR BITOP NOT must be called with a single source key.',
  /** getRangeLongFromObjectOrReply's overflow of a doubled count (ZRANDMEMBER WITHSCORES). */
  valueOutOfRange: 'ERR value is out of range',
  weightNotFloat: 'ERR weight value is not a float',
  atLeastOneInputKey: (command: string) => `ERR at least 1 input key is needed for '${command}' command`,
  lcsNotStrings: 'ERR The specified keys must contain string values',
  lcsLenAndIdx: 'ERR If you want both the length and indexes, please just use IDX.',
  lcsTooLong: 'ERR String too long for LCS',
  lcsOverBulkLen: 'ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len',
  lcsAllocation: 'ERR Insufficient memory, failed allocating transient memory for LCS',
  timeoutNotFloat: 'ERR timeout is not a float or out of range',
  timeoutNotInteger: 'ERR timeout is not an integer or out of range',
  timeoutNegative: 'ERR timeout is negative',
  internal: 'ERR internal error',
  internalWith: (message: string) => `ERR internal error: ${message}`,
  protocol: (message: string) => `ERR Protocol error: ${message}`,
  wrongArity: (name: string) => `ERR wrong number of arguments for '${name}' command`,
  unknownCommand: (name: string, args: string) => `ERR unknown command '${name}', with args beginning with: ${args}`,
  unknownSubcommand: (sub: string, cmd: string) => `ERR unknown subcommand '${sub}'. Try ${cmd} HELP.`,
  unknownSubcommandOrArity: (sub: string, cmd: string) =>
    `ERR unknown subcommand or wrong number of arguments for '${sub}'. Try ${cmd} HELP.`,
  oom: "OOM command not allowed when used memory > 'maxmemory'.",

  // --- Connections: AUTH, HELLO, CLIENT, RESP2 subscribed mode.
  noAuth: 'NOAUTH Authentication required.',
  wrongPass: 'WRONGPASS invalid username-password pair or user is disabled.',
  authWithoutPassword:
    'ERR AUTH <password> called without any password configured for the default user. ' +
    'Are you sure your configuration is correct?',
  helloNoAuth:
    'NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO ' +
    'AUTH <user> <pass> option can be used to authenticate the client and select the RESP ' +
    'protocol version at the same time',
  protocolVersionNotInteger: 'ERR Protocol version is not an integer or out of range',
  unsupportedProtocol: 'NOPROTO unsupported protocol version',
  helloSyntax: (option: string) => `ERR Syntax error in HELLO option '${option}'`,
  clientName: 'ERR Client names cannot contain spaces, newlines or special characters.',
  unknownClientType: (type: string) => `ERR Unknown client type '${type}'`,
  invalidClientId: 'ERR Invalid client ID',
  noSuchClient: 'ERR No such client',
  clientIdNotPositive: 'ERR client-id should be greater than 0',
  noSuchUser: (user: string) => `ERR No such user '${user}'`,
  unblockReason: 'ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR',
  unblocked: 'UNBLOCKED client unblocked via CLIENT UNBLOCK',
  unrecognizedOption: (option: string) => `ERR Unrecognized option '${option}'`,
  clientInfoValue: (attr: string) => `ERR ${attr} cannot contain spaces, newlines or special characters.`,
  subscribedMode: (name: string) =>
    `ERR Can't execute '${name}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context`,
  pubsubEmbedded: (cmd: string) => `ERR ${cmd} is not supported by the embedded client: Pub/Sub needs a connection to sluice server`,
  denyBlocking: (cmd: string) => `ERR ${cmd} isn't allowed for a DENY BLOCKING client`,
  monitorEmbedded: 'ERR MONITOR is not supported by the embedded client: it needs a connection to sluice server',
  monitorDenyBlocking: "ERR MONITOR isn't allowed for DENY BLOCKING client",
  replicaKeyspace: "ERR Replica can't interact with the keyspace",

  // --- MULTI / EXEC / WATCH.
  nestedMulti: 'ERR MULTI calls can not be nested',
  execWithoutMulti: 'ERR EXEC without MULTI',
  discardWithoutMulti: 'ERR DISCARD without MULTI',
  watchInMulti: 'ERR WATCH inside MULTI is not allowed',
  execAbort: 'EXECABORT Transaction discarded because of previous errors.',
  /** `reason` without its "ERR " prefix, as Redis's execCommandAbort. */
  execAbortBecause: (reason: string) => `EXECABORT Transaction discarded because of: ${reason}`,
  notInTransaction: 'ERR Command not allowed inside a transaction',
  blockedInMulti: 'ERR command blocked inside MULTI',

  // --- Keys: EXPIRE, SCAN, SWAPDB, DUMP / RESTORE, OBJECT.
  invalidExpire: (command: string) => `ERR invalid expire time in '${command}' command`,
  invalidCursor: 'ERR invalid cursor',
  invalidFirstDb: 'ERR invalid first DB index',
  invalidSecondDb: 'ERR invalid second DB index',
  unsupportedOption: (option: string) => `ERR Unsupported option ${option}`,
  expireNxXx: 'ERR NX and XX, GT or LT options at the same time are not compatible',
  expireGtLt: 'ERR GT and LT options at the same time are not compatible',
  invalidIdleTime: 'ERR Invalid IDLETIME value, must be >= 0',
  invalidFreq: 'ERR Invalid FREQ value, must be >= 0 and <= 255',
  busyKey: 'BUSYKEY Target key name already exists.',
  invalidTtl: 'ERR Invalid TTL value, must be >= 0',
  dumpPayload: 'ERR DUMP payload version or checksum are wrong',
  badDataFormat: 'ERR Bad data format',
  lfuNotSelected:
    'ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when ' +
    'switching between policies at runtime LRU and LFU data will take some time to adjust.',

  // --- Strings, lists, hashes, sorted sets.
  stringTooLong: 'ERR string exceeds maximum allowed size (proto-max-bulk-len)',
  offsetOutOfRange: 'ERR offset is out of range',
  rankZero:
    "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list",
  lposCountNegative: "ERR COUNT can't be negative",
  lposMaxlenNegative: "ERR MAXLEN can't be negative",
  indexOutOfRange: 'ERR index out of range',
  numkeysNotPositive: 'ERR numkeys should be greater than 0',
  countNotPositive: 'ERR count should be greater than 0',
  slowlogCount: 'ERR count should be greater than or equal to -1',
  /** Redis would try to write that many members (and run out of memory); sluice refuses. */
  srandmemberTooMany: 'ERR sluice does not reply more than 2^53 - 1 random members',
  sintercardLimitNegative: "ERR LIMIT can't be negative",
  hashNotInteger: 'ERR hash value is not an integer',
  hashNotFloat: 'ERR hash value is not a float',
  incrementNanOrInfinity: 'ERR value is NaN or Infinity',
  zaddXxNx: 'ERR XX and NX options at the same time are not compatible',
  zaddGtLtNx: 'ERR GT, LT, and/or NX options at the same time are not compatible',
  zaddIncrPairs: 'ERR INCR option supports a single increment-element pair',
  zrangeLimit: 'ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX',
  zrangeWithScoresByLex: 'ERR syntax error, WITHSCORES not supported in combination with BYLEX',
  scoreRange: 'ERR min or max is not a float',
  lexRange: 'ERR min or max not valid string range item',
  scoreNan: 'ERR resulting score is not a number (NaN)',

  // --- Streams (t_stream.c), Redis 8's stream commands included.
  invalidId: 'ERR Invalid stream ID specified as stream command argument',
  invalidStart: 'ERR invalid start ID for the interval',
  invalidEnd: 'ERR invalid end ID for the interval',
  exhausted: 'ERR The stream has exhausted the last possible ID, unable to add more items',
  xaddSmaller: 'ERR The ID specified in XADD is equal or smaller than the target stream top item',
  xaddTooLarge: 'ERR Elements are too large to be stored',
  xaddZero: 'ERR The ID specified in XADD must be greater than 0-0',
  maxlenAndMinid: 'ERR syntax error, MAXLEN and MINID options at the same time are not compatible',
  trimMaxlenNegative: 'ERR The MAXLEN argument must be >= 0.',
  trimLimitNegative: 'ERR The LIMIT argument must be >= 0.',
  idmpTwice: 'ERR IDMP/IDMPAUTO specified multiple times',
  idmpEmptyPid: (option: 'IDMP' | 'IDMPAUTO') => `ERR ${option} requires a non-empty producer ID`,
  idmpEmptyIid: 'ERR IDMP requires a non-empty idempotent ID',
  limitWithoutStrategy: 'ERR syntax error, LIMIT cannot be used without specifying a trimming strategy',
  xtrimWithoutStrategy: 'ERR syntax error, XTRIM must be called with a trimming strategy',
  idmpExplicitId: 'ERR IDMP/IDMPAUTO can be used only with auto-generated IDs',
  limitWithoutApprox: 'ERR syntax error, LIMIT cannot be used without the special ~ option',
  entriesAddedNegative: 'ERR entries_added must be positive',
  xsetidBelowMaxDeleted: 'ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id',
  xsetidBelowTop: 'ERR The ID specified in XSETID is smaller than the target stream top item',
  xsetidEntriesAdded: 'ERR The entries_added specified in XSETID is smaller than the target stream length',
  entriesReadNegative: 'ERR value for ENTRIESREAD must be positive or -1',
  xgroupNoKey:
    'ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want ' +
    'to use the MKSTREAM option to create an empty stream automatically.',
  busyGroup: 'BUSYGROUP Consumer Group name already exists',
  noGroupForRead: (key: string, group: string) => `NOGROUP No such key '${key}' or consumer group '${group}'`,
  noSuchGroup: (key: string, group: string) => `NOGROUP No such consumer group '${group}' for key name '${key}'`,
  invalidMinIdle: (cmd: string) => `ERR Invalid min-idle-time argument for ${cmd}`,
  dollarInXreadgroup:
    'ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of ' +
    'this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would ' +
    'just return an empty result set.',
  blockedStreamDeleted: 'UNBLOCKED the stream key no longer exists',
  blockedGroupDeleted: 'NOGROUP the consumer group this client was blocked on no longer exists',
  greaterThanOutsideGroup: 'ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.',
  unbalancedXread: "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.",
  onlyInXreadgroup: (option: string) => `ERR The ${option} option is only supported by XREADGROUP. You called XREAD instead.`,
  missingGroup: 'ERR Missing GROUP option for XREADGROUP',
  xclaimIdle: 'ERR Invalid IDLE option argument for XCLAIM',
  xclaimTime: 'ERR Invalid TIME option argument for XCLAIM',
  xclaimRetryCount: 'ERR Invalid RETRYCOUNT option argument for XCLAIM',
  xclaimOption: (option: string) => `ERR Unrecognized XCLAIM option '${option}'`,
  autoclaimCount: 'ERR COUNT must be > 0',
  autoclaimCountTooHigh: 'ERR Insufficient memory, failed allocating transient memory, COUNT too high.',
  numIds: 'ERR Number of IDs must be a positive integer',
  numIdsMismatch: 'ERR The `numids` parameter must match the number of arguments',
  xnackRetryCount: 'ERR Invalid RETRYCOUNT option argument for XNACK',
  cfgRange: (name: string, max: number, unit: string) => `ERR ${name} must be between 1 and ${max} ${unit}`,
  cfgNoParameter: 'ERR At least one parameter must be specified',
  idmpEmptyPair: 'ERR pid and iid must not be empty',
  idmpNoSuchId: 'ERR the stream ID does not exist',
  idmpOtherId: 'ERR the pid/iid pair already maps to a different stream ID',

  // --- Server commands: CONFIG, COMMAND GETKEYS, SHUTDOWN, DEBUG, persistence.
  configSetUnknown: (name: string) => `ERR Unknown option or number of arguments for CONFIG SET - '${name}'`,
  configSetFailed: (name: string, why: string) => `ERR CONFIG SET failed (possibly related to argument '${name}') - ${why}`,
  /** configSetFailed's reasons for a name refused before any value is looked at. */
  configImmutable: "can't set immutable config",
  /** dir and dbfilename while enable-protected-configs does not allow the client (Redis 7). */
  configProtected: "can't set protected config",
  configDuplicate: 'duplicate parameter',
  noConfigFile: 'ERR The server is running without a config file',
  invalidCommand: 'ERR Invalid command specified',
  noKeyArguments: 'ERR The command has no key arguments',
  getkeysArity: 'ERR Invalid number of arguments specified for command',
  getkeysInvalid: 'ERR Invalid arguments specified for command',
  noShutdown: 'ERR No shutdown in progress.',
  shutdownUnavailable: 'ERR SHUTDOWN is not available in this process',
  debugNotAllowed:
    'ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a ' +
    'local connection, otherwise you need to set this option in the configuration file, and then restart the server.',
  debugNoPersistence: 'ERR DEBUG RELOAD and LOADAOF need a sluice server (this instance has no persistence layer)',
  debugReloadOptions: 'ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.',
  debugLoadaofInMulti: 'ERR DEBUG LOADAOF cannot run inside MULTI in sluice',
  loadaofNeedsAof: 'ERR DEBUG LOADAOF needs the append-only file on (CONFIG SET appendonly yes)',
  rdbLoadFailed: 'ERR Error trying to load the RDB dump, check server logs.',
  aofLoadFailed: 'ERR Error trying to load the AOF files, check server logs.',
  // --- replication (replication.c)
  unrecognizedReplconf: (option: string) => `ERR Unrecognized REPLCONF option: ${option}`,
  replconfIpTooLong: (bytes: number) => `ERR REPLCONF ip-address provided by replica instance is too long: ${bytes} bytes`,
  replicaofFromReplica: 'ERR Command is not valid when client is a replica.',
  invalidMasterPort: 'ERR Invalid master port',
  noMasterLink: "NOMASTERLINK Can't SYNC while not connected with my master",
  readOnlyReplica: "READONLY You can't write against a read only replica.",
  masterDown: "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
  syncWithPendingOutput: 'ERR SYNC and PSYNC are invalid with pending output',
  noReplicas: 'NOREPLICAS Not enough good replicas to write.',
  waitOnReplica:
    'ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.',
  /** sluice's own: the embedded engine has no network for a replica to attach over. */
  noReplicationHere: 'ERR sluice replicates over the network only: connect to `sluice server` to SYNC or PSYNC',
  noPersistence: 'ERR persistence is not enabled: start sluice with a data directory (--dir)',
  rewriteInProgress: 'ERR Background append only file rewriting already in progress',
  saveInProgress: 'ERR Background save already in progress',
  bgsaveDuringRewrite:
    "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.",
  aofWrite: (reason: string) => `MISCONF Errors writing to the AOF file: ${reason}`,

  // --- Scripting and functions: sluice runs no Lua, so these are the replies of a server without scripts.
  evalUnsupported: (command: 'EVAL' | 'SCRIPT LOAD') => `ERR sluice does not support Lua scripting: ${command} cannot run scripts`,
  numkeysTooMany: "ERR Number of keys can't be greater than number of args",
  numkeysNegative: "ERR Number of keys can't be negative",
  noScript: 'NOSCRIPT No matching script. Please use EVAL.',
  functionNotFound: 'ERR Function not found',
  scriptFlushMode: 'ERR SCRIPT FLUSH only support SYNC|ASYNC option',
  notBusy: 'NOTBUSY No scripts in execution right now.',
  functionFlushMode: 'ERR FUNCTION FLUSH only supports SYNC|ASYNC option',
  libraryNameMissing: 'ERR library name argument was not given',
  unknownArgument: (arg: string) => `ERR Unknown argument ${arg}`,
  restorePolicy: 'ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.',
  notAFunction: 'ERR given type is not a function',
  engineNotFound: (engine: string) => `ERR Engine '${engine}' not found`,
  libraryNotFound: 'ERR Library not found',
  unknownOption: (option: string) => `ERR Unknown option given: ${option}`,
  codeMissing: 'ERR Function code is missing',
  metadataMissing: 'ERR Missing library metadata',
  metadataInvalid: 'ERR Invalid library metadata',
  metadataValue: (part: string) => `ERR Invalid metadata value given: ${part}`,
  metadataNameTwice: 'ERR Invalid metadata value, name argument was given multiple times',
  libraryNameNotGiven: 'ERR Library name was not given',
  libraryNameInvalid: 'ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long',
} as const;
