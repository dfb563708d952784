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
  latencyNoSamples: (event: string) => `ERR No samples available for event '${event}'`,
  dbIndexOutOfRange: 'ERR DB index is out of range',
  sameObject: 'ERR source and destination objects are the same',
  bitOffset: 'ERR bit offset is not an integer or out of range',
  bitValue: 'ERR bit is not an integer or out of range',
  bitArgument: 'ERR The bit argument must be 1 or 0.',
  notHll: 'WRONGTYPE Key is not a valid HyperLogLog string value.',
  corruptHll: 'INVALIDOBJ Corrupted HLL object detected',
  pfdebugNoKey: 'ERR The specified key does not exist',
  hllNotSparse: 'ERR HLL encoding is not sparse',
  pfdebugUnknown: (sub: string) => `ERR Unknown PFDEBUG subcommand '${sub}'`,
  sortScoresNotDouble: "ERR One or more scores can't be converted into double",
  bitopNotOneKey: 'ERR BITOP NOT must be called with a single source key.',
  bitfieldType: 'ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.',
  bitfieldOverflow: 'ERR Invalid OVERFLOW type specified',
  bitfieldRoGetOnly: 'ERR BITFIELD_RO only supports the GET subcommand',
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

  // --- ACL (acl.c, and the NOPERM refusals of processCommand, EXEC and scripts).
  aclUsernameSpaces: "ERR Usernames can't contain spaces or null characters",
  aclUnmatchedParenthesis: (arg: string) => `ERR Unmatched parenthesis in acl selector starting at '${arg}'.`,
  aclSetUserModifier: (op: string, reason: string) => `ERR Error in ACL SETUSER modifier '${op}': ${reason}`,
  aclDefaultUndeletable: "ERR The 'default' user cannot be removed",
  aclNoFile:
    'ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ' +
    'ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) ' +
    'in order to store users in the Redis configuration.',
  aclSaveFailed: 'ERR There was an error trying to save the ACLs. Please check the server logs for more information',
  aclUnknownCategory: (name: string) => `ERR Unknown category '${name}'`,
  aclGenpassBits: 'ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096',
  aclDryrunNoUser: (name: string) => `ERR User '${name}' not found`,
  aclDryrunNoCommand: (name: string) => `ERR Command '${name}' not found`,
  aclLoadErrors: (errors: string) => `ERR ${errors}`,
  noPermCommand: (name: string) => `NOPERM this user has no permissions to run the '${name}' command`,
  noPermKey: 'NOPERM this user has no permissions to access one of the keys used as arguments',
  noPermChannel: 'NOPERM this user has no permissions to access one of the channels used as arguments',
  noPermExec: (reason: string) =>
    'NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. ' +
    `This command is no longer allowed for the following reason: ${reason}`,
  scriptAcl: (reason: string) => `ERR The user executing the script ${reason}`,
  sortByAcl: 'ERR BY option of SORT denied due to insufficient ACL permissions.',
  sortGetAcl: 'ERR GET option of SORT denied due to insufficient ACL permissions.',
  unblockReason: 'ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR',
  clientPauseMode: 'ERR CLIENT PAUSE mode must be WRITE or ALL',
  unblocked: 'UNBLOCKED client unblocked via CLIENT UNBLOCK',
  unrecognizedOption: (option: string) => `ERR Unrecognized option '${option}'`,
  clientInfoValue: (attr: string) => `ERR ${attr} cannot contain spaces, newlines or special characters.`,
  trackingOneRedirect: 'ERR A client can only redirect to a single other client',
  trackingNoRedirectClient: 'ERR The client ID you want redirect to does not exist',
  trackingPrefixNeedsBcast: 'ERR PREFIX option requires BCAST mode to be enabled',
  trackingBcastSwitch:
    "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.",
  trackingOptBcast: 'ERR OPTIN and OPTOUT are not compatible with BCAST',
  trackingOptinAndOptout: "ERR You can't specify both OPTIN mode and OPTOUT mode",
  trackingOptSwitch:
    "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.",
  trackingPrefixOverlapsExisting: (prefix: string, other: string) =>
    `ERR Prefix '${prefix}' overlaps with an existing prefix '${other}'. Prefixes for a single client must not overlap.`,
  trackingPrefixOverlapsGiven: (prefix: string, other: string) =>
    `ERR Prefix '${prefix}' overlaps with another provided prefix '${other}'. Prefixes for a single client must not overlap.`,
  cachingNotTracking: 'ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled',
  cachingYesNeedsOptin: 'ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.',
  cachingNoNeedsOptout: 'ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.',
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
  migrateKeysWithKey: 'ERR When using MIGRATE KEYS option, the key argument must be set to the empty string',
  migrateConnect: 'IOERR error or timeout connecting to the client',
  migrateIo: (what: 'writing' | 'reading') => `IOERR error or timeout ${what} to target instance`,
  migrateTargetError: (message: string) => `ERR Target instance replied with error: ${message}`,
  // sluice waits for the target without blocking: not possible where a command must not block.
  migrateNotHere: 'ERR MIGRATE cannot run inside MULTI/EXEC or a script in sluice',
  lfuSelected:
    'ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when ' +
    'switching between policies at runtime LRU and LFU data will take some time to adjust.',
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

  // --- GEO (geo.c).
  /** The coordinates as printf's %f prints them (engine/geohash.ts formatF). */
  geoInvalidPair: (longitude: string, latitude: string) => `ERR invalid longitude,latitude pair ${longitude},${latitude}`,
  geoUnit: 'ERR unsupported unit provided. please use M, KM, FT, MI',
  geoNeedRadius: 'ERR need numeric radius',
  geoNeedWidth: 'ERR need numeric width',
  geoNeedHeight: 'ERR need numeric height',
  geoRadiusNegative: 'ERR radius cannot be negative',
  geoBoxNegative: 'ERR height or width cannot be negative',
  geoMemberUndecodable: 'ERR could not decode requested zset member',
  geoStoreWith: (what: string) => `ERR ${what} is not compatible with WITHDIST, WITHHASH and WITHCOORD options`,
  geoFromOne: (command: string) => `ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for ${command}`,
  geoByOne: (command: string) => `ERR exactly one of BYRADIUS and BYBOX can be specified for ${command}`,
  geoAnyWithoutCount: 'ERR the ANY argument requires COUNT argument',

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
  /** XAUTOCLAIM's and GEORADIUS/GEOSEARCH's COUNT. */
  countMustBePositive: 'ERR COUNT must be > 0',
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
  /** CONFIG REWRITE could not write the file: the reason is strerror's text ("Permission denied"). */
  configRewriteFailed: (why: string) => `ERR Rewriting config file: ${why}`,
  invalidCommand: 'ERR Invalid command specified',
  noKeyArguments: 'ERR The command has no key arguments',
  getkeysArity: 'ERR Invalid number of arguments specified for command',
  getkeysInvalid: 'ERR Invalid arguments specified for command',
  noShutdown: 'ERR No shutdown in progress.',
  shutdownUnavailable: 'ERR SHUTDOWN is not available in this process',
  debugNotAllowed:
    'ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a ' +
    'local connection, otherwise you need to set this option in the configuration file, and then restart the server.',
  debugPopulateOom: 'ERR OOM in dictTryExpand',
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
  // --- FAILOVER (replication.c failoverCommand, syncCommand, replicaofCommand)
  failoverTimeoutNotPositive: 'ERR FAILOVER timeout must be greater than 0',
  failoverInProgress: 'ERR FAILOVER already in progress.',
  failoverOnReplica: 'ERR FAILOVER is not valid when server is a replica.',
  failoverNoReplicas: 'ERR FAILOVER requires connected replicas.',
  failoverForceNeeds: 'ERR FAILOVER with force option requires both a timeout and target HOST and IP.',
  failoverTargetNotReplica: 'ERR FAILOVER target HOST and PORT is not a replica.',
  failoverTargetNotOnline: 'ERR FAILOVER target replica is not online.',
  noFailoverInProgress: 'ERR No failover in progress.',
  unblockedByRoleChange: 'UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)',
  replicaofWhileFailingOver: 'ERR REPLICAOF not allowed while failing over.',
  syncWhileFailingOver: "NOMASTERLINK Can't SYNC while failing over",
  psyncFailoverToMaster: "ERR PSYNC FAILOVER can't be sent to a master.",
  psyncFailoverReplid: 'ERR PSYNC FAILOVER replid must match my replid.',
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
  // Lua scripts (commands/lua/): script.c, eval.c and function_lua.c's texts.
  scriptCompile: (message: string) => `ERR Error compiling script (new function): ${message}`,
  blockFromScript: (command: string) => `ERR ${command} command is not allowed with BLOCK option from scripts`,
  libraryExists: (name: string) => `ERR Library '${name}' already exists`,
  /** FUNCTION RESTORE's join (libraryJoin) names the library without quotes. */
  libraryExistsUnquoted: (name: string) => `ERR Library ${name} already exists`,
  /** FUNCTION RESTORE of a payload whose entries do not load (rdbFunctionLoad's reason). */
  functionPayload: (reason: string) => `ERR ${reason}`,
  noFunctionsRegistered: 'ERR No functions registered',
  functionExists: (name: string) => `ERR Function ${name} already exists`,
  badNumkeys: 'ERR Bad number of keys provided',
  debugProtocolType:
    'ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false',
  resp2NotSupported: 'ERR RESP2 is not supported by this command',
  /** CLUSTER on a server without cluster mode (sluice server has none). */
  clusterDisabled: 'ERR This instance has cluster support disabled',
  scriptUnknownCommand: 'ERR Unknown Redis command called from script',
  scriptWrongArgs: 'ERR Wrong number of args calling Redis command from script',
  scriptNotAllowed: 'ERR This Redis command is not allowed from script',
  scriptWriteInReadOnly: 'ERR Write commands are not allowed from read-only scripts.',
  scriptWriteWithRo: 'ERR Can not execute a script with write flag using *_ro command.',
  scriptOom: "OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'",
  scriptReadonlyReplica: 'READONLY Can not run script with write flag on readonly replica',
  shebangInvalid: 'ERR Invalid script shebang',
  shebangNoEngine: 'ERR Invalid engine in script shebang',
  shebangEngine: (engine: string) => `ERR Unexpected engine in script shebang: ${engine}`,
  shebangFlag: (flag: string) => `ERR Unexpected flag in script shebang: ${flag}`,
  shebangOption: (option: string) => `ERR Unknown lua shebang option: ${option}`,
  numkeysTooMany: "ERR Number of keys can't be greater than number of args",
  numkeysNegative: "ERR Number of keys can't be negative",
  noScript: 'NOSCRIPT No matching script. Please use EVAL.',
  functionNotFound: 'ERR Function not found',
  scriptFlushMode: 'ERR SCRIPT FLUSH only support SYNC|ASYNC option',
  notBusy: 'NOTBUSY No scripts in execution right now.',
  /** To other clients while an EVAL runs past busy-reply-threshold (shared.slowevalerr). */
  busyEval: 'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.',
  /** The same while a function runs (shared.slowscripterr). */
  busyFunction: 'BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.',
  unkillableWrote:
    'UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.',
  unkillableFromPrimary:
    'UNKILLABLE The busy script was sent by a master instance in the context of replication and cannot be killed.',
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
