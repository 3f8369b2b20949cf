/* redlock.c -- the Zend glue: RedLock and RedLock\Lock over the PHP-free core in redlock_core/. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "php_ini.h"
#include "ext/spl/spl_exceptions.h"
#include "ext/standard/info.h"
#include "ext/standard/sha1.h"
#include "zend_exceptions.h"
#include "zend_interfaces.h"
#include "zend_smart_str.h"
#include "ext/standard/md5.h"

#include <hiredis/hiredis.h>
#include <math.h>

#include "php_redlock.h"
#include "redlock_arginfo.h"
#include "redlock_core/rl.h"

ZEND_DECLARE_MODULE_GLOBALS(redlock)

static zend_class_entry *php_redlock_ce;
static zend_class_entry *php_redlock_lock_ce;
static zend_class_entry *php_redlock_exception_ce;
static zend_class_entry *php_redlock_quorum_ce;
static zend_class_entry *php_redlock_conflict_ce;
static zend_class_entry *php_redlock_lost_ce;
static zend_object_handlers php_redlock_handlers;
static zend_object_handlers php_redlock_lock_handlers;

#define MAX_RESOURCE 512
#define MAX_PREFIX 512
#define MAX_TIMEOUT 60000
#define MAX_RETRY_COUNT 10000

/* ---------- options ---------- */

typedef struct php_redlock_opts {
    zend_long retry_count, retry_delay, retry_jitter, wait;
    double drift_factor;
    zend_long connect_timeout, timeout;
    bool persistent, fencing, auto_release, throw_on_lost;
    zend_string *prefix;
} php_redlock_opts;

enum { OPT_CALL = 1, OPT_CTOR = 2 };

typedef enum { T_LONG, T_DOUBLE, T_BOOL, T_STRING } opt_type;

typedef struct opt_def {
    const char *name;
    opt_type type;
    int where; /* OPT_CALL|OPT_CTOR */
    size_t offset;
    zend_long min, max;
} opt_def;

#define O(f) offsetof(php_redlock_opts, f)
static const opt_def opt_defs[] = {
    {"retry_count", T_LONG, OPT_CALL | OPT_CTOR, O(retry_count), 0, MAX_RETRY_COUNT},
    {"retry_delay", T_LONG, OPT_CALL | OPT_CTOR, O(retry_delay), 0, INT_MAX},
    {"retry_jitter", T_LONG, OPT_CALL | OPT_CTOR, O(retry_jitter), 0, INT_MAX},
    {"wait", T_LONG, OPT_CALL | OPT_CTOR, O(wait), 0, INT_MAX},
    {"drift_factor", T_DOUBLE, OPT_CALL | OPT_CTOR, O(drift_factor), 0, 0},
    {"connect_timeout", T_LONG, OPT_CTOR, O(connect_timeout), 1, MAX_TIMEOUT},
    {"timeout", T_LONG, OPT_CTOR, O(timeout), 1, MAX_TIMEOUT},
    {"persistent", T_BOOL, OPT_CTOR, O(persistent), 0, 0},
    {"prefix", T_STRING, OPT_CTOR, O(prefix), 0, MAX_PREFIX},
    {"fencing", T_BOOL, OPT_CALL | OPT_CTOR, O(fencing), 0, 0},
    {"auto_release", T_BOOL, OPT_CALL | OPT_CTOR, O(auto_release), 0, 0},
    {"throw_on_lost", T_BOOL, OPT_CALL | OPT_CTOR, O(throw_on_lost), 0, 0},
};
#undef O

static void opts_from_ini(php_redlock_opts *o)
{
    o->retry_count = REDLOCK_G(retry_count);
    o->retry_delay = REDLOCK_G(retry_delay);
    o->retry_jitter = REDLOCK_G(retry_jitter);
    o->wait = REDLOCK_G(wait);
    o->drift_factor = REDLOCK_G(drift_factor);
    o->connect_timeout = REDLOCK_G(connect_timeout);
    o->timeout = REDLOCK_G(timeout);
    o->persistent = REDLOCK_G(persistent);
    o->fencing = REDLOCK_G(fencing);
    o->auto_release = REDLOCK_G(auto_release);
    o->throw_on_lost = REDLOCK_G(throw_on_lost);
    o->prefix = zend_string_init(REDLOCK_G(prefix) ? REDLOCK_G(prefix) : "", REDLOCK_G(prefix) ? strlen(REDLOCK_G(prefix)) : 0, 0);
}

/* Apply an options array over o. where = OPT_CTOR or OPT_CALL. Throws and
 * returns FAILURE on bad input; the message names the option. */
static zend_result opts_apply(php_redlock_opts *o, HashTable *ht, uint32_t argn, int where)
{
    zend_string *key;
    zend_ulong idx;
    zval *v;
    bool saw_wait = false, saw_retry_count = false;

    ZEND_HASH_FOREACH_KEY_VAL(ht, idx, key, v) {
        const opt_def *d = NULL;
        if (!key) {
            zend_argument_value_error(argn, "must be an array with string keys, key " ZEND_ULONG_FMT " given", idx);
            return FAILURE;
        }
        for (size_t i = 0; i < sizeof(opt_defs) / sizeof(opt_defs[0]); i++) {
            if (zend_string_equals_cstr(key, opt_defs[i].name, strlen(opt_defs[i].name))) d = &opt_defs[i];
        }
        if (!d) {
            zend_argument_value_error(argn, "contains unknown option \"%s\"", ZSTR_VAL(key));
            return FAILURE;
        }
        if (!(d->where & where)) {
            zend_argument_value_error(argn, "\"%s\" is a constructor option and cannot be set per call", d->name);
            return FAILURE;
        }
        ZVAL_DEREF(v);
        char *field = (char *)o + d->offset;
        switch (d->type) {
        case T_LONG:
            if (Z_TYPE_P(v) != IS_LONG) {
                zend_argument_type_error(argn, "\"%s\" must be of type int, %s given", d->name, zend_zval_type_name(v));
                return FAILURE;
            }
            if (Z_LVAL_P(v) < d->min || Z_LVAL_P(v) > d->max) {
                if (d->max == INT_MAX)
                    zend_argument_value_error(argn, "\"%s\" must be between " ZEND_LONG_FMT " and %d", d->name, d->min, INT_MAX);
                else
                    zend_argument_value_error(argn, "\"%s\" must be between " ZEND_LONG_FMT " and " ZEND_LONG_FMT, d->name, d->min, d->max);
                return FAILURE;
            }
            *(zend_long *)field = Z_LVAL_P(v);
            break;
        case T_DOUBLE: {
            double dv;
            if (Z_TYPE_P(v) == IS_DOUBLE)
                dv = Z_DVAL_P(v);
            else if (Z_TYPE_P(v) == IS_LONG)
                dv = (double)Z_LVAL_P(v);
            else {
                zend_argument_type_error(argn, "\"%s\" must be of type float, %s given", d->name, zend_zval_type_name(v));
                return FAILURE;
            }
            if (!(dv >= 0.0 && dv < 1.0)) { /* also refuses NAN */
                zend_argument_value_error(argn, "\"%s\" must be a finite number in [0, 1)", d->name);
                return FAILURE;
            }
            *(double *)field = dv;
            break;
        }
        case T_BOOL:
            if (Z_TYPE_P(v) != IS_TRUE && Z_TYPE_P(v) != IS_FALSE) {
                zend_argument_type_error(argn, "\"%s\" must be of type bool, %s given", d->name, zend_zval_type_name(v));
                return FAILURE;
            }
            *(bool *)field = Z_TYPE_P(v) == IS_TRUE;
            break;
        case T_STRING:
            if (Z_TYPE_P(v) != IS_STRING) {
                zend_argument_type_error(argn, "\"%s\" must be of type string, %s given", d->name, zend_zval_type_name(v));
                return FAILURE;
            }
            if (Z_STRLEN_P(v) > (size_t)d->max) {
                zend_argument_value_error(argn, "\"%s\" must be at most " ZEND_LONG_FMT " bytes", d->name, d->max);
                return FAILURE;
            }
            if (memchr(Z_STRVAL_P(v), '\0', Z_STRLEN_P(v))) {
                zend_argument_value_error(argn, "\"%s\" must not contain NUL bytes", d->name);
                return FAILURE;
            }
            zend_string_release(*(zend_string **)field);
            *(zend_string **)field = zend_string_copy(Z_STR_P(v));
            break;
        }
        if (strcmp(d->name, "wait") == 0) saw_wait = o->wait > 0; /* wait => 0 means "no wait" */
        if (strcmp(d->name, "retry_count") == 0) saw_retry_count = true;
    } ZEND_HASH_FOREACH_END();

    if (saw_wait && saw_retry_count) {
        /* two stopping rules at once: refuse rather than guess which wins
         * (with a wait from the constructor or INI, a per-call retry_count is ignored) */
        zend_argument_value_error(argn, "\"wait\" and \"retry_count\" cannot be given together");
        return FAILURE;
    }
    return SUCCESS;
}

/* ---------- the connection pool of this worker ---------- */

typedef struct php_redlock_pooled {
    rl_conn *conn;
    uint64_t last_request; /* checked once per request before reuse */
    bool persistent;
    char name[128];
} php_redlock_pooled;

static void pooled_dtor(zval *zv)
{
    php_redlock_pooled *p = Z_PTR_P(zv);
    rl_conn_free(p->conn);
    free(p);
}

static void pool_identity(smart_str *s, const rl_node_conf *c, bool persistent)
{
    if (c->socket) {
        smart_str_appends(s, "unix:");
        smart_str_appends(s, c->socket);
    } else {
        smart_str_appends(s, "tcp:");
        smart_str_appends(s, c->host);
        smart_str_appendc(s, ':');
        smart_str_append_long(s, c->port);
    }
    smart_str_appends(s, "|db=");
    smart_str_append_long(s, c->database);
    smart_str_appends(s, "|user=");
    if (c->user) smart_str_appends(s, c->user);
    smart_str_appends(s, "|pw=");
    if (c->password) {
        /* the pool key holds a hash of the password, never the password */
        PHP_SHA1_CTX ctx;
        unsigned char digest[20];
        char hex[41];
        PHP_SHA1Init(&ctx);
        PHP_SHA1Update(&ctx, (const unsigned char *)c->password, strlen(c->password));
        PHP_SHA1Final(digest, &ctx);
        make_digest_ex(hex, digest, 20);
        smart_str_appendl(s, hex, 40);
    }
    smart_str_appends(s, c->tls ? "|tls" : "|plain");
    smart_str_appends(s, persistent ? "|p" : "|np");
    smart_str_0(s);
}

static php_redlock_pooled *pool_get(const rl_node_conf *conf, bool persistent)
{
    smart_str key = {0};
    pool_identity(&key, conf, persistent);
    /* str variants: the persistent table makes its own persistent key copy */
    php_redlock_pooled *p = zend_hash_str_find_ptr(&REDLOCK_G(pool), ZSTR_VAL(key.s), ZSTR_LEN(key.s));
    if (!p) {
        p = calloc(1, sizeof(*p));
        if (p) p->conn = rl_conn_new(conf);
        if (!p || !p->conn) {
            free(p);
            smart_str_free(&key);
            return NULL;
        }
        p->persistent = persistent;
        rl_node_conf_name(conf, p->name, sizeof(p->name));
        zend_hash_str_add_new_ptr(&REDLOCK_G(pool), ZSTR_VAL(key.s), ZSTR_LEN(key.s), p);
    }
    smart_str_free(&key);
    return p;
}

/* ---------- a group of nodes: shared by a RedLock and the locks it made ---------- */

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
} php_redlock_group;

static void group_release(php_redlock_group *g)
{
    if (!g || --g->refcount > 0) return;
    for (int i = 0; i < g->n; i++) rl_node_conf_free(&g->conf[i]);
    zend_string_release(g->opts.prefix);
    efree(g);
}

/* Before each call: pooled connections get the caller's timeouts, and a
 * connection reused from an earlier request is checked once (EOF, stray
 * bytes) so a Redis restart between requests costs only a reconnect. */
static void group_prepare(php_redlock_group *g)
{
    uint64_t req = REDLOCK_G(request_id);
    for (int i = 0; i < g->n; i++) {
        php_redlock_pooled *p = g->pooled[i];
        rl_conn_set_timeouts(p->conn, g->connect_timeout[i], g->timeout[i]);
        if (p->last_request != req) {
            p->last_request = req;
            rl_conn_check(p->conn);
        }
    }
}

/* ---------- objects ---------- */

typedef struct php_redlock_obj {
    php_redlock_group *g;
    zend_object std;
} php_redlock_obj;

typedef struct php_redlock_lock_obj {
    php_redlock_group *g;
    zend_string *key; /* prefix . resource */
    rl_lock_info info;
    double drift_factor;
    bool throw_on_lost;
    bool released;
    uint64_t fork_gen; /* a lock belongs to the process that acquired it */
    uint64_t held_id;  /* entry in the request-end release list, 0 when none */
    zend_object std;
} php_redlock_lock_obj;

static inline php_redlock_obj *php_redlock_from_obj(zend_object *o)
{
    return (php_redlock_obj *)((char *)o - XtOffsetOf(php_redlock_obj, std));
}
static inline php_redlock_lock_obj *php_redlock_lock_from_obj(zend_object *o)
{
    return (php_redlock_lock_obj *)((char *)o - XtOffsetOf(php_redlock_lock_obj, std));
}
#define Z_REDLOCK_P(zv) php_redlock_from_obj(Z_OBJ_P(zv))
#define Z_REDLOCK_LOCK_P(zv) php_redlock_lock_from_obj(Z_OBJ_P(zv))

/* A lock still held at request end (auto_release): independent of its object. */
typedef struct php_redlock_held {
    php_redlock_group *g;
    zend_string *key;
    char token[RL_TOKEN_LEN + 1];
    uint64_t fork_gen;
} php_redlock_held;

static void held_dtor(zval *zv)
{
    php_redlock_held *h = Z_PTR_P(zv);
    group_release(h->g);
    zend_string_release(h->key);
    efree(h);
}

static void held_forget(php_redlock_lock_obj *l)
{
    if (l->held_id && REDLOCK_G(held_active)) zend_hash_index_del(&REDLOCK_G(held), l->held_id);
    l->held_id = 0;
}

static zend_object *php_redlock_create(zend_class_entry *ce)
{
    php_redlock_obj *o = zend_object_alloc(sizeof(php_redlock_obj), ce);
    zend_object_std_init(&o->std, ce);
    object_properties_init(&o->std, ce);
    o->std.handlers = &php_redlock_handlers;
    return &o->std;
}

static void php_redlock_free(zend_object *obj)
{
    php_redlock_obj *o = php_redlock_from_obj(obj);
    group_release(o->g);
    o->g = NULL;
    zend_object_std_dtor(obj);
}

static zend_object *php_redlock_lock_create(zend_class_entry *ce)
{
    php_redlock_lock_obj *l = zend_object_alloc(sizeof(php_redlock_lock_obj), ce);
    zend_object_std_init(&l->std, ce);
    object_properties_init(&l->std, ce);
    l->std.handlers = &php_redlock_lock_handlers;
    return &l->std;
}

/* Never releases the lock: `if (!$rl->lock('cron:x', 60000)) exit;` must keep it. */
static void php_redlock_lock_free(zend_object *obj)
{
    php_redlock_lock_obj *l = php_redlock_lock_from_obj(obj);
    group_release(l->g);
    if (l->key) zend_string_release(l->key);
    zend_object_std_dtor(obj);
}

static zend_function *php_redlock_lock_get_constructor(zend_object *obj)
{
    zend_throw_error(NULL, "Cannot directly construct RedLock\\Lock, use RedLock::lock()");
    return NULL;
}

/* ---------- node parsing ---------- */

static const char *node_keys[] = {"host", "port", "socket", "timeout", "connect_timeout", "user", "password", "database", "tls"};

#define NODE_ERR(fmt, ...)                                                                          \
    do {                                                                                            \
        if (key)                                                                                    \
            zend_argument_value_error(1, "entry \"%s\": " fmt, ZSTR_VAL(key), ##__VA_ARGS__);        \
        else                                                                                        \
            zend_argument_value_error(1, "entry " ZEND_ULONG_FMT ": " fmt, idx, ##__VA_ARGS__);       \
    } while (0)
#define NODE_TYPE_ERR(fmt, ...)                                                                     \
    do {                                                                                            \
        if (key)                                                                                    \
            zend_argument_type_error(1, "entry \"%s\": " fmt, ZSTR_VAL(key), ##__VA_ARGS__);         \
        else                                                                                        \
            zend_argument_type_error(1, "entry " ZEND_ULONG_FMT ": " fmt, idx, ##__VA_ARGS__);        \
    } while (0)

static char *dup_zstr(zval *v) { return strndup(Z_STRVAL_P(v), Z_STRLEN_P(v)); }

static zend_result node_from_array(HashTable *ht, zend_string *key, zend_ulong idx, rl_node_conf *c)
{
    zend_string *k;
    zval *v;
    ZEND_HASH_FOREACH_STR_KEY_VAL(ht, k, v) {
        int which = -1;
        if (k)
            for (int i = 0; i < (int)(sizeof(node_keys) / sizeof(node_keys[0])); i++)
                if (zend_string_equals_cstr(k, node_keys[i], strlen(node_keys[i]))) which = i;
        if (which < 0) {
            if (k)
                NODE_ERR("unknown key \"%s\"", ZSTR_VAL(k));
            else
                NODE_ERR("keys must be strings (host, port, socket, timeout, connect_timeout, user, password, database, tls)");
            return FAILURE;
        }
        const char *f = node_keys[which];
        ZVAL_DEREF(v);
        switch (which) {
        case 0: case 2: case 5: case 6: /* strings */
            if (Z_TYPE_P(v) == IS_NULL && (which == 5 || which == 6)) break;
            if (Z_TYPE_P(v) != IS_STRING) {
                NODE_TYPE_ERR("\"%s\" must be of type string, %s given", f, zend_zval_type_name(v));
                return FAILURE;
            }
            if (memchr(Z_STRVAL_P(v), '\0', Z_STRLEN_P(v))) {
                NODE_ERR("\"%s\" must not contain NUL bytes", f);
                return FAILURE;
            }
            if (which == 0) {
                if (Z_STRLEN_P(v) == 0 || Z_STRLEN_P(v) > 255) {
                    NODE_ERR("\"host\" must be between 1 and 255 bytes");
                    return FAILURE;
                }
                free(c->host);
                c->host = dup_zstr(v);
            } else if (which == 2) {
                if (Z_STRLEN_P(v) == 0 || Z_STRVAL_P(v)[0] != '/' || Z_STRLEN_P(v) > 107) {
                    NODE_ERR("\"socket\" must be an absolute path of at most 107 bytes");
                    return FAILURE;
                }
                free(c->socket);
                c->socket = dup_zstr(v);
            } else if (which == 5) {
                free(c->user);
                c->user = dup_zstr(v);
            } else {
                free(c->password);
                c->password = Z_STRLEN_P(v) ? dup_zstr(v) : NULL;
            }
            break;
        case 1: case 3: case 4: case 7: { /* ints */
            if (Z_TYPE_P(v) != IS_LONG) {
                NODE_TYPE_ERR("\"%s\" must be of type int, %s given", f, zend_zval_type_name(v));
                return FAILURE;
            }
            zend_long l = Z_LVAL_P(v);
            if (which == 1 && (l < 1 || l > 65535)) {
                NODE_ERR("\"port\" must be between 1 and 65535");
                return FAILURE;
            }
            if ((which == 3 || which == 4) && (l < 1 || l > MAX_TIMEOUT)) {
                NODE_ERR("\"%s\" must be between 1 and %d", f, MAX_TIMEOUT);
                return FAILURE;
            }
            if (which == 7 && (l < 0 || l > 1000000)) {
                NODE_ERR("\"database\" must be between 0 and 1000000");
                return FAILURE;
            }
            if (which == 1) c->port = (int)l;
            if (which == 3) c->timeout_ms = (int)l;
            if (which == 4) c->connect_timeout_ms = (int)l;
            if (which == 7) c->database = (int)l;
            break;
        }
        case 8:
            if (Z_TYPE_P(v) != IS_TRUE && Z_TYPE_P(v) != IS_FALSE) {
                NODE_TYPE_ERR("\"tls\" must be of type bool, %s given", zend_zval_type_name(v));
                return FAILURE;
            }
            c->tls = Z_TYPE_P(v) == IS_TRUE;
            break;
        }
    } ZEND_HASH_FOREACH_END();
    if (!c->host && !c->socket) {
        NODE_ERR("\"host\" or \"socket\" is required");
        return FAILURE;
    }
    if (c->host && c->socket) {
        NODE_ERR("\"host\" and \"socket\" cannot both be given");
        return FAILURE;
    }
    if (c->socket && c->port) {
        NODE_ERR("\"port\" cannot be given with \"socket\"");
        return FAILURE;
    }
    if (c->host && !c->port) c->port = 6379;
    if (c->password == NULL && c->user) {
        NODE_ERR("\"user\" needs a \"password\"");
        return FAILURE;
    }
    return SUCCESS;
}

static zend_result parse_nodes(php_redlock_group *g, HashTable *nodes)
{
    zend_string *key;
    zend_ulong idx;
    zval *v;
    int n = zend_hash_num_elements(nodes);
    if (n == 0) {
        zend_argument_value_error(1, "must not be empty");
        return FAILURE;
    }
    if (n > RL_MAX_NODES) {
        zend_argument_value_error(1, "must have at most %d nodes", RL_MAX_NODES);
        return FAILURE;
    }
    zend_string *keys[RL_MAX_NODES];
    zend_ulong idxs[RL_MAX_NODES];
    ZEND_HASH_FOREACH_KEY_VAL(nodes, idx, key, v) {
        rl_node_conf *c = &g->conf[g->n];
        keys[g->n] = key;
        idxs[g->n] = idx;
        memset(c, 0, sizeof(*c));
        c->connect_timeout_ms = (int)g->opts.connect_timeout;
        c->timeout_ms = (int)g->opts.timeout;
        g->n++; /* counted before parsing so a failure frees it */
        ZVAL_DEREF(v);
        if (Z_TYPE_P(v) == IS_STRING) {
            char err[160];
            if (rl_uri_parse(Z_STRVAL_P(v), Z_STRLEN_P(v), c, err, sizeof(err)) != 0) {
                NODE_ERR("invalid node URI: %s", err);
                return FAILURE;
            }
        } else if (Z_TYPE_P(v) == IS_ARRAY) {
            if (node_from_array(Z_ARRVAL_P(v), key, idx, c) != SUCCESS) return FAILURE;
        } else {
            NODE_TYPE_ERR("must be of type string|array, %s given", zend_zval_type_name(v));
            return FAILURE;
        }
        if (c->tls) {
            NODE_ERR("TLS (rediss:// or \"tls\") is not available in this version");
            return FAILURE;
        }
    } ZEND_HASH_FOREACH_END();

    /* one Redis server counted twice would forge a quorum: the database or
     * user does not make it another node; host names are compared by their
     * addresses, socket paths by the file they name */
    int first, second;
    int dup = rl_node_confs_find_same_server(g->conf, g->n, &first, &second);
    if (dup < 0) {
        zend_throw_error(NULL, "out of memory");
        return FAILURE;
    }
    if (dup) {
        char name[128], other[128];
        rl_node_conf_name(&g->conf[second], name, sizeof(name));
        rl_node_conf_name(&g->conf[first], other, sizeof(other));
        key = keys[second];
        idx = idxs[second];
        NODE_ERR("duplicate node %s: the same server as %s (a server may appear only once)", name, other);
        return FAILURE;
    }

    for (int i = 0; i < g->n; i++) {
        rl_node_conf *c = &g->conf[i];
        g->connect_timeout[i] = c->connect_timeout_ms;
        g->timeout[i] = c->timeout_ms;
        g->pooled[i] = pool_get(c, g->opts.persistent);
        if (!g->pooled[i]) {
            zend_throw_error(NULL, "out of memory");
            return FAILURE;
        }
        g->conns[i] = g->pooled[i]->conn;
        /* the group keeps node descriptions for nodes(); the secret lives
         * only in the pooled connection */
        if (c->password) {
            memset(c->password, 0, strlen(c->password));
            free(c->password);
            c->password = NULL;
        }
    }
    g->net.conns = g->conns;
    g->net.n = g->n;
    g->net.clock = &rl_clock_monotonic;
    g->tp.fanout = rl_net_fanout;
    g->tp.ctx = &g->net;
    g->ctx.tp = &g->tp;
    g->ctx.clock = &rl_clock_monotonic;
    g->ctx.rnd = &rl_random_system;
    g->ctx.n = g->n;
    return SUCCESS;
}

/* ---------- failures as exceptions ---------- */

static void throw_quorum(php_redlock_group *g, const rl_call *call, const char *what)
{
    smart_str s = {0};
    int q = rl_quorum(g->n);
    smart_str_append_printf(&s, "%s: could not reach a quorum (%d of %d nodes needed, %d answered)", what, q, g->n,
                            call->answered);
    const char *sep = ": ";
    for (int i = 0; i < g->n; i++) {
        if (call->res[i].state != RL_FAILED) continue;
        smart_str_appends(&s, sep);
        smart_str_appends(&s, g->pooled[i]->name);
        smart_str_appends(&s, " ");
        smart_str_appends(&s, call->res[i].reason[0] ? call->res[i].reason : rl_err_name(call->res[i].err));
        sep = "; ";
    }
    /* a node still in flight when the outcome was decided did not fail:
     * its answer was simply not awaited */
    sep = "; not awaited: ";
    for (int i = 0; i < g->n; i++) {
        if (call->res[i].state != RL_PENDING) continue;
        smart_str_appends(&s, sep);
        smart_str_appends(&s, g->pooled[i]->name);
        sep = ", ";
    }
    smart_str_0(&s);
    zend_throw_exception(php_redlock_quorum_ce, ZSTR_VAL(s.s), 0);
    smart_str_free(&s);
}

/* Two nodes of the call turned out to be one Redis server (the core saw the
 * same server behind both at connect: a node failed with RL_E_SAME_SERVER,
 * or the outcome is RL_SAME_SERVER). Not a quorum failure to retry but a
 * configuration error: throws RedLock\Exception naming the node and returns
 * true; false when the call saw nothing of the kind. */
static bool throw_same_server(php_redlock_group *g, const rl_call *call, int outcome, const char *what)
{
    int bad = -1;
    if (outcome == RL_ERROR) return false; /* the call may have stopped before any node */
    for (int i = 0; i < g->n && bad < 0; i++)
        if (call->res[i].err == RL_E_SAME_SERVER) bad = i;
    if (bad < 0 && outcome != RL_SAME_SERVER) return false;
    smart_str m = {0};
    smart_str_appends(&m, what);
    if (bad < 0) {
        smart_str_appends(&m, ": two nodes are the same Redis server");
    } else {
        smart_str_appends(&m, ": node ");
        smart_str_appends(&m, g->pooled[bad]->name);
        smart_str_appends(&m, " is the same Redis server as another node");
        if (call->res[bad].reason[0]) {
            smart_str_appends(&m, " (");
            smart_str_appends(&m, call->res[bad].reason);
            smart_str_appendc(&m, ')');
        }
    }
    smart_str_appends(&m, "; a server may count only once toward the quorum");
    smart_str_0(&m);
    zend_throw_exception(php_redlock_exception_ce, ZSTR_VAL(m.s), 0);
    smart_str_free(&m);
    return true;
}

static zend_result check_resource(zend_string *res, uint32_t argn)
{
    if (ZSTR_LEN(res) < 1 || ZSTR_LEN(res) > MAX_RESOURCE) {
        zend_argument_value_error(argn, "must be between 1 and %d bytes long", MAX_RESOURCE);
        return FAILURE;
    }
    if (memchr(ZSTR_VAL(res), '\0', ZSTR_LEN(res))) {
        zend_argument_value_error(argn, "must not contain NUL bytes");
        return FAILURE;
    }
    return SUCCESS;
}

static zend_result check_ttl(zend_long ttl, uint32_t argn)
{
    if (ttl < 1 || ttl > INT32_MAX) {
        zend_argument_value_error(argn, "must be between 1 and %d", INT32_MAX);
        return FAILURE;
    }
    return SUCCESS;
}

static zend_string *make_key(php_redlock_group *g, zend_string *resource)
{
    return zend_string_concat2(ZSTR_VAL(g->opts.prefix), ZSTR_LEN(g->opts.prefix), ZSTR_VAL(resource),
                               ZSTR_LEN(resource));
}

static php_redlock_group *this_group(zval *this_zv)
{
    php_redlock_obj *o = Z_REDLOCK_P(this_zv);
    if (!o->g) zend_throw_error(NULL, "RedLock object is not initialized");
    return o->g;
}

/* ---------- RedLock ---------- */

PHP_METHOD(RedLock, __construct)
{
    HashTable *nodes, *options = NULL;
    ZEND_PARSE_PARAMETERS_START(1, 2)
        Z_PARAM_ARRAY_HT(nodes)
        Z_PARAM_OPTIONAL
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();

    php_redlock_obj *o = Z_REDLOCK_P(ZEND_THIS);
    if (o->g) {
        zend_throw_error(NULL, "RedLock object is already constructed");
        RETURN_THROWS();
    }
    php_redlock_group *g = ecalloc(1, sizeof(*g));
    g->refcount = 1;
    opts_from_ini(&g->opts);
    if ((options && opts_apply(&g->opts, options, 2, OPT_CTOR) != SUCCESS) || parse_nodes(g, nodes) != SUCCESS) {
        group_release(g);
        RETURN_THROWS();
    }
    o->g = g;
}

static php_redlock_lock_obj *do_lock(php_redlock_group *g, zend_string *resource,
                                     zend_long ttl, HashTable *options, uint32_t opt_argn, zval *out, bool *conflict)
{
    php_redlock_opts o = g->opts;
    rl_call call;
    rl_lock_info info;
    o.prefix = zend_string_copy(g->opts.prefix);
    *conflict = false;
    if (options && opts_apply(&o, options, opt_argn, OPT_CALL) != SUCCESS) {
        zend_string_release(o.prefix);
        return NULL;
    }
    zend_string_release(o.prefix);

    rl_opts ro = {.retry_count = (int)o.retry_count, .retry_delay_ms = (int)o.retry_delay, .retry_jitter_ms = (int)o.retry_jitter, .wait_ms = (int)o.wait, .drift_factor = o.drift_factor};
    /* the fence counter: one key per prefix, no lock key can equal it (resources have no NUL) */
    static const char fence_suffix[] = "\0redlock:fence";
    char fence_key[MAX_PREFIX + sizeof(fence_suffix)];
    if (o.fencing) {
        size_t pl = ZSTR_LEN(g->opts.prefix);
        memcpy(fence_key, ZSTR_VAL(g->opts.prefix), pl);
        memcpy(fence_key + pl, fence_suffix, sizeof(fence_suffix) - 1);
        ro.fence_key = fence_key;
        ro.fence_keylen = pl + sizeof(fence_suffix) - 1;
    }
    zend_string *key = make_key(g, resource);
    group_prepare(g);
    int r = rl_acquire(&g->ctx, ZSTR_VAL(key), ZSTR_LEN(key), (int)ttl, &ro, &info, &call);
    if (throw_same_server(g, &call, r, "lock")) {
        /* never hand out a lock counted on one server twice */
        if (r == RL_ACQUIRED) rl_release(&g->ctx, ZSTR_VAL(key), ZSTR_LEN(key), info.token, NULL);
        zend_string_release(key);
        return NULL;
    }
    if (r == RL_NO_QUORUM) {
        REDLOCK_G(quorum_failures)++;
        throw_quorum(g, &call, "lock");
        zend_string_release(key);
        return NULL;
    }
    if (r != RL_ACQUIRED) {
        if (r == RL_ERROR) {
            zend_throw_exception(php_redlock_exception_ce, "lock: internal error (out of memory or random source failed)", 0);
        } else {
            REDLOCK_G(conflicts)++;
            *conflict = true;
        }
        zend_string_release(key);
        return NULL;
    }
    REDLOCK_G(acquired)++;

    object_init_ex(out, php_redlock_lock_ce);
    php_redlock_lock_obj *l = Z_REDLOCK_LOCK_P(out);
    l->g = g;
    g->refcount++;
    l->key = key;
    l->info = info;
    l->drift_factor = o.drift_factor;
    l->throw_on_lost = o.throw_on_lost;
    l->fork_gen = rl_fork_generation();
    ZVAL_STR_COPY(OBJ_PROP_NUM(&l->std, 0), resource);
    ZVAL_STRINGL(OBJ_PROP_NUM(&l->std, 1), info.token, RL_TOKEN_LEN);
    ZVAL_LONG(OBJ_PROP_NUM(&l->std, 2), ttl);
    if (o.fencing)
        ZVAL_LONG(OBJ_PROP_NUM(&l->std, 3), (zend_long)info.fence);
    else
        ZVAL_NULL(OBJ_PROP_NUM(&l->std, 3));

    if (o.auto_release && REDLOCK_G(held_active)) {
        php_redlock_held *h = emalloc(sizeof(*h));
        h->g = g;
        g->refcount++;
        h->key = zend_string_copy(key);
        memcpy(h->token, info.token, sizeof(h->token));
        h->fork_gen = l->fork_gen;
        l->held_id = ++REDLOCK_G(next_held_id);
        zend_hash_index_add_new_ptr(&REDLOCK_G(held), l->held_id, h);
    }
    return l;
}

PHP_METHOD(RedLock, lock)
{
    zend_string *resource;
    zend_long ttl;
    HashTable *options = NULL;
    bool conflict;
    ZEND_PARSE_PARAMETERS_START(2, 3)
        Z_PARAM_STR(resource)
        Z_PARAM_LONG(ttl)
        Z_PARAM_OPTIONAL
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();
    php_redlock_group *g = this_group(ZEND_THIS);
    if (!g || check_resource(resource, 1) != SUCCESS || check_ttl(ttl, 2) != SUCCESS) RETURN_THROWS();
    if (!do_lock(g, resource, ttl, options, 3, return_value, &conflict)) {
        if (EG(exception)) RETURN_THROWS();
        RETURN_NULL();
    }
}

/* Every release (release(), synchronized(), request end) goes through here. */
static int release_token(php_redlock_group *g, zend_string *key, const char *token, rl_call *call)
{
    group_prepare(g);
    int r = rl_release(&g->ctx, ZSTR_VAL(key), ZSTR_LEN(key), token, call);
    if (r == RL_RELEASED) REDLOCK_G(released)++;
    return r;
}

static int lock_release(php_redlock_lock_obj *l, rl_call *call)
{
    return release_token(l->g, l->key, l->info.token, call);
}

PHP_METHOD(RedLock, synchronized)
{
    zend_string *resource;
    zend_long ttl;
    zend_fcall_info fci;
    zend_fcall_info_cache fcc;
    HashTable *options = NULL;
    bool conflict;
    zval lock_zv, retval;
    ZEND_PARSE_PARAMETERS_START(3, 4)
        Z_PARAM_STR(resource)
        Z_PARAM_LONG(ttl)
        Z_PARAM_FUNC(fci, fcc)
        Z_PARAM_OPTIONAL
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();
    php_redlock_group *g = this_group(ZEND_THIS);
    if (!g || check_resource(resource, 1) != SUCCESS || check_ttl(ttl, 2) != SUCCESS) RETURN_THROWS();
    php_redlock_lock_obj *l = do_lock(g, resource, ttl, options, 4, &lock_zv, &conflict);
    if (!l) {
        if (EG(exception)) RETURN_THROWS();
        zend_throw_exception_ex(php_redlock_conflict_ce, 0, "synchronized: could not acquire the lock on \"%s\"",
                                ZSTR_VAL(resource));
        RETURN_THROWS();
    }
    ZVAL_UNDEF(&retval);
    fci.retval = &retval;
    fci.param_count = 1;
    fci.params = &lock_zv;
    zend_call_function(&fci, &fcc);

    /* always release, also when $fn threw; a release failure does not hide $fn's exception */
    if (!l->released && l->fork_gen == rl_fork_generation()) {
        rl_call call;
        zend_object *pending = EG(exception);
        l->released = true;
        int r = lock_release(l, &call);
        if (r != RL_NO_QUORUM) held_forget(l);
        /* $fn's exception wins; else a same-server finding, else a lost lock */
        if (!pending && !throw_same_server(g, &call, r, "synchronized") && r != RL_RELEASED && l->throw_on_lost) {
            zend_throw_exception_ex(php_redlock_lost_ce, 0, "synchronized: the lock on \"%s\" was lost before release",
                                    ZSTR_VAL(resource));
        }
    }
    zval_ptr_dtor(&lock_zv);
    if (EG(exception)) {
        zval_ptr_dtor(&retval);
        RETURN_THROWS();
    }
    if (Z_TYPE(retval) == IS_UNDEF) RETURN_NULL();
    RETURN_COPY_VALUE(&retval);
}

PHP_METHOD(RedLock, isLocked)
{
    zend_string *resource;
    rl_call call;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_STR(resource)
    ZEND_PARSE_PARAMETERS_END();
    php_redlock_group *g = this_group(ZEND_THIS);
    if (!g || check_resource(resource, 1) != SUCCESS) RETURN_THROWS();
    zend_string *key = make_key(g, resource);
    group_prepare(g);
    int r = rl_is_locked(&g->ctx, ZSTR_VAL(key), ZSTR_LEN(key), &call);
    zend_string_release(key);
    if (throw_same_server(g, &call, r, "isLocked")) RETURN_THROWS();
    if (r == RL_NO_QUORUM || r == RL_ERROR) {
        REDLOCK_G(quorum_failures)++;
        throw_quorum(g, &call, "isLocked");
        RETURN_THROWS();
    }
    RETURN_BOOL(r == RL_YES);
}

PHP_METHOD(RedLock, quorum)
{
    ZEND_PARSE_PARAMETERS_NONE();
    php_redlock_group *g = this_group(ZEND_THIS);
    if (!g) RETURN_THROWS();
    RETURN_LONG(rl_quorum(g->n));
}

PHP_METHOD(RedLock, nodes)
{
    ZEND_PARSE_PARAMETERS_NONE();
    php_redlock_group *g = this_group(ZEND_THIS);
    if (!g) RETURN_THROWS();
    array_init_size(return_value, g->n);
    for (int i = 0; i < g->n; i++) {
        rl_node_conf *c = &g->conf[i];
        zval node;
        array_init(&node);
        add_assoc_string(&node, "name", g->pooled[i]->name);
        if (c->host) add_assoc_string(&node, "host", c->host); else add_assoc_null(&node, "host");
        if (c->socket) add_assoc_null(&node, "port"); else add_assoc_long(&node, "port", c->port);
        if (c->socket) add_assoc_string(&node, "socket", c->socket); else add_assoc_null(&node, "socket");
        add_assoc_long(&node, "database", c->database);
        if (c->user) add_assoc_string(&node, "user", c->user); else add_assoc_null(&node, "user");
        add_assoc_bool(&node, "tls", c->tls);
        add_next_index_zval(return_value, &node);
    }
}

typedef struct node_agg {
    const char *name;
    rl_node_stats st;
} node_agg;

PHP_METHOD(RedLock, stats)
{
    ZEND_PARSE_PARAMETERS_NONE();
    php_redlock_group *g = this_group(ZEND_THIS);
    if (!g) RETURN_THROWS();
    zval nodes;
    array_init(return_value);
    add_assoc_long(return_value, "acquired", REDLOCK_G(acquired));
    add_assoc_long(return_value, "conflicts", REDLOCK_G(conflicts));
    add_assoc_long(return_value, "quorum_failures", REDLOCK_G(quorum_failures));
    add_assoc_long(return_value, "released", REDLOCK_G(released));
    add_assoc_long(return_value, "extended", REDLOCK_G(extended));

    /* every connection of this worker, merged by node name (a server may
     * have several: another database, user or persistence setting) */
    uint32_t cap = zend_hash_num_elements(&REDLOCK_G(pool)), na = 0;
    node_agg *agg = safe_emalloc(cap ? cap : 1, sizeof(*agg), 0);
    php_redlock_pooled *p;
    ZEND_HASH_FOREACH_PTR(&REDLOCK_G(pool), p) {
        const rl_node_stats *st = rl_conn_stats(p->conn);
        node_agg *a = NULL;
        for (uint32_t i = 0; i < na; i++)
            if (strcmp(agg[i].name, p->name) == 0) a = &agg[i];
        if (!a) {
            a = &agg[na++];
            memset(a, 0, sizeof(*a));
            a->name = p->name;
        }
        a->st.ok += st->ok;
        a->st.errors += st->errors;
        a->st.timeouts += st->timeouts;
        a->st.skipped += st->skipped;
        if (st->last_error[0]) memcpy(a->st.last_error, st->last_error, sizeof(st->last_error));
        rl_latency_merge(&a->st.lat, &st->lat);
    } ZEND_HASH_FOREACH_END();

    array_init_size(&nodes, na);
    for (uint32_t i = 0; i < na; i++) {
        node_agg *a = &agg[i];
        zval node, latz;
        array_init(&node);
        add_assoc_long(&node, "ok", (zend_long)a->st.ok);
        add_assoc_long(&node, "errors", (zend_long)a->st.errors);
        add_assoc_long(&node, "timeouts", (zend_long)a->st.timeouts);
        if (a->st.last_error[0]) add_assoc_string(&node, "last_error", a->st.last_error); else add_assoc_null(&node, "last_error");
        array_init(&latz);
        add_assoc_long(&latz, "p50", (zend_long)rl_latency_percentile(&a->st.lat, 0.50));
        add_assoc_long(&latz, "p99", (zend_long)rl_latency_percentile(&a->st.lat, 0.99));
        add_assoc_long(&latz, "max", (zend_long)a->st.lat.max_us);
        add_assoc_zval(&node, "latency_us", &latz);
        add_assoc_zval(&nodes, a->name, &node);
    }
    efree(agg);
    add_assoc_zval(return_value, "nodes", &nodes);
}

/* ---------- RedLock\Lock ---------- */

static bool lock_is_ours(php_redlock_lock_obj *l)
{
    /* a forked child inherits the object, not the lock */
    return l->g && l->fork_gen == rl_fork_generation();
}

PHP_METHOD(RedLock_Lock, release)
{
    ZEND_PARSE_PARAMETERS_NONE();
    php_redlock_lock_obj *l = Z_REDLOCK_LOCK_P(ZEND_THIS);
    rl_call call;
    if (!lock_is_ours(l)) RETURN_FALSE;
    l->released = true;
    int r = lock_release(l, &call);
    /* with no quorum reachable the request-end release may still succeed */
    if (r != RL_NO_QUORUM) held_forget(l);
    if (throw_same_server(l->g, &call, r, "release")) RETURN_THROWS();
    if (r == RL_RELEASED) RETURN_TRUE;
    if (l->throw_on_lost && r == RL_LOST) {
        zend_throw_exception_ex(php_redlock_lost_ce, 0, "release: the lock on \"%s\" was already gone (expired or taken)",
                                Z_STRVAL_P(OBJ_PROP_NUM(&l->std, 0)));
        RETURN_THROWS();
    }
    RETURN_FALSE;
}

PHP_METHOD(RedLock_Lock, extend)
{
    zend_long ttl;
    rl_call call;
    rl_lock_info info;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_LONG(ttl)
    ZEND_PARSE_PARAMETERS_END();
    if (check_ttl(ttl, 1) != SUCCESS) RETURN_THROWS();
    php_redlock_lock_obj *l = Z_REDLOCK_LOCK_P(ZEND_THIS);
    if (!lock_is_ours(l)) RETURN_FALSE;
    int r = RL_LOST;
    if (!l->released) {
        info = l->info;
        group_prepare(l->g);
        r = rl_extend(&l->g->ctx, ZSTR_VAL(l->key), ZSTR_LEN(l->key), l->info.token, (int)ttl, l->drift_factor, &info,
                      &call);
        /* whatever the outcome: a failed extend may have shortened the TTL
         * on the nodes that ran it, and the core never lets validity grow then */
        l->info = info;
        if (throw_same_server(l->g, &call, r, "extend")) RETURN_THROWS();
    }
    if (r == RL_EXTENDED) {
        ZVAL_LONG(OBJ_PROP_NUM(&l->std, 2), ttl);
        REDLOCK_G(extended)++;
        RETURN_TRUE;
    }
    if (l->throw_on_lost && r == RL_LOST) {
        zend_throw_exception_ex(php_redlock_lost_ce, 0, "extend: the lock on \"%s\" is %s",
                                Z_STRVAL_P(OBJ_PROP_NUM(&l->std, 0)),
                                l->released ? "released" : "gone (expired or taken)");
        RETURN_THROWS();
    }
    RETURN_FALSE;
}

static zend_long lock_remaining(php_redlock_lock_obj *l)
{
    /* a forked child inherits the object, not the lock */
    if (l->released || !lock_is_ours(l)) return 0;
    return (zend_long)rl_remaining_ms(&l->info, rl_clock_monotonic.now_us(NULL));
}

PHP_METHOD(RedLock_Lock, isValid)
{
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_BOOL(lock_remaining(Z_REDLOCK_LOCK_P(ZEND_THIS)) > 0);
}

PHP_METHOD(RedLock_Lock, remaining)
{
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_LONG(lock_remaining(Z_REDLOCK_LOCK_P(ZEND_THIS)));
}

PHP_METHOD(RedLock_Lock, isReleased)
{
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_BOOL(Z_REDLOCK_LOCK_P(ZEND_THIS)->released);
}

/* ---------- INI ---------- */

static ZEND_INI_MH(OnUpdateRange)
{
    zend_long v = ZEND_STRTOL(ZSTR_VAL(new_value), NULL, 10);
    zend_long min = 0, max = INT_MAX;
    const char *name = ZSTR_VAL(entry->name);
    if (strcmp(name, "redlock.retry_count") == 0) max = MAX_RETRY_COUNT;
    if (strcmp(name, "redlock.connect_timeout") == 0 || strcmp(name, "redlock.timeout") == 0) {
        min = 1;
        max = MAX_TIMEOUT;
    }
    if (ZSTR_LEN(new_value) == 0 || strspn(ZSTR_VAL(new_value), "0123456789") != ZSTR_LEN(new_value) ||
        v < min || v > max) {
        php_error_docref(NULL, E_WARNING, "%s must be an integer between " ZEND_LONG_FMT " and " ZEND_LONG_FMT ", keeping %s",
                         name, min, max, entry->value ? ZSTR_VAL(entry->value) : "the default");
        return FAILURE;
    }
    return OnUpdateLong(entry, new_value, mh_arg1, mh_arg2, mh_arg3, stage);
}

static ZEND_INI_MH(OnUpdateDrift)
{
    char *end;
    double v = zend_strtod(ZSTR_VAL(new_value), (const char **)&end);
    if (end == ZSTR_VAL(new_value) || *end || !(v >= 0.0 && v < 1.0)) {
        php_error_docref(NULL, E_WARNING, "redlock.drift_factor must be a number in [0, 1), keeping %s",
                         entry->value ? ZSTR_VAL(entry->value) : "the default");
        return FAILURE;
    }
    return OnUpdateReal(entry, new_value, mh_arg1, mh_arg2, mh_arg3, stage);
}

static ZEND_INI_MH(OnUpdatePrefix)
{
    if (ZSTR_LEN(new_value) > MAX_PREFIX) {
        php_error_docref(NULL, E_WARNING, "redlock.prefix must be at most %d bytes", MAX_PREFIX);
        return FAILURE;
    }
    return OnUpdateString(entry, new_value, mh_arg1, mh_arg2, mh_arg3, stage);
}

PHP_INI_BEGIN()
    STD_PHP_INI_ENTRY("redlock.retry_count", "3", PHP_INI_ALL, OnUpdateRange, retry_count, zend_redlock_globals, redlock_globals)
    STD_PHP_INI_ENTRY("redlock.retry_delay", "200", PHP_INI_ALL, OnUpdateRange, retry_delay, zend_redlock_globals, redlock_globals)
    STD_PHP_INI_ENTRY("redlock.retry_jitter", "100", PHP_INI_ALL, OnUpdateRange, retry_jitter, zend_redlock_globals, redlock_globals)
    STD_PHP_INI_ENTRY("redlock.wait", "0", PHP_INI_ALL, OnUpdateRange, wait, zend_redlock_globals, redlock_globals)
    STD_PHP_INI_ENTRY("redlock.drift_factor", "0.01", PHP_INI_ALL, OnUpdateDrift, drift_factor, zend_redlock_globals, redlock_globals)
    STD_PHP_INI_ENTRY("redlock.connect_timeout", "50", PHP_INI_ALL, OnUpdateRange, connect_timeout, zend_redlock_globals, redlock_globals)
    STD_PHP_INI_ENTRY("redlock.timeout", "50", PHP_INI_ALL, OnUpdateRange, timeout, zend_redlock_globals, redlock_globals)
    STD_PHP_INI_BOOLEAN("redlock.persistent", "1", PHP_INI_ALL, OnUpdateBool, persistent, zend_redlock_globals, redlock_globals)
    STD_PHP_INI_ENTRY("redlock.prefix", "", PHP_INI_ALL, OnUpdatePrefix, prefix, zend_redlock_globals, redlock_globals)
    STD_PHP_INI_BOOLEAN("redlock.fencing", "0", PHP_INI_ALL, OnUpdateBool, fencing, zend_redlock_globals, redlock_globals)
    STD_PHP_INI_BOOLEAN("redlock.auto_release", "1", PHP_INI_ALL, OnUpdateBool, auto_release, zend_redlock_globals, redlock_globals)
    STD_PHP_INI_BOOLEAN("redlock.throw_on_lost", "0", PHP_INI_ALL, OnUpdateBool, throw_on_lost, zend_redlock_globals, redlock_globals)
PHP_INI_END()

/* ---------- module ---------- */

static PHP_GINIT_FUNCTION(redlock)
{
#if defined(COMPILE_DL_REDLOCK) && defined(ZTS)
    ZEND_TSRMLS_CACHE_UPDATE();
#endif
    memset(redlock_globals, 0, sizeof(*redlock_globals));
    zend_hash_init(&redlock_globals->pool, 8, NULL, pooled_dtor, 1);
}

static PHP_GSHUTDOWN_FUNCTION(redlock)
{
    zend_hash_destroy(&redlock_globals->pool);
}

PHP_MINIT_FUNCTION(redlock)
{
    REGISTER_INI_ENTRIES();

    php_redlock_ce = register_class_RedLock();
    php_redlock_ce->create_object = php_redlock_create;
    memcpy(&php_redlock_handlers, zend_get_std_object_handlers(), sizeof(zend_object_handlers));
    php_redlock_handlers.offset = XtOffsetOf(php_redlock_obj, std);
    php_redlock_handlers.free_obj = php_redlock_free;
    php_redlock_handlers.clone_obj = NULL;

    php_redlock_lock_ce = register_class_RedLock_Lock();
    php_redlock_lock_ce->create_object = php_redlock_lock_create;
    memcpy(&php_redlock_lock_handlers, zend_get_std_object_handlers(), sizeof(zend_object_handlers));
    php_redlock_lock_handlers.offset = XtOffsetOf(php_redlock_lock_obj, std);
    php_redlock_lock_handlers.free_obj = php_redlock_lock_free;
    php_redlock_lock_handlers.clone_obj = NULL;
    php_redlock_lock_handlers.get_constructor = php_redlock_lock_get_constructor;

    php_redlock_exception_ce = register_class_RedLock_Exception(spl_ce_RuntimeException);
    php_redlock_quorum_ce = register_class_RedLock_QuorumException(php_redlock_exception_ce);
    php_redlock_conflict_ce = register_class_RedLock_LockConflictException(php_redlock_exception_ce);
    php_redlock_lost_ce = register_class_RedLock_LockLostException(php_redlock_exception_ce);

    rl_fork_generation(); /* installs the atfork hook before any fork */
    return SUCCESS;
}

PHP_MSHUTDOWN_FUNCTION(redlock)
{
    UNREGISTER_INI_ENTRIES();
    return SUCCESS;
}

PHP_RINIT_FUNCTION(redlock)
{
#if defined(COMPILE_DL_REDLOCK) && defined(ZTS)
    ZEND_TSRMLS_CACHE_UPDATE();
#endif
    REDLOCK_G(request_id)++;
    zend_hash_init(&REDLOCK_G(held), 8, NULL, held_dtor, 0);
    REDLOCK_G(held_active) = true;
    return SUCCESS;
}

/* Runs after shutdown functions and destructors (php_request_shutdown calls
 * RSHUTDOWN later), also after exit(), uncaught exceptions, fatal errors and
 * max_execution_time, so every lock still held by this request is released. */
PHP_RSHUTDOWN_FUNCTION(redlock)
{
    php_redlock_held *h;
    uint64_t gen = rl_fork_generation();
    ZEND_HASH_FOREACH_PTR(&REDLOCK_G(held), h) {
        if (h->fork_gen != gen) continue; /* the parent's lock, not this process' */
        release_token(h->g, h->key, h->token, NULL);
    } ZEND_HASH_FOREACH_END();
    REDLOCK_G(held_active) = false;
    zend_hash_destroy(&REDLOCK_G(held));

    /* Before the process moves on (a CLI job may make no further call):
     * - what is still unwritten goes out now: a SET or release held behind a
     *   connect or an AUTH/SELECT gate, or behind a full socket;
     * - releases answered late may have met a NOSCRIPT (SCRIPT FLUSH): their
     *   retry goes out in this request;
     * - a non-persistent connection is closed only once nothing of ours is in
     *   flight on it: closing earlier could drop a release, or let an older
     *   SET still queued at the node land after it. Until then it stays (and
     *   is settled at a later request end).
     * Bounded by the nodes' own timeouts (at most 1 s). */
    php_redlock_pooled *p;
    rl_conn *busy[RL_MAX_NODES];
    int nbusy = 0, wait_ms = 20;
    ZEND_HASH_FOREACH_PTR(&REDLOCK_G(pool), p) {
        rl_conn *c = p->conn;
        if (nbusy < RL_MAX_NODES &&
            (rl_conn_unsent(c) || rl_conn_late_scripts(c) || (!p->persistent && rl_conn_busy(c)))) {
            busy[nbusy++] = c;
            int t = rl_conn_conf(c)->timeout_ms;
            if (t > wait_ms) wait_ms = t;
        }
    } ZEND_HASH_FOREACH_END();
    if (nbusy) {
        rl_net net = {.conns = busy, .n = nbusy, .clock = &rl_clock_monotonic};
        rl_net_drain(&net, (uint64_t)(wait_ms < 1000 ? wait_ms : 1000) * 1000u);
    }
    ZEND_HASH_FOREACH_PTR(&REDLOCK_G(pool), p) {
        if (!p->persistent && !rl_conn_busy(p->conn)) rl_conn_close(p->conn);
    } ZEND_HASH_FOREACH_END();
    return SUCCESS;
}

PHP_MINFO_FUNCTION(redlock)
{
    char buf[64];
    uint32_t open = 0;
    php_redlock_pooled *p;
    ZEND_HASH_FOREACH_PTR(&REDLOCK_G(pool), p) {
        if (rl_conn_is_open(p->conn)) open++;
    } ZEND_HASH_FOREACH_END();
    php_info_print_table_start();
    php_info_print_table_row(2, "redlock support", "enabled");
    php_info_print_table_row(2, "Version", PHP_REDLOCK_VERSION);
    snprintf(buf, sizeof(buf), "%d.%d.%d", HIREDIS_MAJOR, HIREDIS_MINOR, HIREDIS_PATCH);
    php_info_print_table_row(2, "hiredis version", buf);
    php_info_print_table_row(2, "TLS support", "no");
    snprintf(buf, sizeof(buf), "%u", zend_hash_num_elements(&REDLOCK_G(pool)));
    php_info_print_table_row(2, "Pooled connections", buf);
    snprintf(buf, sizeof(buf), "%u", open);
    php_info_print_table_row(2, "Open connections", buf);
    php_info_print_table_end();
    DISPLAY_INI_ENTRIES();
}

zend_module_entry redlock_module_entry = {
    STANDARD_MODULE_HEADER,
    "redlock",
    NULL,
    PHP_MINIT(redlock),
    PHP_MSHUTDOWN(redlock),
    PHP_RINIT(redlock),
    PHP_RSHUTDOWN(redlock),
    PHP_MINFO(redlock),
    PHP_REDLOCK_VERSION,
    PHP_MODULE_GLOBALS(redlock),
    PHP_GINIT(redlock),
    PHP_GSHUTDOWN(redlock),
    NULL,
    STANDARD_MODULE_PROPERTIES_EX
};

#ifdef COMPILE_DL_REDLOCK
#ifdef ZTS
ZEND_TSRMLS_CACHE_DEFINE()
#endif
ZEND_GET_MODULE(redlock)
#endif
