/* php_redlock_int.h -- what the files of the extension share: options, nodes, pool, groups, objects. */
#ifndef PHP_REDLOCK_INT_H
#define PHP_REDLOCK_INT_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>

#include "php.h"
#include "php_ini.h"
#include "zend_exceptions.h"

#include "php_redlock.h"
#include "redlock_core/rl.h"

#define REDLOCK_MAX_RESOURCE 512
#define REDLOCK_MAX_PREFIX 512
#define REDLOCK_MAX_RETRY_COUNT 10000

/* ---------- class entries (redlock.c registers them) ---------- */

extern zend_class_entry *php_redlock_ce;
extern zend_class_entry *php_redlock_lock_ce;
extern zend_class_entry *php_redlock_exception_ce;
extern zend_class_entry *php_redlock_quorum_ce;
extern zend_class_entry *php_redlock_conflict_ce;
extern zend_class_entry *php_redlock_lost_ce;

/* ---------- options (redlock_options.c), made from REDLOCK_OPTIONS in php_redlock.h ---------- */

#define REDLOCK_OPT_TYPE_LONG zend_long
#define REDLOCK_OPT_TYPE_DOUBLE double
#define REDLOCK_OPT_TYPE_BOOL bool
#define REDLOCK_OPT_TYPE_STRING zend_string *
#define REDLOCK_OPT_TYPE_TLS HashTable * /* validated settings (php_redlock_tls_parse), or NULL */
#define REDLOCK_OPT_TYPE_LOST zval /* UNDEF: not given, NULL: off, TRUE: 'throw', else the callable */
#define REDLOCK_OPT_TYPE_GRACE zend_long /* restart_grace: ms >= 0, or RL_GRACE_AUTO ('auto') */

/* The options of one RedLock or one call. */
typedef struct php_redlock_opts {
#define X(name, type, where, ini, min, max) REDLOCK_OPT_TYPE_##type name;
    REDLOCK_OPTIONS(X)
#undef X
} php_redlock_opts;

typedef enum php_redlock_opt_id {
#define X(name, type, where, ini, min, max) REDLOCK_OPT_##name,
    REDLOCK_OPTIONS(X)
#undef X
    REDLOCK_OPT_COUNT
} php_redlock_opt_id;

typedef enum { REDLOCK_LONG, REDLOCK_DOUBLE, REDLOCK_BOOL, REDLOCK_STRING, REDLOCK_TLS, REDLOCK_LOST, REDLOCK_GRACE } php_redlock_opt_type;

/* where an option may be given: bits of php_redlock_opt_def.where */
enum { REDLOCK_IN_CTOR = 1, REDLOCK_IN_CALL = 2 };
#define REDLOCK_WHERE_CTOR REDLOCK_IN_CTOR
#define REDLOCK_WHERE_CALL (REDLOCK_IN_CTOR | REDLOCK_IN_CALL)
#define REDLOCK_WHERE_PERCALL REDLOCK_IN_CALL

typedef struct php_redlock_opt_def {
    const char *name;
    php_redlock_opt_type type;
    int where;     /* REDLOCK_IN_* bits */
    size_t offset; /* in php_redlock_opts */
    zend_long min, max;
} php_redlock_opt_def;

extern const php_redlock_opt_def php_redlock_opt_defs[REDLOCK_OPT_COUNT];

/* The INI defaults (a fresh copy: free with php_redlock_opts_free). */
void php_redlock_opts_from_ini(php_redlock_opts *o);
/* o, plus an extra reference to what it owns (a per-call copy). */
void php_redlock_opts_copy(php_redlock_opts *to, const php_redlock_opts *from);
void php_redlock_opts_free(php_redlock_opts *o);
/* Apply an options array over o; where is REDLOCK_IN_CTOR or REDLOCK_IN_CALL. Throws
 * and returns FAILURE on bad input; the message names the option. */
zend_result php_redlock_opts_apply(php_redlock_opts *o, HashTable *ht, uint32_t argn, int where);

/* TLS settings (REDLOCK_TLS_SETTINGS): the "tls" option and a node's "tls" array.
 * Parse validates in (unknown keys, types, files that cannot be read: a
 * \ValueError "<what> setting "x" ...") into a fresh array: name => absolute
 * path | string | null | bool, the passphrase in a string of its own. */
HashTable *php_redlock_tls_parse(HashTable *in, uint32_t argn, const char *what);
/* Release a parsed array (the passphrase is wiped when the last reference goes). */
void php_redlock_tls_release(HashTable *settings);
/* Apply parsed settings over t, setting by setting (strings malloc'd); FAILURE only when out of memory. */
zend_result php_redlock_tls_apply(rl_tls_conf *t, HashTable *settings);

/* INI validators, one per option type; mh_arg3 is the option's php_redlock_opt_def. */
ZEND_INI_MH(php_redlock_ini_update_LONG);
ZEND_INI_MH(php_redlock_ini_update_DOUBLE);
#define php_redlock_ini_update_BOOL OnUpdateBool
ZEND_INI_MH(php_redlock_ini_update_STRING);
ZEND_INI_MH(php_redlock_ini_update_LOST);
ZEND_INI_MH(php_redlock_ini_update_GRACE);

/* ---------- pool-wide metrics (redlock_metrics.c, README "RedLock::metrics()"; the table:
 * redlock_metrics_table.c; RedLock::metrics() and phpinfo(): redlock_metrics_text.c) ----------
 * One fixed table in shared memory for the processes of one user: php-fpm's
 * workers of that user (a file only that user can open), or a process and its
 * children; every thread of a ZTS process uses it. Bound at each process'
 * first RINIT, never inherited across users; with redlock.metrics=0, a table
 * of this process only. Every update is a relaxed atomic add: no lock, no
 * system call. */

/* the pool's counters (redlock_*_total) */
enum php_redlock_metric {
    REDLOCK_M_ACQ_EXCLUSIVE,    /* acquisitions by mode */
    REDLOCK_M_ACQ_SHARED,       /* (read locks: reserved) */
    REDLOCK_M_ACQ_PERMIT,       /* semaphore() permits */
    REDLOCK_M_CONFLICTS,        /* lock() calls that returned null */
    REDLOCK_M_QUORUM_FAILURES,  /* QuorumExceptions */
    REDLOCK_M_LOST,             /* auto_extend locks the watchdog lost */
    REDLOCK_M_RELEASES,         /* releases a quorum confirmed */
    REDLOCK_M_EXTENSIONS,       /* successful extend() calls */
    REDLOCK_M_AUTO_EXTENSIONS,  /* successful watchdog extensions */
    REDLOCK_M_ATTEMPTS,         /* acquisition attempts sent (rl_lock_info.attempts) */
    REDLOCK_M_WAKEUPS,          /* waits a release ended before their timer (rl_lock_info.wakeups) */
    REDLOCK_M_COUNT
};

/* What a pooled command connection has already reported to the table: its
 * node's slot (an rlm_node of the table), its counters (rl_conn_stats(), a
 * pointer into the connection for its life) and their values when last looked at. */
typedef struct php_redlock_mseen {
    void *node;
    const rl_node_stats *st;
    uint64_t ok, errors, timeouts;
} php_redlock_mseen;

/* MINIT (after the INI entries) and MSHUTDOWN */
void php_redlock_metrics_startup(void);
void php_redlock_metrics_shutdown(void);
/* RINIT, first: binds this process' table at its first request (and after a fork or a change of euid);
 * true when it bound a new one: the pool's connections then count into it (php_redlock_pool_retrack) */
bool php_redlock_metrics_rinit(void);
void php_redlock_metrics_add(enum php_redlock_metric m, uint64_t n);
/* the slot of a resource's prefix (found or claimed; the "other" slot when the table is
 * full): what the per-resource calls below take. resource: as given, without the group's prefix */
int php_redlock_metrics_resource(const char *resource, size_t len);
/* the same of a lock's key: the group's prefix (pl bytes) . resource, or a key list (its first
 * key), or a permit's slot list (its resource) */
int php_redlock_metrics_key_resource(const zend_string *key, size_t pl);
/* an exclusive acquisition of resource slot res that took wait_us from the lock() call */
/* mode: 0 exclusive, 1 permit, 2 shared */
void php_redlock_metrics_acquired(uint64_t wait_us, int mode, int res);
/* a lock() call that returned null */
void php_redlock_metrics_conflict(int res);
/* a release a quorum confirmed of a lock acquired at acquired_us (rl_clock_monotonic;
 * 0: restored, its acquisition not ours: no hold time) */
void php_redlock_metrics_released(uint64_t acquired_us, int res);
/* a watched lock (auto_extend, on_lost) lost */
void php_redlock_metrics_lost(int res);
struct php_redlock_pooled;
/* a new command connection of the pool: its node's slot (claimed when the name is
 * new; the "other" slot when the table is full) into p->mseen */
void php_redlock_metrics_track(struct php_redlock_pooled *p);
/* after php_redlock_metrics_rinit() bound a new table: p's node slot in it */
void php_redlock_metrics_retrack(struct php_redlock_pooled *p);
/* the group's transport: rl_net_fanout over g->net, then each node's results into the table */
int php_redlock_metrics_fanout(void *group, const rl_cmd *cmd, rl_result *res, int n, rl_decide_fn decide, void *ud);
/* what command connection p counted since it last reported (replies read at request end);
 * the pool reports each (php_redlock_pool_report) */
void php_redlock_metrics_report(struct php_redlock_pooled *p);
/* the watchdog's extensions this process has not reported yet */
void php_redlock_metrics_report_watchdog(void);
void php_redlock_metrics_info(void); /* phpinfo() rows (redlock_metrics_text.c) */

/* ---------- nodes, the connection pool and groups (redlock_nodes.c) ---------- */

/* Every key of a node given as an array, once: X(key, type, rl_node_conf field, limit)
 *   type   STRING          a string (no NUL)
 *          STRING_OR_NULL  a string, or null for none
 *          SECRET          a string, or null or "" for none
 *          INT, BOOL
 *          TLS             a bool, or an array of TLS settings (REDLOCK_TLS_SETTINGS) that turns TLS on
 *   limit  the rl_node_check() field whose limits apply (redlock_core/net/rl_uri.c) */
#define REDLOCK_NODE_KEYS(X)                                                 \
    X(host,            STRING,         host,               RL_FIELD_HOST)    \
    X(port,            INT,            port,               RL_FIELD_PORT)    \
    X(socket,          STRING,         socket,             RL_FIELD_SOCKET)  \
    X(timeout,         INT,            timeout_ms,         RL_FIELD_TIMEOUT) \
    X(connect_timeout, INT,            connect_timeout_ms, RL_FIELD_TIMEOUT) \
    X(user,            STRING_OR_NULL, user,               RL_FIELD_USER)    \
    X(password,        SECRET,         password,           RL_FIELD_PASSWORD) \
    X(database,        INT,            database,           RL_FIELD_DATABASE) \
    X(tls,             TLS,            tls,                RL_FIELD_NONE)

/* A connection of this worker, kept across requests (REDLOCK_G(pool)). */
typedef struct php_redlock_pooled {
    rl_conn *conn;
    uint64_t last_request; /* checked once per request before reuse */
    bool persistent;
    bool sub; /* a subscriber connection (waits with wake_on_release) */
    char name[128];
    char *ident; /* its key in the pool (pool_identity(): no secret in it) */
    php_redlock_mseen mseen; /* command connections: what the metrics table has of it */
    /* as a group judged it at its last call (docs/api.md "Restarted nodes"):
     * out of the quorum until nv_until_us, restarted at nv_since_us (0: votes) */
    uint64_t nv_until_us, nv_since_us;
    bool nv_clock; /* the reason: a clock step (since: the step), not a restart */
    /* > 0: past its grace, out until that many more voting nodes answer in
     * one call (rl_result.novote_need), whatever the time */
    unsigned char nv_need;
    /* calm (rl_restart.calm) as the last lock() with this maxttl key,
     * restart_grace and drift_factor left it: a later RedLock of the same
     * settings (the next request) starts from it. Each calm attempt checks
     * every answer's incarnation and clock, so a stale entry costs one
     * checked attempt, never a vote (lock/rl_restart.c calm_mask). */
    rl_calm calm;
    int calm_grace;
    double calm_drift;
    uint64_t calm_nodes; /* the node list it was judged in (redlock_nodes.c nodes_key) */
    size_t calm_keylen;
    char calm_key[REDLOCK_MAX_PREFIX + RL_MAXTTL_SUFFIX_LEN];
} php_redlock_pooled;

/* ---------- the connection pool (redlock_pool.c: no other file touches REDLOCK_G(pool)) ---------- */
void php_redlock_pooled_dtor(zval *zv);
void php_redlock_pool_ginit(HashTable *pool);
void php_redlock_pool_gshutdown(HashTable *pool);
/* MINIT: the random key of the pool keys' keyed hash */
zend_result php_redlock_pool_key_init(void);
/* the pooled command connection of conf's settings (made when there is none), or NULL */
php_redlock_pooled *php_redlock_pool_get(const rl_node_conf *conf, bool persistent);
/* the subscriber connection next to the command connection cmd, or NULL */
php_redlock_pooled *php_redlock_pool_get_sub(const php_redlock_pooled *cmd);
/* fn(p, ctx) for every pooled connection (subscribers too: p->sub) */
typedef void (*php_redlock_pool_fn)(php_redlock_pooled *p, void *ctx);
void php_redlock_pool_each(php_redlock_pool_fn fn, void *ctx);
/* into the metrics table: what every command connection counted since it last reported,
 * and the watchdog's extensions (request end, metrics(), phpinfo()) */
void php_redlock_pool_report(void);
/* each command connection's node slot in the table php_redlock_metrics_rinit() has just bound */
void php_redlock_pool_retrack(void);
uint32_t php_redlock_pool_size(void);
/* for phpinfo(): connections in the pool, and of them open */
void php_redlock_pool_counts(uint32_t *pooled, uint32_t *open);

/* A group of nodes: shared by a RedLock and the locks it made. */
typedef struct php_redlock_group {
    uint32_t refcount;
    int n;
    php_redlock_opts opts;
    int connect_timeout[RL_MAX_NODES], timeout[RL_MAX_NODES];
    rl_node_conf conf[RL_MAX_NODES]; /* without passwords: for nodes() */
    php_redlock_pooled *pooled[RL_MAX_NODES];
    rl_conn *conns[RL_MAX_NODES];
    rl_net net;
    rl_transport tp;
    rl_ctx ctx;
    /* subscriber connections, taken from the pool at the first wait that wakes on release */
    php_redlock_pooled *sub_pooled[RL_MAX_NODES];
    rl_conn *subs[RL_MAX_NODES];
    rl_subs waiting;
    rl_waiter waiter;
    /* restart_grace != 0 (docs/api.md "Restarted nodes"): what this node list and
     * prefix judged of its nodes' restarts; ctx.rs points here */
    rl_restart rs;
    char maxttl_key[REDLOCK_MAX_PREFIX + RL_MAXTTL_SUFFIX_LEN];
} php_redlock_group;

/* Parse the $nodes argument (argument 1 of the constructor) into g, with
 * connections from the pool. Throws and returns FAILURE on bad input. */
zend_result php_redlock_group_nodes(php_redlock_group *g, HashTable *nodes);
void php_redlock_group_release(php_redlock_group *g);
/* Before each call on the group's nodes. */
void php_redlock_group_prepare(php_redlock_group *g);
/* After an acquisition: what it judged of restarted nodes, for stats(). */
void php_redlock_group_votes(php_redlock_group *g);
/* The group's subscriber connections (from the pool, opened by the core when
 * first used); g->ctx.waiter set. false when out of memory. */
bool php_redlock_group_subscribers(php_redlock_group *g);
/* After a wait: with persistent => false, subscriber connections are closed. */
void php_redlock_group_wait_done(php_redlock_group *g);
/* A QuorumException naming the nodes that failed, and those not awaited. */
void php_redlock_throw_quorum(php_redlock_group *g, const rl_call *call, const char *what);
/* When two nodes of the call proved to be one server: a RedLock\Exception, true. */
bool php_redlock_throw_same_server(php_redlock_group *g, const rl_call *call, int outcome, const char *what);

/* ---------- class RedLock (redlock_class.c; the methods that acquire: redlock_acquire.c) ---------- */

typedef struct php_redlock_obj {
    php_redlock_group *g;
    /* the constructor's on_lost (g->opts.on_lost stays UNDEF): a callable
     * kept here, where the object's get_gc shows it, so that a callable
     * holding its own RedLock is a cycle gc_collect_cycles() can free (the
     * group is shared with the object's locks: no object could report it) */
    zval on_lost;
    zend_object std;
} php_redlock_obj;

static inline php_redlock_obj *php_redlock_from_obj(zend_object *o)
{
    return (php_redlock_obj *)((char *)o - XtOffsetOf(php_redlock_obj, std));
}
#define Z_REDLOCK_P(zv) php_redlock_from_obj(Z_OBJ_P(zv))

/* The group of a RedLock method's $this, or NULL when it threw (not constructed). */
static inline php_redlock_group *php_redlock_this_group(zval *this_zv)
{
    php_redlock_obj *o = Z_REDLOCK_P(this_zv);
    if (!o->g) zend_throw_error(NULL, "RedLock object is not initialized");
    return o->g;
}

void php_redlock_class_init(zend_class_entry *ce);

/* ---------- a call's arguments and keys (redlock_keys.c) ---------- */

/* $resource: 1 to REDLOCK_MAX_RESOURCE bytes, no NUL. */
zend_result php_redlock_check_resource(zend_string *res, uint32_t argn);
/* The TTL argument of lock(), synchronized() and extend(): 1 ... INT32_MAX. */
zend_result php_redlock_check_ttl(zend_long ttl, uint32_t argn);
/* g's prefix . resource (a new string). */
zend_string *php_redlock_key(php_redlock_group *g, zend_string *resource);
/* A read lock's key (docs/api.md "Read locks"): key (a key or a list, released) as a shared key list. */
zend_string *php_redlock_shared_key(zend_string *key);
/* lockAll()'s (or restore()'s "resources") list as one key list; NULL when it threw
 * (argument argn; what: the message's start, "" or the option's name). */
zend_string *php_redlock_key_list(php_redlock_group *g, HashTable *resources, uint32_t argn, const char *what);
/* the resources of a list, as a fresh packed array in their order */
HashTable *php_redlock_resource_list(HashTable *resources);

/* ---------- class RedLock\Lock and the held-lock list (redlock_lock.c) ---------- */

/* Property slots of RedLock\Lock, in the order redlock.stub.php declares them. */
#define REDLOCK_LOCK_PROPS(X) \
    X(RESOURCE, resource)     \
    X(TOKEN, token)           \
    X(TTL, ttl)               \
    X(FENCE, fence)           \
    X(RESOURCES, resources)   \
    X(MODE, mode)

typedef enum php_redlock_lock_prop {
#define X(slot, name) REDLOCK_LOCK_PROP_##slot,
    REDLOCK_LOCK_PROPS(X)
#undef X
} php_redlock_lock_prop;

typedef struct php_redlock_lock_obj {
    php_redlock_group *g;
    zend_string *key; /* prefix . resource */
    rl_lock_info info;
    double drift_factor;
    bool throw_on_lost;
    bool released;
    uint64_t fork_gen; /* a lock belongs to the process that acquired it */
    uint64_t held_id;  /* entry in the request-end release list, 0 when none */
    uint64_t acquired_us; /* rl_clock_monotonic when lock() got it (redlock_hold_seconds); 0: restored */
    rl_watch *watch;   /* auto_extend or on_lost: the watchdog's handle (validity follows it), else NULL */
    struct php_redlock_lost *lost; /* on_lost: its delivery (redlock_watch.c), else NULL */
    zend_object std;
} php_redlock_lock_obj;

static inline php_redlock_lock_obj *php_redlock_lock_from_obj(zend_object *o)
{
    return (php_redlock_lock_obj *)((char *)o - XtOffsetOf(php_redlock_lock_obj, std));
}
#define Z_REDLOCK_LOCK_P(zv) php_redlock_lock_from_obj(Z_OBJ_P(zv))
#define REDLOCK_LOCK_PROP(l, slot) OBJ_PROP_NUM(&(l)->std, REDLOCK_LOCK_PROP_##slot)

zend_result php_redlock_lock_class_init(zend_class_entry *ce);
/* What a new RedLock\Lock is of (php_redlock_lock_new, php_redlock_lock_restored). */
typedef struct php_redlock_lock_spec {
    php_redlock_group *g;
    zend_string *key;      /* prefix . resource, or a key list: taken over */
    zend_string *resource; /* $resource (lockAll(): the first of resources) */
    HashTable *resources;  /* lockAll()'s list (a packed array of strings, copied), NULL: [resource] */
    bool permit;           /* a semaphore's permit (key: its slots' list) */
} php_redlock_lock_spec;
/* A RedLock\Lock in out for a lock just acquired; watch (taken over) when the
 * watchdog watches it (auto_extend, on_lost), else NULL. */
php_redlock_lock_obj *php_redlock_lock_new(zval *out, const php_redlock_lock_spec *s, zend_long ttl,
                                           const rl_lock_info *info, const php_redlock_opts *o, rl_watch *watch);
/* A RedLock\Lock in out for a lock acquired elsewhere with token (restore()): validity
 * unknown (0), $ttl 0, $fence null, not on the request-end release list. */
php_redlock_lock_obj *php_redlock_lock_restored(zval *out, const php_redlock_lock_spec *s, zend_string *token);
/* Release l's lock (release(), synchronized()); RL_* outcome. */
int php_redlock_lock_release(php_redlock_lock_obj *l, rl_call *call);
/* Take l off the request-end release list. */
void php_redlock_held_forget(php_redlock_lock_obj *l);
/* Request start and end: the list of locks still held (auto_release). Release all
 * stops every watch of the request, then releases each lock of the list; with
 * ending false (RedLock::releaseAll()) a new list starts. Returns how many a quorum
 * confirmed released. */
void php_redlock_held_start(void);
int php_redlock_held_release_all(bool ending);
/* Request end's flush of the pool (RSHUTDOWN, releaseAll()): redlock_pool.c. */
void php_redlock_pool_flush(void);

/* ---------- the request's watches and on_lost (redlock_watch.c) ---------- */

typedef struct php_redlock_lost php_redlock_lost;
/* auto_extend, on_lost: hand the lock just acquired on key to the watchdog (its own
 * connections, made from copies of g's node settings; lost: on_lost's delivery, or
 * NULL). NULL when it could not (out of memory, no thread). */
rl_watch *php_redlock_watch_start(php_redlock_group *g, zend_string *key, zend_long ttl, const rl_lock_info *info,
                                  const php_redlock_opts *o, php_redlock_lost *lost);
/* Request end, releaseAll(): stop watching every lock this request acquired (before
 * they are released), and forget every on_lost delivery. */
void php_redlock_watch_stop_all(void);
/* MINIT/MSHUTDOWN: chain zend_interrupt_function; RINIT/RSHUTDOWN: the request's list. */
void php_redlock_lost_minit(void);
void php_redlock_lost_mshutdown(void);
void php_redlock_lost_rinit(void);
void php_redlock_lost_rshutdown(void);
/* The delivery a new lock needs (o's on_lost; synchronized() with
 * auto_extend: 'throw' unless told), or NULL: nothing to do (the hot path). */
php_redlock_lost *php_redlock_lost_new(const php_redlock_opts *o, bool synchronized);
void php_redlock_lost_free(php_redlock_lost *lost);
/* lost taken over by l (held until release or the request's end). */
void php_redlock_lost_attach(php_redlock_lock_obj *l, php_redlock_lost *lost);
/* Nothing more for l (release()): its watch is stopped already. */
void php_redlock_lost_forget(php_redlock_lock_obj *l);

#endif
