/* rl.h -- public interface of the RedLock core (no PHP): the lock API, nodes and connections, and the
 * injection points (clock, random source, transport). What only the core and its tests use: rl_internal.h. */
#ifndef RL_H
#define RL_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RL_VERSION "0.1.0"

#define RL_MAX_NODES 64   /* keeps per-call state on the stack */
#define RL_TOKEN_BYTES 20 /* random bytes in a token */
#define RL_TOKEN_LEN 40   /* hex characters in a random token */
#define RL_TOKEN_MIN 16   /* a caller-chosen token ("token" option): 16 ... 128 bytes, no NUL */
#define RL_TOKEN_MAX 128
#define RL_REASON_LEN 96   /* short failure reason, NUL included */
#define RL_REPLY_MAX 65536 /* a lock reply is tiny: more than this is a hostile node */
#define RL_MAX_KEY 1024    /* prefix + resource */
/* A key that begins with a NUL byte is a key list (no key does: a lock's key
 * is prefix . resource, neither holds a NUL, and a resource is never empty):
 * "\0" then, for each key, its length in 2 bytes (big-endian) and its bytes.
 * Every call of the lock API then acts on all its keys at once, all or none
 * on each node (docs/api.md "Several resources"). rl_list_next() walks it: 1
 * with *k, *kl the next key from *pos (start at 1), 0 at the end. */
#define RL_MAX_LIST 64
#define RL_LIST_KEY_MAX 65535
int rl_key_is_list(const char *key, size_t keylen);
/* A read lock (docs/api.md "Read locks") is a key list whose first entry is
 * empty ("\0" "\0\0" then the keys): its scripts are the readers' (lock/rl_cmd.c
 * rl_script_acquire_shared); rl_list_next() skips the empty entry. */
int rl_key_is_shared(const char *key, size_t keylen);
int rl_list_next(const char *list, size_t len, size_t *pos, const char **k, size_t *kl);
/* appends key to the list in buf (cap bytes; *len 0: a new list); -1 when it does not fit */
int rl_list_add(char *buf, size_t cap, size_t *len, const char *key, size_t keylen);

/* ---- error codes: every node failure keeps one, with a short reason ---- */
enum rl_err {
    RL_OK = 0,
    RL_E_REFUSED, /* connect refused / unreachable */
    RL_E_TIMEOUT, /* connect or round trip ran out of time */
    RL_E_AUTH,    /* AUTH or SELECT refused */
    RL_E_PROTO,   /* unparsable, unexpected or oversized reply */
    RL_E_IO,      /* read/write error, connection closed */
    RL_E_DOWN,    /* skipped: node in back-off after a failed connect */
    RL_E_REDIS,   /* the server answered with an error reply */
    RL_E_RESOLVE, /* host name did not resolve */
    RL_E_NOMEM,
    RL_E_SAME_SERVER, /* this node is the same Redis server (run_id) as another node of the call */
    RL_E_STALLED      /* skipped: the node has not answered its pipeline for a long time */
};
const char *rl_err_name(int err);

/* ---- injected clock and random source (fakes in unit tests) ---- */
typedef struct rl_clock {
    uint64_t (*now_us)(void *ctx); /* monotonic microseconds */
    void (*sleep_us)(void *ctx, uint64_t us);
    void *ctx;
} rl_clock;

typedef struct rl_random {
    int (*fill)(void *ctx, void *buf, size_t len); /* 0 on success */
    void *ctx;
} rl_random;

extern const rl_clock
    rl_clock_monotonic; /* CLOCK_BOOTTIME (keeps counting in suspend), else CLOCK_MONOTONIC; nanosleep */
extern const rl_random rl_random_system; /* getrandom(2), buffered, fork-safe */

/* A fork generation: bumped in the child by pthread_atfork, so a connection
 * or a lock can tell it was inherited without calling getpid() each time. */
uint64_t rl_fork_generation(void);

/* ---- node configuration ---- */
/* A node's connection settings, each field written once, in these lists: the
 * structs below, rl_node_conf_eq(), rl_node_conf_copy(), rl_node_conf_free()
 * and rl_node_conf_identity() are made from them, so a setting added here is
 * compared (the watchdog shares a connection only between equal settings),
 * copied, freed (a SECRET wiped first) and part of the pool's identity
 * with no other line in the core. X(kind, field):
 *   STR     a malloc'd string, NULL when not set
 *   SECRET  the same, wiped before it is freed; shown only as a keyed hash
 *   INT     an int
 *   TLS     the node's rl_tls_conf
 * TLS settings are named as PHP's ssl stream-context options (docs/api.md "TLS");
 * verification is on unless switched off: a zeroed conf is the safe one.
 * The extension's REDLOCK_TLS_SETTINGS (php_redlock.h) names each TLS field
 * for PHP; its build fails when a field here has no entry there. */
#define RL_TLS_CONF_FIELDS(X)                                                                \
    X(STR, cafile) /* NULL and no capath: the system store */                                \
    X(STR, capath)                                                                           \
    X(STR, local_cert)          /* client certificate (PEM) */                               \
    X(STR, local_pk)            /* its key; NULL: in local_cert */                           \
    X(SECRET, passphrase)       /* of local_pk */                                            \
    X(STR, peer_name)           /* NULL: the host; sent as SNI unless it is an IP address */ \
    X(INT, no_verify_peer)      /* 'verify_peer' => false */                                 \
    X(INT, no_verify_peer_name) /* 'verify_peer_name' => false */
#define RL_NODE_CONF_FIELDS(X)                                                  \
    X(STR, host)   /* NULL for a unix socket */                                 \
    X(INT, port)   /* 0 for a unix socket */                                    \
    X(STR, socket) /* unix socket path, or NULL */                              \
    X(INT, database)                                                            \
    X(STR, user)        /* ACL user or NULL */                                  \
    X(SECRET, password) /* NULL when none */                                    \
    X(INT, tls)         /* connect with TLS (rediss://, 'tls' => true|array) */ \
    X(TLS, tls_conf)                                                            \
    X(INT, connect_timeout_ms)                                                  \
    X(INT, timeout_ms)

#define RL_CONF_DECL_STR(f) char *f;
#define RL_CONF_DECL_SECRET(f) char *f;
#define RL_CONF_DECL_INT(f) int f;
#define RL_CONF_DECL_TLS(f) rl_tls_conf f;
#define RL_CONF_DECL(kind, f) RL_CONF_DECL_##kind(f)
typedef struct rl_tls_conf {
    RL_TLS_CONF_FIELDS(RL_CONF_DECL)
} rl_tls_conf;

typedef struct rl_node_conf {
    RL_NODE_CONF_FIELDS(RL_CONF_DECL)
} rl_node_conf;

/* 1 when a and b are the same settings, field by field (one connection may
 * serve both), else 0 */
int rl_node_conf_eq(const rl_node_conf *a, const rl_node_conf *b);
/* A deep copy of src into dst: 0, or -1 out of memory (dst then holds nothing). */
int rl_node_conf_copy(rl_node_conf *dst, const rl_node_conf *src);
/* The settings one by one, for an identity string: put(ctx, name, value, len,
 * secret) for every field ("tls_conf." before a TLS field's name), the value a
 * string (an INT in decimal; NULL for a string not set); a SECRET comes with
 * secret = 1 and must never be shown as it is. */
typedef void (*rl_conf_put_fn)(void *ctx, const char *name, const char *value, size_t len, int secret);
void rl_node_conf_identity(const rl_node_conf *c, rl_conf_put_fn put, void *ctx);

/* 1 when the core was built with OpenSSL (RL_HAVE_TLS), else 0 */
int rl_tls_available(void);
/* "OpenSSL 3.0.x ..." or NULL */
const char *rl_tls_version(void);

/* Parse one node URI into conf (strings malloc'd; free with rl_node_conf_free).
 * Accepts redis://[user:password@]host[:port][/db], rediss://..., unix:///path,
 * host:port, host, [v6]:port. Returns 0, or -1 with a message in err that
 * never contains the password. Timeouts are left untouched. */
int rl_uri_parse(const char *uri, size_t len, rl_node_conf *conf, char *err, size_t errlen);
void rl_node_conf_free(rl_node_conf *conf);

/* A secret (a password, a TLS passphrase) is copied byte by byte, never by
 * memcpy()/strdup(), whose SIMD registers keep its bytes until they are
 * saved on the stack where no wipe reaches (rl_uri.c rlc_copy_secret), and
 * wiped before it is freed by a wipe the compiler cannot drop.
 * rl_secret_dup: s[0..n) and a NUL, malloc'd (NULL out of memory);
 * rl_secret_free: wipes up to the NUL, then frees (NULL: nothing). */
char *rl_secret_dup(const char *s, size_t n);
void rl_secret_copy(char *dst, const char *src, size_t n);
void rl_secret_free(char *s);
/* "host:port" or "unix:/path" into buf; returns length. */
size_t rl_node_conf_name(const rl_node_conf *conf, char *buf, size_t buflen);
/* The first pair i < j of confs[0..n) that is the same server: returns 1 and
 * sets *first = i, *second = j; 0 when none; -1 out of memory. Resolves each
 * host at most once, and only when a pair with the same port needs it. */
int rl_node_confs_find_same_server(const rl_node_conf *confs, int n, int *first, int *second);

/* Limits of a node setting, one rule for both forms of a node: rl_uri_parse()
 * applies them to a URI, the extension to a node given as an array. */
#define RL_DEFAULT_PORT 6379
#define RL_TIMEOUT_MAX_MS 60000 /* connect and round-trip timeouts: 1 ms ... 1 min */
/* far above any real user name, password or access token used as one (a few
 * KB), far below what a connection's output buffer takes (net/rl_net_internal.h OBUF_MAX:
 * a 20 MB password failed every connect with "out of memory") */
#define RL_USER_MAX 4096
#define RL_PASSWORD_MAX 65536
enum rl_node_field {
    RL_FIELD_NONE = -1, /* no limit */
    RL_FIELD_HOST,      /* length: 1 ... 255 bytes */
    RL_FIELD_PORT,      /* 1 ... 65535 */
    RL_FIELD_SOCKET,    /* absolute path, length 1 ... 107 bytes (sun_path less its NUL) */
    RL_FIELD_DATABASE,  /* 0 ... 1000000 */
    RL_FIELD_TIMEOUT,   /* connect_timeout_ms, timeout_ms: 1 ... RL_TIMEOUT_MAX_MS */
    RL_FIELD_USER,      /* length: 0 ... RL_USER_MAX bytes */
    RL_FIELD_PASSWORD,  /* length: 0 ... RL_PASSWORD_MAX bytes */
    RL_FIELD_COUNT
};
typedef struct rl_limit {
    long long min, max; /* a value for numbers, a length in bytes for strings */
} rl_limit;
extern const rl_limit rl_node_limits[RL_FIELD_COUNT];
enum { RL_LIMIT_OK = 0, RL_LIMIT_RANGE, RL_LIMIT_RELATIVE /* a socket path not starting with '/' */ };
/* Does a number (num) or a string (str, len) fit the limits of field? RL_LIMIT_*. */
int rl_node_check(int field, long long num, const char *str, size_t len);

/* ---- replies and per-node results of one fan-out ---- */
enum rl_reply_type {
    RL_REPLY_NONE = 0,
    RL_REPLY_STATUS, /* +OK */
    RL_REPLY_STRING, /* $bulk */
    RL_REPLY_INTEGER,
    RL_REPLY_NIL,
    RL_REPLY_ERROR, /* -ERR ... */
    RL_REPLY_ARRAY
};

enum rl_state {
    RL_PENDING = 0, /* no answer yet (still in flight when the call decided) */
    RL_ANSWERED,    /* reply holds the node's answer */
    RL_FAILED       /* err/reason say why */
};

typedef struct rl_reply {
    int type;
    long long integer;
    size_t len;                 /* full length of a string/status/error */
    char str[RL_TOKEN_MAX + 1]; /* first bytes of it, NUL terminated: a whole token (isHeld compares it) */
    /* A three-element array [answer, int, int] (the acquire and extend
     * scripts with the maxttl key: answer, maxttl, its age) is taken apart
     * without allocation: the answer fills the fields above, the two
     * integers go here and naux is 2 (else 0). */
    int naux;
    long long aux[2];
} rl_reply;

/* What the connection learnt of its server at connect (INFO server and INFO
 * persistence, pipelined ahead of the first command): restart-safe quorum,
 * docs/api.md "Restarted nodes". */
typedef struct rl_ident {
    uint64_t up_since_us;    /* the server's start on our monotonic clock (the latest it can be); 0 unknown */
    uint32_t inc;            /* incarnation: bumped each time the connection meets another run_id */
    unsigned char known;     /* INFO answered with a run_id and an uptime */
    unsigned char no_info;   /* INFO refused (an ACL): nothing known, the node votes unchecked */
    unsigned char aof;       /* aof_enabled:1 (its data survives a restart) */
    unsigned char restarted; /* this process knew another run_id of it before (and its AOF is off) */
    /* its wall clock stepped forward by step_ms (more than the drift) since
     * the previous sample, seen at step_at_us on our clock (0: never) */
    uint64_t step_at_us;
    int64_t step_ms;
} rl_ident;

typedef struct rl_result {
    int state;
    int err;
    char reason[RL_REASON_LEN];
    rl_reply reply;
    uint64_t latency_us;
    int sent;    /* the command may have reached the node */
    int resent;  /* sent again on a new connection: the old one broke after the node may have run it */
    rl_ident id; /* of the server that answered (RL_ANSWERED) */
    /* set by the lock logic: > 0, this node answered but does not count
     * toward the quorum for that many ms more (it restarted without its
     * data, docs/api.md "Restarted nodes"); up_ms: how long it has been up */
    int64_t novote_ms, up_ms;
    int novote_clock; /* the reason is a clock step (up_ms: since the step), not a restart */
    /* > 0: past its grace, it waits for that many more voting nodes'
     * answers in one call to prove the longest TTL (novote_ms is then 1) */
    int novote_need;
} rl_result;
/* how a node past its grace that waits for other nodes' answers is named
 * (a QuorumException, stats(), redlock(1)): its uptime in s, the voters missing */
#define RL_NOVOTE_NEED_FMT "restarted %llu s ago, past its grace, votes when %u more voting nodes answer in one call"

/* ---- one command to all nodes ---- */
#define RL_MAX_ARGS 16
#define RL_RELEASE_ID_LEN 16

/* What a command does to a lock key, so the connection can keep a release in
 * order behind the SET it undoes (a stalled node gets no new SET, but always
 * the releases it owes). */
enum rl_op { RL_OP_OTHER = 0, RL_OP_SET, RL_OP_RELEASE };

typedef struct rl_cmd {
    int argc;
    const char *argv[RL_MAX_ARGS];
    size_t argvlen[RL_MAX_ARGS];
    /* For EVALSHA: the script, so a NOSCRIPT error is retried as EVAL. */
    const char *script;
    int op;        /* enum rl_op */
    uint64_t tag;  /* SET / RELEASE: rl_lock_tag(key, token) (rl_internal.h) */
    int nowait;    /* queue and write, do not wait for the replies (read and dropped later) */
    uint64_t skip; /* bit i set = not sent to node i (with nowait res[i] left RL_PENDING, else RL_FAILED; sent 0) */
    /* RL_OP_RELEASE: the release's random id, an argument of the script
     * (what its wake message carries instead of the token) */
    char id[RL_RELEASE_ID_LEN + 1];
    /* an acquisition with the restart check (rl_ctx.rs): the fan-out may
     * pipeline TIME ahead of it, at most once a second per connection */
    int clock_check;
} rl_cmd;

/* Called after every node outcome; return non-zero once the call's outcome
 * is decided, so the fan-out returns without waiting for the rest. */
typedef int (*rl_decide_fn)(void *ud, const rl_result *res, int n);

typedef struct rl_transport {
    /* Send cmd to all n nodes at once, fill res[0..n-1], return when decide()
     * says so or every node answered/failed/timed out. Returns 0 or -1 (OOM). */
    int (*fanout)(void *ctx, const rl_cmd *cmd, rl_result *res, int n, rl_decide_fn decide, void *ud);
    void *ctx;
} rl_transport;

/* ---- the RedLock algorithm over a transport ---- */
typedef struct rl_opts {
    int retry_count; /* extra attempts after the first */
    int retry_delay_ms;
    int retry_jitter_ms;
    int wait_ms; /* > 0: retry until this deadline instead of retry_count */
    double drift_factor;
    /* a caller-chosen token (16..128 bytes, no NUL) instead of a random one; NULL: random */
    const char *token;
    size_t token_len;
    /* fencing: the counter key (prefix . "\0redlock:fence"); NULL: no fence */
    const char *fence_key;
    size_t fence_keylen;
    /* with wait_ms and a waiter in the ctx: sleep until a release is announced
     * (or the retry timer runs out) instead of sleeping the whole delay */
    int wake_on_release;
    /* with wait_ms, one key, not shared (docs/api.md "Fair waiting"): queue in
     * ticket order (rl_script_acquire ARGV[7..9]) and be woken alone */
    int fair;
} rl_opts;

/* ---- waiting for a release (docs/api.md "Waiting"): injected like the clock ----
 * Waiters subscribe on every node to RL_WAKE_CHANNEL . key (it counts them),
 * to one of RL_WAKE_SHARDS group channels, RL_WAKE_CHANNEL . key . "\0" . g,
 * and to one of that group's RL_WAKE_SUBS shard channels, the group's name .
 * s (g, s the bytes '0' + the group's and the shard's number: the shard,
 * 0 .. RL_WAKE_SHARDS * RL_WAKE_SUBS - 1, picked at random per wait; a
 * group only counts its shards' waiters). A successful release, on each
 * node inside the release script, publishes only when someone waits, and
 * then to ONE shard that has subscribers (the same on every node: chosen
 * from the release's random id, rl_cmd.id; its group first, then the shard
 * in it): "<subscribers of that shard> <id>" (never the token: subscribers
 * must not learn it). So a release costs the server a few writes, not one
 * per waiter and node, and wakes about 1 + (n - 1) / 1024 of n waiters.
 * A waiter's own attempts announce a successful SET on its shard with
 * "acquired" (ARGV[3]: the shard's two bytes after the "\0").
 * A fair waiter (rl_opts.fair) listens on its own channel instead of a shard,
 * RL_WAKE_CHANNEL . key . "\0q" . its queue id (RL_FAIR_ID_LEN hex), and a
 * release where fair waiters queue tells only the first of them that listens. */
#define RL_WAKE_CHANNEL "redlock:released:"
#define RL_WAKE_SHARDS 32 /* groups */
#define RL_WAKE_SUBS 32   /* shards per group */
/* shard (0 .. RL_WAKE_SHARDS * RL_WAKE_SUBS - 1) -> its name after the "\0": two bytes and a NUL */
static inline void rl_wake_shard_name(int shard, char out[3])
{
    out[0] = (char)('0' + (shard / RL_WAKE_SUBS) % RL_WAKE_SHARDS);
    out[1] = (char)('0' + shard % RL_WAKE_SUBS);
    out[2] = '\0';
}
#define RL_FAIR_ID_LEN 16
enum rl_wake_kind {
    RL_WAKE_TIMER = 0, /* until_us came: expiry, a lost message, a node down */
    RL_WAKE_RELEASED,  /* a release of the key (once per release, not per node) */
    RL_WAKE_ACQUIRED   /* a waiter's SET on the key succeeded on a node */
};
typedef struct rl_wake {
    int kind;
    int waiters; /* RL_WAKE_RELEASED: subscribers of our shard when it was released (>= 1) */
    int cleanup; /* RL_WAKE_RELEASED: the release was a failed attempt's cleanup (RL_ID_CLEANUP) */
} rl_wake;
/* A failed attempt's cleanup marks its release id (16 bytes, the rest hex)
 * in its first byte: RL_ID_CLEANUP, or RL_ID_QUIET for the cleanup of an
 * attempt that a cleanup woke. Waiters ignore a quiet one: a waiter whose
 * attempts win the minority of nodes where a holder's key is gone (a SET
 * that reached a bare quorum, a node restarted empty, a release that came
 * after the attempt there) loses, and its cleanup frees those nodes again;
 * if that woke a waiter (itself, or another whose cleanup wakes the next),
 * the waiters would take turns at once, for as long as the holder holds.
 * A cleanup still wakes one waiter (after a split vote nobody holds, and
 * only a cleanup tells), but a chain ends there. Builds before the marks
 * read both as a plain id. */
#define RL_ID_CLEANUP 'z'
#define RL_ID_QUIET 'y'

typedef struct rl_waiter {
    /* start listening for releases of key on shard, or with fid (a fair
     * waiter's queue id, RL_FAIR_ID_LEN hex) on its own channel (SUBSCRIBE
     * written, not awaited); non-zero: cannot listen at all (then the retry
     * timer alone) */
    int (*subscribe)(void *ctx, const char *key, size_t keylen, int shard, const char *fid);
    /* wait, at most until until_us, for the subscriptions to be confirmed
     * (or refused, or their node gone) */
    void (*ready)(void *ctx, uint64_t until_us);
    /* sleep until an event of the key or until until_us; the event's kind */
    int (*wait)(void *ctx, uint64_t until_us, rl_wake *ev);
    /* without waiting: read what has come; the latest event since the last
     * wait/latest (RL_WAKE_TIMER: nothing new) */
    int (*latest)(void *ctx, rl_wake *ev);
    /* stop listening (UNSUBSCRIBE written, not awaited) */
    void (*unsubscribe)(void *ctx);
    void *ctx;
} rl_waiter;

/* ---- restart-safe quorum (docs/api.md "Restarted nodes"): per node list and prefix ----
 * A node whose server restarted without its data (AOF off) has forgotten
 * the locks it held: it answers, its SETs and releases are sent, but it does
 * not count toward the quorum until it has been up for the grace. See
 * HACKING.md "Restarted nodes" for the rules and why. */
#define RL_GRACE_AUTO (-1)
#define RL_MAXTTL_SUFFIX "\0redlock:maxttl" /* prefix . this: the longest TTL asked for, "<ms>:<created ms>" */
#define RL_MAXTTL_SUFFIX_LEN 15
/* node i is calm (on): its incarnation inc (with INFO known as known) voted
 * in a checked attempt, out of no grace and with no clock step, and its
 * maxttl key holds at least ttl ms */
typedef struct rl_calm {
    unsigned char on, known;
    uint32_t inc;
    int64_t ttl;
} rl_calm;

typedef struct rl_restart {
    int grace_ms;           /* RL_GRACE_AUTO, or > 0 ms (grace 0: no rl_restart at all) */
    const char *maxttl_key; /* prefix . RL_MAXTTL_SUFFIX */
    size_t maxttl_keylen;
    int64_t maxttl_ms;                /* the longest TTL the nodes reported so far */
    uint32_t ok_inc[RL_MAX_NODES];    /* node i votes: its incarnation (rl_ident.inc) was judged */
    uint32_t sus_inc[RL_MAX_NODES];   /* ... judged to have restarted empty (also once it votes) */
    uint32_t fence_inc[RL_MAX_NODES]; /* ... whose fence counter was raised to a quorum's */
    /* as of the last judgment: > 0 votes in that many ms (at judged_us), its uptime then */
    int64_t novote_ms[RL_MAX_NODES], up_ms[RL_MAX_NODES];
    uint64_t judged_us[RL_MAX_NODES];
    unsigned char novote_clock[RL_MAX_NODES];
    unsigned char novote_need[RL_MAX_NODES]; /* as rl_result.novote_need */
    /* calm: while every node is calm for a TTL, an attempt skips the maxttl
     * key (rl_acquire: a calm attempt); any change seen in its answers makes
     * it a checked attempt again */
    rl_calm calm[RL_MAX_NODES];
} rl_restart;

typedef struct rl_ctx {
    const rl_transport *tp;
    const rl_clock *clock;
    const rl_random *rnd;
    int n;                   /* nodes */
    const rl_waiter *waiter; /* NULL: wait by sleeping retry_delay + jitter */
    rl_restart *rs;          /* NULL: restart checks off (restart_grace 0: every answer votes) */
} rl_ctx;

static inline int rl_quorum(int n) { return n / 2 + 1; }

enum rl_outcome {
    RL_ACQUIRED = 0, /* lock held: validity > 0 on a quorum */
    RL_CONFLICT,     /* nodes answered but someone else holds it, or validity <= 0, or wait ran out */
    RL_NO_QUORUM,    /* fewer than a quorum of nodes answered at all */
    RL_RELEASED,     /* release: a quorum confirmed deletion of our token */
    RL_EXTENDED,     /* extend: a quorum confirmed the new TTL for our token */
    RL_LOST,         /* release/extend: answered, but our token is gone on too many */
    RL_YES,          /* is_locked, is_held */
    RL_NO,
    RL_ERROR,       /* out of memory or bad arguments */
    RL_SAME_SERVER, /* two nodes of the call turned out to be one server: no lock granted */
    RL_LIMIT        /* rl_acquire_permit: the nodes hold permits of this resource under another limit */
};

typedef struct rl_lock_info {
    char token[RL_TOKEN_MAX + 1];
    size_t token_len;
    int64_t fence;       /* with opts.fence_key: the fencing token (> 0), else 0 */
    uint64_t start_us;   /* clock before the first SET of the winning attempt */
    int64_t validity_ms; /* ttl - elapsed - drift; valid until start_us + ttl - drift */
    uint64_t valid_until_us;
    int attempts;
    int wakeups; /* waits between attempts that a release announcement ended before their timer */
    int ok;      /* nodes that confirmed */
} rl_lock_info;

/* Per-call results, for failure messages and stats. */
typedef struct rl_call {
    rl_result res[RL_MAX_NODES];
    int answered, ok, failed;
} rl_call;

/* Why a node's result does not count (lock/rl_stats.c): failed, its reason (or
 * its error's name); answered but out of the quorum (novote_ms or
 * novote_need > 0), why (README "Restarted nodes": "restarted N s ago, votes
 * in M s", "clock stepped forward N s ago, votes in M s", RL_NOVOTE_NEED_FMT);
 * else "" (it counts, or its answer was not awaited). The one place such a reason is worded: the message below
 * and the extension's stats() take it from here. Into buf as snprintf does;
 * returns the reason's length (0: none). */
size_t rl_result_why(const rl_result *r, char *buf, size_t len);
/* The message of a call that reached no quorum, the CLI's and the
 * extension's: "WHAT: could not reach a quorum (Q of N nodes needed, A
 * answered): NAME WHY; NAME WHY; not awaited: NAME, NAME" -- each node that
 * does not count with why (rl_result_why), then those whose answer the call
 * did not wait for. names[i]: node i's name, never a password. Into buf as
 * snprintf does (buf NULL and len 0: the length only); returns the length. */
size_t rl_quorum_message(char *buf, size_t len, const char *what, const rl_call *call, int n, const char *const *names);

int rl_acquire(const rl_ctx *c, const char *key, size_t keylen, int ttl_ms, const rl_opts *o, rl_lock_info *info,
               rl_call *call);
int rl_release(const rl_ctx *c, const char *key, size_t keylen, const char *token, rl_call *call);
/* A semaphore's permit asked of the nodes: key (prefix . resource), its
 * limit (1..RL_MAX_PERMITS) and, to acquire one, its weight (1..limit) and
 * TTL. */
#define RL_MAX_PERMITS 1024
typedef struct rl_permit_req {
    const char *key;
    size_t keylen;
    int limit, weight, ttl_ms;
} rl_permit_req;
/* what a permit call gave */
typedef struct rl_permit_got {
    char *slots; /* RL_ACQUIRED: the key list of its slots (malloc'd, the caller frees), else NULL */
    size_t slotslen;
    int other_limit; /* rl_acquire_permit RL_LIMIT: the limit the nodes hold permits under */
    int found;       /* rl_find_permit RL_ACQUIRED: how many slots */
} rl_permit_got;
/* One permit of req's semaphore: weight slots that one quorum of the same
 * nodes holds together (HACKING.md "Semaphores"). RL_ACQUIRED: got->slots,
 * which rl_release/rl_extend/rl_is_held and the watchdog take like any key;
 * RL_LIMIT: got->other_limit. o->token must be NULL (no caller-chosen
 * token). */
int rl_acquire_permit(const rl_ctx *c, const rl_permit_req *req, const rl_opts *o, rl_lock_info *info,
                      rl_permit_got *got, rl_call *call);
/* restore() of a permit: the slots of req's semaphore (req->limit slots)
 * that hold token on a quorum of the same nodes, asked of every node.
 * RL_ACQUIRED: got->slots their key list, got->found how many; RL_LOST:
 * none; RL_NO_QUORUM: fewer than a quorum answered. */
int rl_find_permit(const rl_ctx *c, const rl_permit_req *req, const char *token, size_t token_len, rl_permit_got *got,
                   rl_call *call);
/* info holds the lock's current validity and is updated on every outcome:
 * RL_EXTENDED: the new validity. Otherwise it never grows: 0 when the nodes
 * answered that our token is gone on so many that no quorum holds it, when
 * the new validity came out <= 0, or on RL_SAME_SERVER; else
 * min(old end, start of the extend + ttl - drift), as every node that ran
 * the PEXPIRE (also one we did not wait for) now expires the key then. */
int rl_extend(const rl_ctx *c, const char *key, size_t keylen, const char *token, int ttl_ms, double drift_factor,
              rl_lock_info *info, rl_call *call);
int rl_is_locked(const rl_ctx *c, const char *key, size_t keylen, rl_call *call);
/* isHeld(): GET on every node compared with token; RL_YES when a quorum hold it,
 * RL_NO when not, RL_NO_QUORUM when fewer than a quorum answered. */
int rl_is_held(const rl_ctx *c, const char *key, size_t keylen, const char *token, size_t token_len, rl_call *call);
/* forceRelease(): DEL on every node whatever the token; RL_RELEASED when a quorum answered. */
int rl_force_release(const rl_ctx *c, const char *key, size_t keylen, rl_call *call);

/* ms left on a lock (0 once expired) */
int64_t rl_remaining_ms(const rl_lock_info *info, uint64_t now_us);

/* ---- real nodes: connections and the socket fan-out ---- */
typedef struct rl_latency {
    uint64_t count, max_us;
    uint32_t bucket[128]; /* quarter-octave buckets: see lock/rl_stats.c */
} rl_latency;

typedef struct rl_node_stats {
    uint64_t ok, errors, timeouts, skipped, connects;
    char last_error[RL_REASON_LEN];
    rl_latency lat;
} rl_node_stats;

typedef struct rl_conn rl_conn;

/* A connection to one node; opened lazily by the fan-out, kept for reuse.
 * conf is copied. */
rl_conn *rl_conn_new(const rl_node_conf *conf);
void rl_conn_free(rl_conn *conn);  /* closes, frees */
void rl_conn_close(rl_conn *conn); /* closes the socket, keeps stats */
int rl_conn_is_open(const rl_conn *conn);
/* EVALSHAs whose reply is still due (a NOSCRIPT there is retried when read). */
int rl_conn_late_scripts(const rl_conn *conn);
const rl_node_conf *rl_conn_conf(const rl_conn *conn);
/* dst (made with src's settings) uses src's TLS context: its CA store and
 * client key, loaded once. A connection wipes its TLS passphrase once its key
 * is loaded, so a copy of its settings made later can load no key of its
 * own. No-op without TLS, or when src has no context yet. */
void rl_conn_tls_share(rl_conn *dst, const rl_conn *src);
/* Timeouts are the caller's (a pooled connection serves several callers). */
void rl_conn_set_timeouts(rl_conn *conn, int connect_timeout_ms, int timeout_ms);
const rl_node_stats *rl_conn_stats(const rl_conn *conn);
/* What the connection knows of its server (rl_ident). */
void rl_conn_ident(const rl_conn *conn, rl_ident *out);
/* Non-blocking check before reuse: EOF, error or stray bytes with nothing
 * pending close the socket. Returns 1 if the connection is still open. */
int rl_conn_check(rl_conn *conn);

/* The socket fan-out over an array of connections. */
typedef struct rl_net {
    rl_conn **conns;
    int n;
    const rl_clock *clock;
    /* poll(2), or a test's stand-in; NULL: poll */
    int (*poll_fn)(struct pollfd *fds, nfds_t nfds, int timeout_ms);
} rl_net;
int rl_net_fanout(void *net, const rl_cmd *cmd, rl_result *res, int n, rl_decide_fn decide, void *ud);

/* Wait, at most max_us, until every connection has written what it holds
 * (connects and AUTH/SELECT gates resolved on the way) and read the replies
 * still in flight. Used at request end, so releases go out before the
 * process moves on. Any number of connections (a pool may hold more than
 * RL_MAX_NODES). */
void rl_net_drain(rl_net *net, uint64_t max_us);
/* Something is still unwritten or unanswered on this connection: closing it
 * now could drop a release or let an older SET land after it. */
int rl_conn_busy(const rl_conn *conn);
/* Bytes not yet written (a connect in progress, an AUTH/SELECT gate, a full
 * socket): a release among them reaches the node only once they are. */
int rl_conn_unsent(const rl_conn *conn);

/* ---- subscriber connections and the waiter over them (rl_wait.c) ----
 * Separate from the command connections (a subscribed connection takes no
 * other command): one per node, opened when first needed, kept for reuse.
 * Same handshake (TLS, AUTH, SELECT), no scripts. */
rl_conn *rl_conn_new_subscriber(const rl_node_conf *conf);

typedef struct rl_subs {
    rl_net net; /* the subscriber connections, one per node of the call */
    /* the key's channel, then "\0" and the shard's two bytes (the first: its
     * group; or "q" and the fair id) */
    char chan[sizeof(RL_WAKE_CHANNEL) + RL_MAX_KEY + 2 + RL_FAIR_ID_LEN];
    size_t chanlen;  /* of the key's channel */
    size_t shardlen; /* of what follows it: 3, or 2 + RL_FAIR_ID_LEN */
    int grouped;     /* a shard's: its group channel (chan, chanlen + 2) too */
    uint64_t chan_hash, group_hash, shard_hash;
    uint64_t last_release;    /* id of the release last reported (one per release, not per node) */
    uint64_t last_seen;       /* nodes that announced the release last reported */
    uint64_t counting;        /* id of the release whose messages are being counted (0: none) */
    int counting_cleanup;     /* it is a failed attempt's cleanup (RL_ID_CLEANUP) */
    uint64_t listen_counting; /* counting when the current listen began (rl_wait.c has_event) */
    uint64_t seen;            /* nodes that announced it (bit i: node i) */
    uint64_t seen_first_us;
    int seen_waiters;
    rl_wake ev;                          /* pending event, kind RL_WAKE_TIMER when none */
    int on;                              /* subscribed (between subscribe and unsubscribe) */
    unsigned char pending[RL_MAX_NODES]; /* channels of SUBSCRIBE written, not confirmed yet */
    unsigned char wanted[RL_MAX_NODES];  /* subscribed or to be (re)subscribed on this node */
    /* a key list (RL_KEY_LIST): every key's channel, group channel and shard
     * channel (list_hash[3k], [3k + 1], [3k + 2]); list: the caller's key,
     * alive while it waits */
    int nlist;
    const char *list;
    size_t listlen;
    char shard[3];
    uint64_t list_hash[3 * RL_MAX_LIST];
} rl_subs;
/* s over conns[0..n) (subscriber connections); *w gets the waiter to put in an rl_ctx */
void rl_subs_init(rl_subs *s, rl_conn **conns, int n, const rl_clock *clock, rl_waiter *w);

/* Serve conns (connects, handshakes, writes, replies, pushes) until stop(ud)
 * says so or until until_us. */
void rl_net_listen(rl_net *net, uint64_t until_us, int (*stop)(void *ud), void *ud);

/* ---- the watchdog (auto_extend): lock/rl_watchdog.c ---- */
/* One background thread per process, started by the first rl_watch_start().
 * It owns its own connections to the nodes (made from copies of the confs
 * given, shared by the watches of one node list, and kept for the next
 * watches of that list until unused for 60 s; it never looks a host name
 * up: the addresses come from rl_watch_start), keeps the watched locks
 * ordered by when they are due, and extends each by its ttl once a third of
 * the ttl has passed since the last successful extension (rl_extend: the
 * token-checked script, the quorum and validity rule of extend()). The first
 * extension that fails ends the watch: the lock is lost (validity 0). It
 * blocks every signal. A forked child has no watchdog: its copies of the
 * parent's watches are stopped (RL_WATCH_FORKED) and the parent goes on
 * extending them. Every function is thread-safe. */
#define RL_WATCH_REASON_LEN 512

enum rl_watch_state {
    RL_WATCH_ACTIVE = 0, /* being extended */
    RL_WATCH_STOPPED,    /* rl_watch_stop() or rl_watchdog_shutdown(): no extension after that */
    RL_WATCH_MAX_HOLD,   /* max_hold reached: no more extensions, the lock expires by its TTL */
    RL_WATCH_LOST,       /* an extension failed (reason says why): validity 0 */
    RL_WATCH_FORKED      /* a copy inherited by fork(): the parent's watchdog extends it */
};

typedef struct rl_watch rl_watch;

typedef struct rl_watch_spec {
    const rl_node_conf *confs; /* the lock's nodes, in the order of the acquiring call (copied) */
    /* optional: the caller's connections to them, same order: their resolved
     * addresses are handed over (the thread never looks a name up; without
     * one, rl_watch_start resolves it in the caller's thread) */
    rl_conn *const *conns;
    int n;
    const char *key;
    size_t keylen;
    const char *token; /* NUL-terminated */
    int ttl_ms;        /* extended by this */
    double drift_factor;
    int64_t max_hold_ms; /* > 0: no extension once this long has passed since info->start_us */
    int persistent;      /* its connections may outlive rl_watchdog_drop_idle() (kept 60 s unused) */
    /* restart_grace != 0: extensions raise the maxttl key of key's first
     * prefix_len bytes and repair the key on restarted nodes, as extend() */
    int restart_grace;
    size_t prefix_len;
    /* A watch that never extends (no connections, no lookup): it only ends,
     * as lost, when info->valid_until_us passes (a lock without auto_extend
     * whose holder wants to hear of its end). */
    int deadline_only;
    /* optional: called by the watchdog thread, under its mutex (so: set a
     * flag, wake a thread, nothing that blocks or calls rl_watch_*), when the
     * watch itself finds the lock lost: a failed extension, the validity's
     * end. With it, max_hold stops the extensions but the watch goes on to
     * the validity's end (then lost). Never after rl_watch_stop() returns,
     * never for a loss found by rl_watch_resume() (the caller's extend()). */
    void (*on_lost)(void *arg);
    void *on_lost_arg;
} rl_watch_spec;

typedef struct rl_watch_status {
    int state; /* enum rl_watch_state */
    int ttl_ms;
    uint64_t valid_until_us;          /* rl_clock_monotonic; 0 once lost */
    uint64_t extensions;              /* successful ones */
    char reason[RL_WATCH_REASON_LEN]; /* RL_WATCH_LOST: why (node names, never a password) */
} rl_watch_status;

/* Watch a lock just acquired (info from rl_acquire). Returns a handle holding
 * one reference (rl_watch_unref), or NULL when memory or the thread could not
 * be had (the lock is then not watched). */
rl_watch *rl_watch_start(const rl_watch_spec *spec, const rl_lock_info *info);
/* Stop extending: once it returns no extension of this lock is sent any more
 * (an extension in flight is waited for). Idempotent. */
void rl_watch_stop(rl_watch *w);
void rl_watch_ref(rl_watch *w);
void rl_watch_unref(rl_watch *w);
void rl_watch_status_get(rl_watch *w, rl_watch_status *st);
/* ms of validity left now (rl_clock_monotonic), following the last
 * successful extension; 0 once lost */
int64_t rl_watch_remaining_ms(rl_watch *w);
/* The caller extends the lock itself (Lock::extend()): pause waits for an
 * extension in flight and holds the next ones; it returns the state and the
 * lock's current validity in info (valid_until_us, start_us). resume must
 * follow, with the caller's rl_extend outcome and the info it updated: on
 * RL_EXTENDED the watch goes on with the new ttl; otherwise validity only
 * shrinks, and 0 validity ends the watch as lost. */
int rl_watch_pause(rl_watch *w, rl_lock_info *info);
void rl_watch_resume(rl_watch *w, int outcome, int ttl_ms, const rl_lock_info *info);
/* Successful watchdog extensions in this process. */
uint64_t rl_watchdog_extended(void);
/* Watched locks not yet stopped, and whether the thread runs (for tests). */
int rl_watchdog_active(int *thread_running);
/* Close the connections no watch uses now, but those of persistent watches
 * (a request's end, for connections that must not outlive it). */
void rl_watchdog_drop_idle(void);
/* Node sets (their connections) kept, *idle of them with no watch (for tests). */
int rl_watchdog_sets(int *idle);
/* How long a node set with no watch keeps its connections (tests; <= 0: the default, 60 s). */
void rl_watchdog_set_idle_ms(int ms);
/* Stop every watch and join the thread (module shutdown, program exit). */
void rl_watchdog_shutdown(void);
/* A one-shot timer of the watchdog thread, in the caller's storage (zeroed
 * before its first use; cb and arg set by the caller): about delay_us after
 * rl_watchdog_poke(), the thread calls cb(arg) once, under its mutex (so: set
 * a flag, wake a thread, nothing that blocks or calls rl_watch*). Poking an
 * armed timer keeps its time. After rl_watchdog_poke_cancel() returns, cb is
 * not running and will not run: cancel before the storage goes away. A
 * forked child inherits none armed. Returns -1 when the thread could not be
 * started (the timer is then not armed). */
typedef struct rl_poke {
    void (*cb)(void *arg);
    void *arg;
    /* the watchdog's, under its mutex */
    uint64_t at_us;
    int armed;
    struct rl_poke *prev, *next;
} rl_poke;
int rl_watchdog_poke(rl_poke *p, uint64_t delay_us);
void rl_watchdog_poke_cancel(rl_poke *p);

uint64_t rl_latency_percentile(const rl_latency *l, double p);
void rl_latency_merge(rl_latency *into, const rl_latency *from);

#ifdef __cplusplus
}
#endif
#endif
