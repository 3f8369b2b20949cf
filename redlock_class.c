/* redlock_class.c -- class RedLock: its object, the constructor, and the methods that hand out no new lock:
 * restore(), isLocked(), forceRelease(), releaseAll(), quorum(), nodes(), stats(). The methods that acquire are
 * redlock_acquire.c's; RedLock::metrics() is redlock_metrics_text.c's. */
#include "php_redlock_int.h"

static zend_object_handlers php_redlock_handlers;

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
    php_redlock_group_release(o->g);
    o->g = NULL;
    zval_ptr_dtor(&o->on_lost);
    ZVAL_UNDEF(&o->on_lost);
    zend_object_std_dtor(obj);
}

/* What the object holds for the cycle collector: its properties, and the
 * constructor's on_lost callable (which may hold the object itself). */
static HashTable *php_redlock_get_gc(zend_object *obj, zval **table, int *n)
{
    php_redlock_obj *o = php_redlock_from_obj(obj);
    if (!Z_REFCOUNTED(o->on_lost)) return zend_std_get_gc(obj, table, n);
    zval *props;
    int nprops;
    HashTable *ht = zend_std_get_gc(obj, &props, &nprops);
    zend_get_gc_buffer *buf = zend_get_gc_buffer_create();
    for (int i = 0; i < nprops; i++) zend_get_gc_buffer_add_zval(buf, &props[i]);
    zend_get_gc_buffer_add_zval(buf, &o->on_lost);
    zend_get_gc_buffer_use(buf, table, n);
    return ht;
}

void php_redlock_class_init(zend_class_entry *ce)
{
    ce->create_object = php_redlock_create;
    memcpy(&php_redlock_handlers, zend_get_std_object_handlers(), sizeof(zend_object_handlers));
    php_redlock_handlers.offset = XtOffsetOf(php_redlock_obj, std);
    php_redlock_handlers.free_obj = php_redlock_free;
    php_redlock_handlers.get_gc = php_redlock_get_gc;
    php_redlock_handlers.clone_obj = NULL;
}

/* ---------- methods ---------- */

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
    php_redlock_opts_from_ini(&g->opts);
    if ((options && php_redlock_opts_apply(&g->opts, options, 2, REDLOCK_IN_CTOR) != SUCCESS) ||
        php_redlock_group_nodes(g, nodes) != SUCCESS) {
        php_redlock_group_release(g);
        RETURN_THROWS();
    }
    /* the object keeps on_lost (see php_redlock_obj); acquire() (redlock_acquire.c) puts it back into each
     * call's options */
    ZVAL_COPY_VALUE(&o->on_lost, &g->opts.on_lost);
    ZVAL_UNDEF(&g->opts.on_lost);
    if (g->opts.restart_grace != 0) {
        /* docs/api.md "Restarted nodes": the longest TTL, kept per prefix on the nodes */
        size_t pl = ZSTR_LEN(g->opts.prefix);
        memcpy(g->maxttl_key, ZSTR_VAL(g->opts.prefix), pl);
        memcpy(g->maxttl_key + pl, RL_MAXTTL_SUFFIX, RL_MAXTTL_SUFFIX_LEN);
        g->rs.maxttl_key = g->maxttl_key;
        g->rs.maxttl_keylen = pl + RL_MAXTTL_SUFFIX_LEN;
        g->rs.grace_ms = g->opts.restart_grace > 0 ? (int)g->opts.restart_grace : RL_GRACE_AUTO;
        g->ctx.rs = &g->rs;
    }
    o->g = g;
}

/* A question about resource's key to every node (rl_is_locked,
 * rl_force_release); false when it threw (bad resource, one server named
 * twice). *g is the group asked. */
static bool ask_about_key(zval *self, zend_string *resource, const char *what,
                          int (*fn)(const rl_ctx *, const char *, size_t, rl_call *), rl_call *call,
                          php_redlock_group **g, int *r)
{
    *g = php_redlock_this_group(self);
    if (!*g || php_redlock_check_resource(resource, 1) != SUCCESS) return false;
    zend_string *key = php_redlock_key(*g, resource);
    php_redlock_group_prepare(*g);
    *r = fn(&(*g)->ctx, ZSTR_VAL(key), ZSTR_LEN(key), call);
    zend_string_release(key);
    return !php_redlock_throw_same_server(*g, call, *r, what);
}

PHP_METHOD(RedLock, isLocked)
{
    zend_string *resource;
    rl_call call;
    php_redlock_group *g;
    int r;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_STR(resource)
    ZEND_PARSE_PARAMETERS_END();
    if (!ask_about_key(ZEND_THIS, resource, "isLocked", rl_is_locked, &call, &g, &r)) RETURN_THROWS();
    if (r == RL_NO_QUORUM || r == RL_ERROR) {
        REDLOCK_G(quorum_failures)++;
        php_redlock_metrics_add(REDLOCK_M_QUORUM_FAILURES, 1);
        php_redlock_throw_quorum(g, &call, "isLocked");
        RETURN_THROWS();
    }
    RETURN_BOOL(r == RL_YES);
}

PHP_METHOD(RedLock, restore)
{
    zend_string *resource, *token, *k;
    HashTable *options = NULL, *resources = NULL;
    zval *v;
    ZEND_PARSE_PARAMETERS_START(2, 3)
        Z_PARAM_STR(resource)
        Z_PARAM_STR(token)
        Z_PARAM_OPTIONAL
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();
    php_redlock_group *g = php_redlock_this_group(ZEND_THIS);
    if (!g || php_redlock_check_resource(resource, 1) != SUCCESS) RETURN_THROWS();
    /* the same limits as the "token" option */
    if (ZSTR_LEN(token) < RL_TOKEN_MIN || ZSTR_LEN(token) > RL_TOKEN_MAX) {
        zend_argument_value_error(2, "must be between %d and %d bytes long", RL_TOKEN_MIN, RL_TOKEN_MAX);
        RETURN_THROWS();
    }
    if (memchr(ZSTR_VAL(token), '\0', ZSTR_LEN(token))) {
        zend_argument_value_error(2, "must not contain NUL bytes");
        RETURN_THROWS();
    }
    /* docs/api.md "Restore": 'resources' for a lockAll() lock; 'mode' exclusive,
     * shared, or permit with 'limit' (and 'weight'): a permit's slots are
     * known only to the nodes, so that one restore asks them */
    bool shared = false, permit = false;
    zend_long limit = 0, weight = 0;
    if (options) {
        ZEND_HASH_FOREACH_STR_KEY_VAL(options, k, v) {
            ZVAL_DEREF(v); /* an option given by reference: its value */
            if (k && zend_string_equals_literal(k, "resources")) {
                if (Z_TYPE_P(v) != IS_ARRAY) {
                    zend_argument_type_error(3, "\"resources\" must be of type array, %s given", zend_zval_type_name(v));
                    RETURN_THROWS();
                }
                resources = Z_ARRVAL_P(v);
            } else if (k && zend_string_equals_literal(k, "mode")) {
                if (Z_TYPE_P(v) != IS_STRING) {
                    zend_argument_type_error(3, "\"mode\" must be of type string, %s given", zend_zval_type_name(v));
                    RETURN_THROWS();
                }
                shared = zend_string_equals_literal(Z_STR_P(v), "shared");
                permit = zend_string_equals_literal(Z_STR_P(v), "permit");
                if (!shared && !permit && !zend_string_equals_literal(Z_STR_P(v), "exclusive")) {
                    zend_argument_value_error(3, "\"mode\" must be 'exclusive', 'shared' or 'permit'");
                    RETURN_THROWS();
                }
            } else if (k && (zend_string_equals_literal(k, "limit") || zend_string_equals_literal(k, "weight"))) {
                if (Z_TYPE_P(v) != IS_LONG) {
                    zend_argument_type_error(3, "\"%s\" must be of type int, %s given", ZSTR_VAL(k), zend_zval_type_name(v));
                    RETURN_THROWS();
                }
                if (Z_LVAL_P(v) < 1 || Z_LVAL_P(v) > RL_MAX_PERMITS) {
                    zend_argument_value_error(3, "\"%s\" must be between 1 and %d", ZSTR_VAL(k), RL_MAX_PERMITS);
                    RETURN_THROWS();
                }
                *(ZSTR_VAL(k)[0] == 'l' ? &limit : &weight) = Z_LVAL_P(v);
            } else {
                zend_argument_value_error(3, "contains unknown option \"%s\"", k ? ZSTR_VAL(k) : "(an integer key)");
                RETURN_THROWS();
            }
        } ZEND_HASH_FOREACH_END();
    }
    if (permit || limit || weight) {
        /* a permit (docs/api.md "Restore", "Semaphores"): its slots are asked of the nodes */
        if (!permit) {
            zend_argument_value_error(3, "\"limit\" and \"weight\" go with 'mode' => 'permit'");
            RETURN_THROWS();
        }
        if (!limit) {
            zend_argument_value_error(3, "\"limit\" is required with 'mode' => 'permit'");
            RETURN_THROWS();
        }
        if (weight > limit) {
            zend_argument_value_error(3, "\"weight\" must be between 1 and the limit (" ZEND_LONG_FMT ")", limit);
            RETURN_THROWS();
        }
        if (resources) {
            zend_argument_value_error(3, "\"resources\" cannot be given with 'mode' => 'permit'");
            RETURN_THROWS();
        }
        rl_call call;
        rl_permit_got got;
        zend_string *key = php_redlock_key(g, resource);
        php_redlock_group_prepare(g);
        rl_permit_req req = {.key = ZSTR_VAL(key), .keylen = ZSTR_LEN(key), .limit = (int)limit};
        int r = rl_find_permit(&g->ctx, &req, ZSTR_VAL(token), ZSTR_LEN(token), &got, &call);
        zend_string_release(key);
        char *slots = got.slots;
        size_t slotslen = got.slotslen;
        int found = got.found;
        if (php_redlock_throw_same_server(g, &call, r, "restore")) RETURN_THROWS();
        if (r == RL_NO_QUORUM) {
            REDLOCK_G(quorum_failures)++;
            php_redlock_metrics_add(REDLOCK_M_QUORUM_FAILURES, 1);
            php_redlock_throw_quorum(g, &call, "restore");
            RETURN_THROWS();
        }
        if (r == RL_ERROR) {
            zend_throw_exception(php_redlock_exception_ce, "restore: internal error (out of memory)", 0);
            RETURN_THROWS();
        }
        if (r == RL_LOST || (weight && found != weight)) {
            if (r == RL_ACQUIRED) free(slots);
            zend_throw_exception_ex(php_redlock_lost_ce, 0,
                                    "restore: this token holds %d permit(s) of \"%s\" (limit " ZEND_LONG_FMT
                                    ") on a quorum%s",
                                    found, ZSTR_VAL(resource), limit, weight ? ", not the weight given" : "");
            RETURN_THROWS();
        }
        php_redlock_lock_spec spec = {
            .g = g, .key = zend_string_init(slots, slotslen, 0), .resource = resource, .permit = true};
        php_redlock_lock_restored(return_value, &spec, token);
        free(slots);
        return;
    }
    if (!resources) {
        zend_string *key = php_redlock_key(g, resource);
        php_redlock_lock_spec spec = {.g = g, .key = shared ? php_redlock_shared_key(key) : key, .resource = resource};
        php_redlock_lock_restored(return_value, &spec, token);
        return;
    }
    zend_string *key = php_redlock_key_list(g, resources, 3, "\"resources\" ");
    if (!key) RETURN_THROWS();
    bool found = false;
    ZEND_HASH_FOREACH_VAL(resources, v) {
        ZVAL_DEREF(v);
        if (zend_string_equals(Z_STR_P(v), resource)) found = true;
    } ZEND_HASH_FOREACH_END();
    if (!found) {
        zend_string_release(key);
        zend_argument_value_error(3, "\"resources\" must include $resource (\"%s\")", ZSTR_VAL(resource));
        RETURN_THROWS();
    }
    HashTable *list = php_redlock_resource_list(resources);
    php_redlock_lock_spec spec = {
        .g = g, .key = shared ? php_redlock_shared_key(key) : key, .resource = resource, .resources = list};
    php_redlock_lock_restored(return_value, &spec, token);
    zend_array_release(list);
}

PHP_METHOD(RedLock, forceRelease)
{
    zend_string *resource;
    rl_call call;
    php_redlock_group *g;
    int r;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_STR(resource)
    ZEND_PARSE_PARAMETERS_END();
    if (!ask_about_key(ZEND_THIS, resource, "forceRelease", rl_force_release, &call, &g, &r)) RETURN_THROWS();
    RETURN_BOOL(r == RL_RELEASED);
}

/* Worker runtimes (FrankenPHP worker mode, RoadRunner, Swoole, Octane): one PHP
 * request serves many, so request end never comes between them. This is its
 * release and flush, and the request goes on with a new, empty list. */
PHP_METHOD(RedLock, releaseAll)
{
    ZEND_PARSE_PARAMETERS_NONE();
    int n = php_redlock_held_release_all(false);
    php_redlock_pool_flush();
    RETURN_LONG(n);
}

PHP_METHOD(RedLock, quorum)
{
    ZEND_PARSE_PARAMETERS_NONE();
    php_redlock_group *g = php_redlock_this_group(ZEND_THIS);
    if (!g) RETURN_THROWS();
    RETURN_LONG(rl_quorum(g->n));
}

PHP_METHOD(RedLock, nodes)
{
    ZEND_PARSE_PARAMETERS_NONE();
    php_redlock_group *g = php_redlock_this_group(ZEND_THIS);
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
    uint64_t nv_until_us, nv_since_us; /* out of the quorum (restarted), 0: votes */
    bool nv_clock;                     /* (for a clock step) */
    unsigned char nv_need;             /* past its grace, waits for more voters' answers */
    int no_info;
} node_agg;

typedef struct node_aggs {
    node_agg *agg;
    uint32_t n;
    uint64_t now;
} node_aggs;

/* one pooled connection's figures into its node's (php_redlock_pool_each) */
static void agg_pooled(php_redlock_pooled *p, void *ctx)
{
    node_aggs *x = ctx;
    if (p->sub) return; /* they carry no lock command */
    const rl_node_stats *st = rl_conn_stats(p->conn);
    node_agg *a = NULL;
    for (uint32_t i = 0; i < x->n; i++)
        if (strcmp(x->agg[i].name, p->name) == 0) a = &x->agg[i];
    if (!a) {
        a = &x->agg[x->n++];
        *a = (node_agg){.name = p->name};
    }
    a->st.ok += st->ok;
    a->st.errors += st->errors;
    a->st.timeouts += st->timeouts;
    a->st.skipped += st->skipped;
    /* docs/api.md "Restarted nodes": out of the quorum as its last call judged, or no INFO */
    rl_ident id;
    rl_conn_ident(p->conn, &id);
    if ((p->nv_until_us > x->now || p->nv_need) && (!a->nv_until_us || p->nv_until_us > a->nv_until_us)) {
        a->nv_until_us = p->nv_until_us;
        a->nv_since_us = p->nv_since_us;
        a->nv_clock = p->nv_clock;
        a->nv_need = p->nv_need;
    }
    a->no_info |= id.no_info;
    if (st->last_error[0]) memcpy(a->st.last_error, st->last_error, sizeof(st->last_error));
    rl_latency_merge(&a->st.lat, &st->lat);
}

PHP_METHOD(RedLock, stats)
{
    ZEND_PARSE_PARAMETERS_NONE();
    php_redlock_group *g = php_redlock_this_group(ZEND_THIS);
    if (!g) RETURN_THROWS();
    zval nodes;
    array_init(return_value);
    add_assoc_long(return_value, "acquired", REDLOCK_G(acquired));
    add_assoc_long(return_value, "conflicts", REDLOCK_G(conflicts));
    add_assoc_long(return_value, "quorum_failures", REDLOCK_G(quorum_failures));
    add_assoc_long(return_value, "released", REDLOCK_G(released));
    add_assoc_long(return_value, "extended", REDLOCK_G(extended));
    add_assoc_long(return_value, "attempts", REDLOCK_G(attempts));
    add_assoc_long(return_value, "wakeups", REDLOCK_G(wakeups));
    add_assoc_long(return_value, "auto_extended", (zend_long)rl_watchdog_extended());

    /* every connection of this worker, merged by node name (a server may
     * have several: another database, user or persistence setting) */
    uint32_t cap = php_redlock_pool_size();
    node_aggs x = {.agg = safe_emalloc(cap ? cap : 1, sizeof(node_agg), 0), .now = rl_clock_monotonic.now_us(NULL)};
    php_redlock_pool_each(agg_pooled, &x);
    node_agg *agg = x.agg;
    uint32_t na = x.n;
    uint64_t now = x.now;

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
        add_assoc_bool(&node, "voting", !a->nv_until_us);
        if (a->nv_until_us) {
            /* worded as in a QuorumException: the core's rl_result_why */
            rl_result r = {.state = RL_ANSWERED,
                           .novote_ms = a->nv_until_us > now ? (int64_t)((a->nv_until_us - now + 999u) / 1000u) : 0,
                           .up_ms = (int64_t)((now - a->nv_since_us) / 1000u),
                           .novote_clock = a->nv_clock,
                           .novote_need = a->nv_need};
            char why[RL_REASON_LEN + 64];
            rl_result_why(&r, why, sizeof(why));
            add_assoc_string(&node, "not_voting_why", why);
        } else if (a->no_info) {
            add_assoc_string(&node, "not_voting_why", "restart check: no INFO");
        } else {
            add_assoc_null(&node, "not_voting_why");
        }
        add_assoc_zval(&nodes, a->name, &node);
    }
    efree(agg);
    add_assoc_zval(return_value, "nodes", &nodes);
}
