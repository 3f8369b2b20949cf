/* redlock_nodes.c -- the $nodes argument and groups of nodes (their connections come from the pool: redlock_pool.c). */
#include "php_redlock_int.h"

#include "zend_smart_str.h"

/* ---------- a group of nodes: shared by a RedLock and the locks it made ---------- */

void php_redlock_group_release(php_redlock_group *g)
{
    if (!g || --g->refcount > 0) return;
    for (int i = 0; i < g->n; i++) rl_node_conf_free(&g->conf[i]);
    php_redlock_opts_free(&g->opts);
    efree(g);
}

/* g's node list, as the pool's entries in order (FNV-1a of their addresses:
 * one entry per node and worker, so equal lists hash equal) */
static uint64_t nodes_key(const php_redlock_group *g)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)g->n;
    for (int i = 0; i < g->n; i++) {
        uintptr_t a = (uintptr_t)g->pooled[i];
        for (size_t b = 0; b < sizeof(a); b++) h = (h ^ ((a >> (8 * b)) & 0xff)) * 1099511628211ull;
    }
    return h;
}

/* the pooled calm entry is of g's settings (maxttl key, restart_grace,
 * drift_factor) and of g's node list: a node is calm as the judgment of one
 * list made it, whose evidence (the other nodes' answers, or none with one
 * node) another list may not share (HACKING.md "Restarted nodes", calm) */
static bool calm_same(const php_redlock_pooled *p, const php_redlock_group *g)
{
    const rl_restart *rs = g->ctx.rs;
    return p->calm_keylen == rs->maxttl_keylen && memcmp(p->calm_key, rs->maxttl_key, rs->maxttl_keylen) == 0 &&
           p->calm_grace == rs->grace_ms && p->calm_drift == g->opts.drift_factor && p->calm_nodes == nodes_key(g);
}

/* Before each call: pooled connections get the caller's timeouts, and a
 * connection reused from an earlier request is checked once (EOF, stray
 * bytes) so a Redis restart between requests costs only a reconnect; a node
 * this group does not know calm starts from the pool's entry. */
void php_redlock_group_prepare(php_redlock_group *g)
{
    uint64_t req = REDLOCK_G(request_id);
    rl_restart *rs = g->ctx.rs;
    for (int i = 0; i < g->n; i++) {
        php_redlock_pooled *p = g->pooled[i];
        rl_conn_set_timeouts(p->conn, g->connect_timeout[i], g->timeout[i]);
        if (p->last_request != req) {
            p->last_request = req;
            rl_conn_check(p->conn);
        }
        if (rs && !rs->calm[i].on && p->calm.on && calm_same(p, g)) rs->calm[i] = p->calm;
    }
}

void php_redlock_group_votes(php_redlock_group *g)
{
    if (!g->ctx.rs) return;
    for (int i = 0; i < g->n; i++) {
        php_redlock_pooled *p = g->pooled[i];
        const rl_restart *rs = g->ctx.rs;
        if (rs->calm[i].on) {
            if (!calm_same(p, g)) {
                p->calm_grace = rs->grace_ms;
                p->calm_drift = g->opts.drift_factor;
                p->calm_nodes = nodes_key(g);
                p->calm_keylen = rs->maxttl_keylen;
                memcpy(p->calm_key, rs->maxttl_key, rs->maxttl_keylen);
            }
            p->calm = rs->calm[i];
        } else if (p->calm.on && calm_same(p, g)) {
            p->calm.on = 0; /* this group found it changed: the next one checks it too */
        }
        if (!rs->judged_us[i]) continue;
        if (rs->novote_ms[i] > 0) {
            p->nv_until_us = rs->judged_us[i] + (uint64_t)rs->novote_ms[i] * 1000u;
            p->nv_since_us = rs->judged_us[i] - (uint64_t)rs->up_ms[i] * 1000u;
            p->nv_clock = rs->novote_clock[i];
            p->nv_need = rs->novote_need[i];
        } else {
            p->nv_until_us = p->nv_since_us = 0;
            p->nv_clock = false;
            p->nv_need = 0;
        }
    }
}

bool php_redlock_group_subscribers(php_redlock_group *g)
{
    if (!g->sub_pooled[0]) {
        for (int i = 0; i < g->n; i++) {
            /* the command connection's settings: they keep the secret the group wiped */
            g->sub_pooled[i] = php_redlock_pool_get_sub(g->pooled[i]);
            if (!g->sub_pooled[i]) {
                memset(g->sub_pooled, 0, sizeof(g->sub_pooled));
                return false;
            }
            g->subs[i] = g->sub_pooled[i]->conn;
        }
        rl_subs_init(&g->waiting, g->subs, g->n, &rl_clock_monotonic, &g->waiter);
        g->ctx.waiter = &g->waiter;
    }
    for (int i = 0; i < g->n; i++) rl_conn_set_timeouts(g->subs[i], g->connect_timeout[i], g->timeout[i]);
    return true;
}

void php_redlock_group_wait_done(php_redlock_group *g)
{
    if (!g->sub_pooled[0] || g->opts.persistent) return;
    /* nothing of a lock is ever in flight on a subscriber connection */
    for (int i = 0; i < g->n; i++) rl_conn_close(g->subs[i]);
}

/* ---------- node parsing ---------- */

typedef enum { NODE_STRING, NODE_STRING_OR_NULL, NODE_SECRET, NODE_INT, NODE_BOOL, NODE_TLS } node_key_type;

typedef struct node_key {
    const char *name;
    node_key_type type;
    size_t offset; /* in rl_node_conf: char * for strings, int for INT and BOOL */
    int limit;     /* enum rl_node_field */
} node_key;

/* What the same-server check compares: each node's host or socket, and port. */
static zend_string *distinct_id(const rl_node_conf *conf, int n)
{
    smart_str id = {0};
    for (int i = 0; i < n; i++) {
        if (conf[i].socket) {
            smart_str_appends(&id, "u:");
            smart_str_appends(&id, conf[i].socket);
        } else {
            smart_str_appends(&id, "t:");
            smart_str_appends(&id, conf[i].host ? conf[i].host : "");
            smart_str_appendc(&id, ':');
            smart_str_append_long(&id, conf[i].port);
        }
        smart_str_appendc(&id, '\n');
    }
    return smart_str_extract(&id);
}

/* The check resolves the names of nodes that share a port (every node on
 * 6379: a lookup per node and construction, in each FPM request). A worker
 * remembers a set it found distinct for RL_DISTINCT_MS, at most
 * RL_DISTINCT_MAX sets; at run time each connection's run_id still tells
 * one server behind two names (docs/api.md "Nodes"). */
#define RL_DISTINCT_MS 60000u
#define RL_DISTINCT_MAX 256u

/* rl_node_confs_find_same_server(), unless this worker found the same list
 * distinct less than RL_DISTINCT_MS ago (the time of that check counts, not
 * of the latest use: a list in constant use is checked again each minute). */
static int find_same_server(const rl_node_conf *conf, int n, int *first, int *second)
{
    if (n < 2) return 0;
    HashTable *ht = &REDLOCK_G(distinct);
    zend_string *id = distinct_id(conf, n);
    uint64_t now_ms = rl_clock_monotonic.now_us(NULL) / 1000u;
    zval *at = zend_hash_find(ht, id);
    int dup = 0;
    if (!at || now_ms - (uint64_t)Z_LVAL_P(at) >= RL_DISTINCT_MS) {
        dup = rl_node_confs_find_same_server(conf, n, first, second);
        if (dup == 0) {
            zval when;
            if (!at && zend_hash_num_elements(ht) >= RL_DISTINCT_MAX) zend_hash_clean(ht);
            ZVAL_LONG(&when, (zend_long)now_ms);
            zend_hash_str_update(ht, ZSTR_VAL(id), ZSTR_LEN(id), &when); /* a persistent copy of the key */
        }
    }
    zend_string_release(id);
    return dup;
}

static const node_key node_keys[] = {
#define X(k, t, field, lim) {.name = #k, .type = NODE_##t, .offset = offsetof(rl_node_conf, field), .limit = (lim)},
    REDLOCK_NODE_KEYS(X)
#undef X
};

#define NODE_ERR(fmt, ...)                                                                                     \
    do {                                                                                                       \
        if (key)                                                                                               \
            zend_argument_value_error(1, "entry \"%s\": " fmt, ZSTR_VAL(key), ##__VA_ARGS__);                  \
        else                                                                                                   \
            zend_argument_value_error(1, "entry " ZEND_ULONG_FMT ": " fmt, idx, ##__VA_ARGS__);                \
    } while (0)
#define NODE_TYPE_ERR(fmt, ...)                                                                                \
    do {                                                                                                       \
        if (key)                                                                                               \
            zend_argument_type_error(1, "entry \"%s\": " fmt, ZSTR_VAL(key), ##__VA_ARGS__);                   \
        else                                                                                                   \
            zend_argument_type_error(1, "entry " ZEND_ULONG_FMT ": " fmt, idx, ##__VA_ARGS__);                 \
    } while (0)

static const node_key *node_key_find(zend_string *k)
{
    for (size_t i = 0; i < sizeof(node_keys) / sizeof(node_keys[0]); i++)
        if (zend_string_equals_cstr(k, node_keys[i].name, strlen(node_keys[i].name))) return &node_keys[i];
    return NULL;
}

/* "host, port, ..." for the message about a key that is not a string */
static void node_key_names(smart_str *s)
{
    for (size_t i = 0; i < sizeof(node_keys) / sizeof(node_keys[0]); i++) {
        if (i) smart_str_appends(s, ", ");
        smart_str_appends(s, node_keys[i].name);
    }
    smart_str_0(s);
}

/* *tls_settings: the node's "tls" array when it gave one (turns TLS on; applied
 * over the option's settings by node_tls()) */
static zend_result node_from_array(HashTable *ht, zend_string *key, zend_ulong idx, rl_node_conf *c,
                                   HashTable **tls_settings)
{
    zend_string *k;
    zval *v;
    ZEND_HASH_FOREACH_STR_KEY_VAL(ht, k, v) {
        const node_key *nk = k ? node_key_find(k) : NULL;
        if (!nk) {
            if (k) {
                NODE_ERR("unknown key \"%s\"", ZSTR_VAL(k));
            } else {
                smart_str names = {0};
                node_key_names(&names);
                NODE_ERR("keys must be strings (%s)", ZSTR_VAL(names.s));
                smart_str_free(&names);
            }
            return FAILURE;
        }
        const char *f = nk->name;
        const rl_limit *lim = nk->limit >= 0 ? &rl_node_limits[nk->limit] : NULL;
        ZVAL_DEREF(v);
        switch (nk->type) {
        case NODE_STRING:
        case NODE_STRING_OR_NULL:
        case NODE_SECRET: {
            char **field = (char **)((char *)c + nk->offset);
            if (Z_TYPE_P(v) == IS_NULL && nk->type != NODE_STRING) break;
            if (Z_TYPE_P(v) != IS_STRING) {
                NODE_TYPE_ERR("\"%s\" must be of type string, %s given", f, zend_zval_type_name(v));
                return FAILURE;
            }
            if (memchr(Z_STRVAL_P(v), '\0', Z_STRLEN_P(v))) {
                NODE_ERR("\"%s\" must not contain NUL bytes", f);
                return FAILURE;
            }
            if (rl_node_check(nk->limit, 0, Z_STRVAL_P(v), Z_STRLEN_P(v)) != RL_LIMIT_OK) {
                if (nk->limit == RL_FIELD_SOCKET)
                    NODE_ERR("\"%s\" must be an absolute path of at most %lld bytes", f, lim->max);
                else if (lim->min == 0)
                    NODE_ERR("\"%s\" must be at most %lld bytes", f, lim->max);
                else
                    NODE_ERR("\"%s\" must be between %lld and %lld bytes", f, lim->min, lim->max);
                return FAILURE;
            }
            if (nk->type == NODE_SECRET) {
                /* copied as the core copies a secret (rl_secret_dup), never strndup */
                rl_secret_free(*field);
                *field = Z_STRLEN_P(v) == 0 ? NULL : rl_secret_dup(Z_STRVAL_P(v), Z_STRLEN_P(v));
            } else {
                free(*field);
                *field = strndup(Z_STRVAL_P(v), Z_STRLEN_P(v));
            }
            break;
        }
        case NODE_INT:
            if (Z_TYPE_P(v) != IS_LONG) {
                NODE_TYPE_ERR("\"%s\" must be of type int, %s given", f, zend_zval_type_name(v));
                return FAILURE;
            }
            if (rl_node_check(nk->limit, Z_LVAL_P(v), NULL, 0) != RL_LIMIT_OK) {
                NODE_ERR("\"%s\" must be between %lld and %lld", f, lim->min, lim->max);
                return FAILURE;
            }
            *(int *)((char *)c + nk->offset) = (int)Z_LVAL_P(v);
            break;
        case NODE_BOOL:
            if (Z_TYPE_P(v) != IS_TRUE && Z_TYPE_P(v) != IS_FALSE) {
                NODE_TYPE_ERR("\"%s\" must be of type bool, %s given", f, zend_zval_type_name(v));
                return FAILURE;
            }
            *(int *)((char *)c + nk->offset) = Z_TYPE_P(v) == IS_TRUE;
            break;
        case NODE_TLS:
            /* true, [] or an array of settings: TLS on; false: off */
            if (Z_TYPE_P(v) == IS_ARRAY) {
                *(int *)((char *)c + nk->offset) = 1;
                *tls_settings = Z_ARRVAL_P(v);
            } else if (Z_TYPE_P(v) == IS_TRUE || Z_TYPE_P(v) == IS_FALSE) {
                *(int *)((char *)c + nk->offset) = Z_TYPE_P(v) == IS_TRUE;
                *tls_settings = NULL;
            } else {
                NODE_TYPE_ERR("\"%s\" must be of type array|bool, %s given", f, zend_zval_type_name(v));
                return FAILURE;
            }
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
    if (c->host && !c->port) c->port = RL_DEFAULT_PORT;
    if (c->password == NULL && c->user) {
        NODE_ERR("\"user\" needs a \"password\"");
        return FAILURE;
    }
    return SUCCESS;
}

/* The TLS settings of TLS node c: the defaults, the "tls" option's settings,
 * then the node's own array (node_settings, may be NULL) setting by setting. */
static zend_result node_tls(php_redlock_group *g, rl_node_conf *c, HashTable *node_settings, zend_string *key,
                            zend_ulong idx)
{
    if (!rl_tls_available()) {
        NODE_ERR("TLS (rediss:// or \"tls\") is not available: this redlock was built without TLS support "
                 "(configure found no OpenSSL, or --disable-redlock-tls)");
        return FAILURE;
    }
    if (c->socket) {
        NODE_ERR("\"tls\" cannot be used with a unix socket");
        return FAILURE;
    }
    c->tls_conf = (rl_tls_conf){0}; /* verifies peer and name */
    if (php_redlock_tls_apply(&c->tls_conf, g->opts.tls) != SUCCESS) {
        zend_throw_error(NULL, "out of memory");
        return FAILURE;
    }
    if (node_settings) {
        char what[96];
        if (key)
            snprintf(what, sizeof(what), "entry \"%.40s%s\": \"tls\"", ZSTR_VAL(key), ZSTR_LEN(key) > 40 ? "..." : "");
        else
            snprintf(what, sizeof(what), "entry " ZEND_ULONG_FMT ": \"tls\"", idx);
        HashTable *parsed = php_redlock_tls_parse(node_settings, 1, what);
        if (!parsed) return FAILURE;
        zend_result r = php_redlock_tls_apply(&c->tls_conf, parsed);
        php_redlock_tls_release(parsed);
        if (r != SUCCESS) {
            zend_throw_error(NULL, "out of memory");
            return FAILURE;
        }
    }
    /* a key or a passphrase without the certificate they belong to would be ignored without a word */
    if (!c->tls_conf.local_cert && c->tls_conf.local_pk) {
        NODE_ERR("TLS setting \"local_pk\" needs \"local_cert\"");
        return FAILURE;
    }
    if (!c->tls_conf.local_cert && c->tls_conf.passphrase) {
        NODE_ERR("TLS setting \"passphrase\" needs \"local_cert\"");
        return FAILURE;
    }
    return SUCCESS;
}

/* A secret of c no longer needed once the pooled connection has its copy. */
static void wipe_secret(char **secret)
{
    rl_secret_free(*secret);
    *secret = NULL;
}

zend_result php_redlock_group_nodes(php_redlock_group *g, HashTable *nodes)
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
        *c = (rl_node_conf){
            .connect_timeout_ms = (int)g->opts.connect_timeout,
            .timeout_ms = (int)g->opts.timeout,
        };
        g->n++; /* counted before parsing so a failure frees it */
        ZVAL_DEREF(v);
        HashTable *tls_settings = NULL;
        if (Z_TYPE_P(v) == IS_STRING) {
            char err[160];
            if (rl_uri_parse(Z_STRVAL_P(v), Z_STRLEN_P(v), c, err, sizeof(err)) != 0) {
                NODE_ERR("invalid node URI: %s", err);
                return FAILURE;
            }
        } else if (Z_TYPE_P(v) == IS_ARRAY) {
            if (node_from_array(Z_ARRVAL_P(v), key, idx, c, &tls_settings) != SUCCESS) return FAILURE;
        } else {
            NODE_TYPE_ERR("must be of type string|array, %s given", zend_zval_type_name(v));
            return FAILURE;
        }
        if (c->tls && node_tls(g, c, tls_settings, key, idx) != SUCCESS) return FAILURE;
    } ZEND_HASH_FOREACH_END();

    /* one Redis server counted twice would forge a quorum: the database or
     * user does not make it another node; host names are compared by their
     * addresses, socket paths by the file they name */
    int first, second;
    int dup = find_same_server(g->conf, g->n, &first, &second);
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
        g->pooled[i] = php_redlock_pool_get(c, g->opts.persistent);
        if (!g->pooled[i]) {
            zend_throw_error(NULL, "out of memory");
            return FAILURE;
        }
        g->conns[i] = g->pooled[i]->conn;
        /* the group keeps node descriptions for nodes(); the secrets live
         * only in the pooled connection */
        wipe_secret(&c->password);
        wipe_secret(&c->tls_conf.passphrase);
    }
    g->net = (rl_net){.conns = g->conns, .n = g->n, .clock = &rl_clock_monotonic};
    /* rl_net_fanout over g->net, each node's results counted into the pool's metrics */
    g->tp = (rl_transport){.fanout = php_redlock_metrics_fanout, .ctx = g};
    g->ctx = (rl_ctx){.tp = &g->tp, .clock = &rl_clock_monotonic, .rnd = &rl_random_system, .n = g->n};
    return SUCCESS;
}

/* ---------- failures as exceptions ---------- */

void php_redlock_throw_quorum(php_redlock_group *g, const rl_call *call, const char *what)
{
    /* worded by the core, as for redlock(1): failed nodes with why, nodes
     * out of the quorum with why (README "Restarted nodes"), not awaited */
    const char *names[RL_MAX_NODES];
    for (int i = 0; i < g->n; i++) names[i] = g->pooled[i]->name;
    size_t len = rl_quorum_message(NULL, 0, what, call, g->n, names);
    zend_string *m = zend_string_alloc(len, 0);
    rl_quorum_message(ZSTR_VAL(m), len + 1, what, call, g->n, names);
    zend_throw_exception(php_redlock_quorum_ce, ZSTR_VAL(m), 0);
    zend_string_release(m);
}

/* Two nodes of the call turned out to be one Redis server (the core saw the
 * same server behind both at connect: a node failed with RL_E_SAME_SERVER,
 * or the outcome is RL_SAME_SERVER). Not a quorum failure to retry but a
 * configuration error: throws RedLock\Exception naming the node and returns
 * true; false when the call saw nothing of the kind. */
bool php_redlock_throw_same_server(php_redlock_group *g, const rl_call *call, int outcome, const char *what)
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
