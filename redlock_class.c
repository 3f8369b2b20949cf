/* redlock_class.c -- class RedLock: the constructor, lock(), synchronized(), isLocked(), restore(), forceRelease(),
 * quorum(), nodes(), stats(). */
#include "php_redlock_int.h"

static zend_object_handlers php_redlock_handlers;

static inline php_redlock_obj *php_redlock_from_obj(zend_object *o)
{
    return (php_redlock_obj *)((char *)o - XtOffsetOf(php_redlock_obj, std));
}
#define Z_REDLOCK_P(zv) php_redlock_from_obj(Z_OBJ_P(zv))

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

/* ---------- arguments ---------- */

static zend_result check_resource(zend_string *res, uint32_t argn)
{
    if (ZSTR_LEN(res) < 1 || ZSTR_LEN(res) > REDLOCK_MAX_RESOURCE) {
        zend_argument_value_error(argn, "must be between 1 and %d bytes long", REDLOCK_MAX_RESOURCE);
        return FAILURE;
    }
    if (memchr(ZSTR_VAL(res), '\0', ZSTR_LEN(res))) {
        zend_argument_value_error(argn, "must not contain NUL bytes");
        return FAILURE;
    }
    return SUCCESS;
}

zend_result php_redlock_check_ttl(zend_long ttl, uint32_t argn)
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

/* A read lock's key (docs/api.md "Read locks", rl.h rl_key_is_shared): the key
 * list with an empty first entry; key (a key or a list) is released. */
static zend_string *shared_key(zend_string *key)
{
    const char *k = ZSTR_VAL(key);
    size_t kl = ZSTR_LEN(key), len;
    zend_string *s;
    if (rl_key_is_list(k, kl)) {
        s = zend_string_alloc(kl + 2, 0);
        memcpy(ZSTR_VAL(s), "\0\0\0", 3);
        memcpy(ZSTR_VAL(s) + 3, k + 1, kl - 1);
        len = kl + 2;
    } else {
        s = zend_string_alloc(kl + 5, 0);
        memcpy(ZSTR_VAL(s), "\0\0\0", 3);
        ZSTR_VAL(s)[3] = (char)(kl >> 8);
        ZSTR_VAL(s)[4] = (char)(kl & 255);
        memcpy(ZSTR_VAL(s) + 5, k, kl);
        len = kl + 5;
    }
    ZSTR_VAL(s)[len] = '\0';
    zend_string_release(key);
    return s;
}

/* The per-call option 'shared' (a bool, no INI) taken out of options: *rest
 * the others (a copy to release, or options itself); FAILURE when it threw. */
static zend_result take_shared(HashTable *options, uint32_t argn, bool *shared, HashTable **rest, bool *copied)
{
    *shared = false;
    *rest = options;
    *copied = false;
    zval *v = options ? zend_hash_str_find(options, "shared", sizeof("shared") - 1) : NULL;
    if (!v) return SUCCESS;
    ZVAL_DEREF(v);
    if (Z_TYPE_P(v) != IS_TRUE && Z_TYPE_P(v) != IS_FALSE) {
        zend_argument_type_error(argn, "\"shared\" must be of type bool, %s given", zend_zval_type_name(v));
        return FAILURE;
    }
    *shared = Z_TYPE_P(v) == IS_TRUE;
    *rest = zend_array_dup(options);
    *copied = true;
    zend_hash_str_del(*rest, "shared", sizeof("shared") - 1);
    return SUCCESS;
}

static php_redlock_group *this_group(zval *this_zv)
{
    php_redlock_obj *o = Z_REDLOCK_P(this_zv);
    if (!o->g) zend_throw_error(NULL, "RedLock object is not initialized");
    return o->g;
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
    /* the object keeps on_lost (see php_redlock_obj); do_lock() puts it back into each call's options */
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

/* lockAll()'s resources (docs/api.md "Several resources"): 1 to 64 distinct
 * strings, each as lock()'s $resource. Their keys' list (rl.h rl_key_is_list)
 * is what the core takes for them all; NULL when it threw. */
static zend_string *key_list(php_redlock_group *g, HashTable *resources, uint32_t argn, const char *what)
{
    uint32_t n = zend_hash_num_elements(resources), k = 0;
    if (n < 1 || n > RL_MAX_LIST) {
        zend_argument_value_error(argn, "%smust hold 1 to %d resources, %u given", what, RL_MAX_LIST, n);
        return NULL;
    }
    size_t pl = ZSTR_LEN(g->opts.prefix), len = 0;
    zval *v;
    ZEND_HASH_FOREACH_VAL(resources, v) {
        ZVAL_DEREF(v); /* an element given by reference: its value */
        if (Z_TYPE_P(v) != IS_STRING) {
            zend_argument_type_error(argn, "%smust hold only strings, %s given", what, zend_zval_type_name(v));
            return NULL;
        }
        zend_string *r = Z_STR_P(v);
        if (ZSTR_LEN(r) < 1 || ZSTR_LEN(r) > REDLOCK_MAX_RESOURCE || memchr(ZSTR_VAL(r), '\0', ZSTR_LEN(r))) {
            zend_argument_value_error(argn, "%selement %u must be 1 to %d bytes long, without NUL bytes", what, k,
                                      REDLOCK_MAX_RESOURCE);
            return NULL;
        }
        /* (at most 64: the pairs are compared directly) */
        zval *w;
        uint32_t j = 0;
        ZEND_HASH_FOREACH_VAL(resources, w) {
            if (j++ >= k) break;
            ZVAL_DEREF(w);
            if (zend_string_equals(Z_STR_P(w), r)) {
                zend_argument_value_error(argn, "%smust not name \"%s\" twice", what, ZSTR_VAL(r));
                return NULL;
            }
        } ZEND_HASH_FOREACH_END();
        len += 2 + pl + ZSTR_LEN(r);
        k++;
    } ZEND_HASH_FOREACH_END();
    /* (a resource and the prefix are at most 512 bytes each: every key fits the list's 2-byte length) */
    zend_string *key = zend_string_alloc(1 + len, 0);
    size_t at = 0;
    char kbuf[REDLOCK_MAX_PREFIX + REDLOCK_MAX_RESOURCE];
    memcpy(kbuf, ZSTR_VAL(g->opts.prefix), pl);
    ZEND_HASH_FOREACH_VAL(resources, v) {
        ZVAL_DEREF(v);
        memcpy(kbuf + pl, Z_STRVAL_P(v), Z_STRLEN_P(v));
        rl_list_add(ZSTR_VAL(key), 1 + len, &at, kbuf, pl + Z_STRLEN_P(v));
    } ZEND_HASH_FOREACH_END();
    ZSTR_VAL(key)[at] = '\0';
    return key;
}

/* the resources of a list, as a fresh packed array in their order */
static HashTable *resource_list(HashTable *resources)
{
    HashTable *ht = zend_new_array(zend_hash_num_elements(resources));
    zend_hash_real_init_packed(ht);
    zval *v;
    ZEND_HASH_FOREACH_VAL(resources, v) {
        ZVAL_DEREF(v); /* the value, never the caller's reference */
        Z_TRY_ADDREF_P(v);
        zend_hash_next_index_insert_new(ht, v);
    } ZEND_HASH_FOREACH_END();
    return ht;
}

/* key: the key (list) to lock, owned by the call, or NULL for resource's;
 * resources: lockAll()'s list (its first is resource), else NULL */
/* limit > 0: one of the semaphore's permits (weight of them) instead of a lock */
static php_redlock_lock_obj *do_lock(php_redlock_obj *obj, zend_string *resource, zend_string *key,
                                     HashTable *resources, zend_long ttl, HashTable *options, uint32_t opt_argn,
                                     zval *out, bool *conflict, int limit, int weight)
{
    php_redlock_group *g = obj->g;
    php_redlock_opts o;
    rl_call call;
    rl_lock_info info;
    php_redlock_lock_obj *l = NULL;
    *conflict = false;
    php_redlock_opts_copy(&o, &g->opts);
    ZVAL_COPY(&o.on_lost, &obj->on_lost); /* (UNDEF in g->opts: nothing to free) */
    if (options && php_redlock_opts_apply(&o, options, opt_argn, REDLOCK_IN_CALL) != SUCCESS) {
        php_redlock_opts_free(&o);
        if (key) zend_string_release(key);
        return NULL;
    }

    if (o.fair && (resources || limit > 0 || (key && rl_key_is_shared(ZSTR_VAL(key), ZSTR_LEN(key))))) {
        /* (docs/api.md "Fair waiting": one exclusive resource; a default from
         * the constructor or INI applies where it can, the call's own asks) */
        zval *f = options ? zend_hash_str_find(options, "fair", sizeof("fair") - 1) : NULL;
        if (f && zend_is_true(f)) {
            zend_argument_value_error(opt_argn, "\"fair\" cannot be combined with %s: fair waiting queues for one exclusive lock",
                                      resources ? "lockAll()" : limit > 0 ? "semaphore()" : "\"shared\"");
            php_redlock_opts_free(&o);
            if (key) zend_string_release(key);
            return NULL;
        }
        o.fair = false;
    }

    rl_opts ro = {
        .retry_count = (int)o.retry_count,
        .retry_delay_ms = (int)o.retry_delay,
        .retry_jitter_ms = (int)o.retry_jitter,
        .wait_ms = (int)o.wait,
        .drift_factor = o.drift_factor,
        .wake_on_release = o.wake_on_release,
        .fair = o.fair,
    };
    /* a caller-chosen token (docs/api.md "Restore"): checked by the option's limits */
    if (ZSTR_LEN(o.token) > 0) {
        ro.token = ZSTR_VAL(o.token);
        ro.token_len = ZSTR_LEN(o.token);
    }
    /* the fence counter: one key per prefix, no lock key can equal it (resources have no NUL) */
    static const char fence_suffix[] = "\0redlock:fence";
    char fence_key[REDLOCK_MAX_PREFIX + sizeof(fence_suffix)];
    if (o.fencing) {
        size_t pl = ZSTR_LEN(g->opts.prefix);
        memcpy(fence_key, ZSTR_VAL(g->opts.prefix), pl);
        memcpy(fence_key + pl, fence_suffix, sizeof(fence_suffix) - 1);
        ro.fence_key = fence_key;
        ro.fence_keylen = pl + sizeof(fence_suffix) - 1;
    }
    if (!key) key = make_key(g, resource);
    php_redlock_group_prepare(g);
    bool waits = o.wait > 0 && o.wake_on_release;
    if (waits && !php_redlock_group_subscribers(g)) ro.wake_on_release = 0; /* out of memory: the timer alone */
    uint64_t called_us = rl_clock_monotonic.now_us(NULL); /* redlock_wait_seconds counts from here */
    info.attempts = info.wakeups = 0; /* (set by rl_acquire but on bad arguments) */
    int r, other_limit = 0;
    if (limit > 0) {
        rl_permit_req req = {ZSTR_VAL(key), ZSTR_LEN(key), (int)limit, (int)weight, (int)ttl};
        rl_permit_got got;
        r = rl_acquire_permit(&g->ctx, &req, &ro, &info, &got, &call);
        other_limit = got.other_limit;
        if (r == RL_ACQUIRED) {
            /* the permit is the list of its slots' keys: released, extended and watched as any key */
            zend_string_release(key);
            key = zend_string_init(got.slots, got.slotslen, 0);
            free(got.slots);
        }
    } else {
        r = rl_acquire(&g->ctx, ZSTR_VAL(key), ZSTR_LEN(key), (int)ttl, &ro, &info, &call);
    }
    REDLOCK_G(attempts) += info.attempts;
    REDLOCK_G(wakeups) += info.wakeups;
    php_redlock_metrics_add(REDLOCK_M_ATTEMPTS, (uint64_t)info.attempts);
    if (info.wakeups) php_redlock_metrics_add(REDLOCK_M_WAKEUPS, (uint64_t)info.wakeups);
    php_redlock_group_votes(g);
    if (waits) php_redlock_group_wait_done(g);
    if (php_redlock_throw_same_server(g, &call, r, "lock")) {
        /* never hand out a lock counted on one server twice */
        if (r == RL_ACQUIRED) rl_release(&g->ctx, ZSTR_VAL(key), ZSTR_LEN(key), info.token, NULL);
        zend_string_release(key);
    } else if (r == RL_ACQUIRED) {
        /* on_lost: NULL unless asked for (opt_argn 4: synchronized()) */
        php_redlock_lost *lost = php_redlock_lost_new(&o, opt_argn == 4 && limit == 0); /* (semaphore(): options are #4 too) */
        bool watched = o.auto_extend || lost;
        rl_watch *w = watched ? php_redlock_watch_start(g, key, ttl, &info, &o, lost) : NULL;
        if (watched && !w) {
            /* a lock that would silently expire under work of unknown length is worse than none */
            rl_release(&g->ctx, ZSTR_VAL(key), ZSTR_LEN(key), info.token, NULL);
            zend_string_release(key);
            if (lost) php_redlock_lost_free(lost);
            zend_throw_exception(php_redlock_exception_ce,
                                 "lock: could not start the auto_extend watchdog (out of memory or no thread)", 0);
        } else {
            REDLOCK_G(acquired)++;
            l = php_redlock_lock_new(out, g, key, resource, resources, ttl, &info, &o, w, limit > 0);
            if (lost) php_redlock_lost_attach(l, lost);
            php_redlock_metrics_acquired(l->acquired_us - called_us,
                                         limit > 0 ? 1 : rl_key_is_shared(ZSTR_VAL(key), ZSTR_LEN(key)) ? 2 : 0,
                                         php_redlock_metrics_resource(ZSTR_VAL(resource), ZSTR_LEN(resource)));
        }
    } else {
        if (r == RL_NO_QUORUM) {
            REDLOCK_G(quorum_failures)++;
            php_redlock_metrics_add(REDLOCK_M_QUORUM_FAILURES, 1);
            php_redlock_throw_quorum(g, &call, "lock");
        } else if (r == RL_LIMIT) {
            zend_throw_exception_ex(php_redlock_exception_ce, 0,
                                    "semaphore: permits of \"%s\" are held under a limit of %d, not %d",
                                    ZSTR_VAL(resource), other_limit, limit);
        } else if (r == RL_ERROR) {
            zend_throw_exception(php_redlock_exception_ce,
                                 "lock: internal error (out of memory or random source failed)", 0);
        } else {
            REDLOCK_G(conflicts)++;
            php_redlock_metrics_conflict(php_redlock_metrics_resource(ZSTR_VAL(resource), ZSTR_LEN(resource)));
            *conflict = true;
        }
        zend_string_release(key);
    }
    php_redlock_opts_free(&o);
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
    if (!g || check_resource(resource, 1) != SUCCESS || php_redlock_check_ttl(ttl, 2) != SUCCESS) RETURN_THROWS();
    bool shared, copied;
    HashTable *rest;
    if (take_shared(options, 3, &shared, &rest, &copied) != SUCCESS) RETURN_THROWS();
    php_redlock_lock_obj *l = do_lock(Z_REDLOCK_P(ZEND_THIS), resource, shared ? shared_key(make_key(g, resource)) : NULL,
                                      NULL, ttl, rest, 3, return_value, &conflict, 0, 0);
    if (copied) zend_array_release(rest);
    if (!l) {
        if (EG(exception)) RETURN_THROWS();
        RETURN_NULL();
    }
}

PHP_METHOD(RedLock, semaphore)
{
    zend_string *resource;
    zend_long limit, ttl, weight = 1;
    HashTable *options = NULL;
    bool conflict;
    ZEND_PARSE_PARAMETERS_START(3, 4)
        Z_PARAM_STR(resource)
        Z_PARAM_LONG(limit)
        Z_PARAM_LONG(ttl)
        Z_PARAM_OPTIONAL
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();
    php_redlock_group *g = this_group(ZEND_THIS);
    if (!g || check_resource(resource, 1) != SUCCESS) RETURN_THROWS();
    if (limit < 1 || limit > RL_MAX_PERMITS) {
        zend_argument_value_error(2, "must be between 1 and %d", RL_MAX_PERMITS);
        RETURN_THROWS();
    }
    if (php_redlock_check_ttl(ttl, 3) != SUCCESS) RETURN_THROWS();
    /* 'weight' is the semaphore's own option; the others are lock()'s */
    HashTable *rest = NULL;
    if (options) {
        zval *w = zend_hash_str_find(options, "weight", sizeof("weight") - 1);
        if (w) {
            ZVAL_DEREF(w); /* given by reference: its value ("int given" would contradict "must be int") */
            if (Z_TYPE_P(w) != IS_LONG) {
                zend_argument_type_error(4, "\"weight\" must be of type int, %s given", zend_zval_type_name(w));
                RETURN_THROWS();
            }
            weight = Z_LVAL_P(w);
            if (weight < 1 || weight > limit) {
                zend_argument_value_error(4, "\"weight\" must be between 1 and the limit (" ZEND_LONG_FMT ")", limit);
                RETURN_THROWS();
            }
        }
        if (zend_hash_str_exists(options, "token", sizeof("token") - 1)) {
            zend_argument_value_error(4, "\"token\" cannot be used with semaphore()");
            RETURN_THROWS();
        }
        if (zend_hash_str_exists(options, "shared", sizeof("shared") - 1)) {
            zend_argument_value_error(4, "\"shared\" cannot be used with semaphore() (a permit is never a read lock)");
            RETURN_THROWS();
        }
        rest = zend_array_dup(options);
        zend_hash_str_del(rest, "weight", sizeof("weight") - 1);
    }
    php_redlock_lock_obj *l = do_lock(Z_REDLOCK_P(ZEND_THIS), resource, NULL, NULL, ttl, rest, 4, return_value,
                                      &conflict, (int)limit, (int)weight);
    if (rest) zend_array_release(rest);
    if (!l) {
        if (EG(exception)) RETURN_THROWS();
        RETURN_NULL();
    }
}

PHP_METHOD(RedLock, lockAll)
{
    HashTable *resources, *options = NULL;
    zend_long ttl;
    bool conflict;
    ZEND_PARSE_PARAMETERS_START(2, 3)
        Z_PARAM_ARRAY_HT(resources)
        Z_PARAM_LONG(ttl)
        Z_PARAM_OPTIONAL
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();
    php_redlock_group *g = this_group(ZEND_THIS);
    if (!g) RETURN_THROWS();
    zend_string *key = key_list(g, resources, 1, "");
    if (!key) RETURN_THROWS();
    if (php_redlock_check_ttl(ttl, 2) != SUCCESS) {
        zend_string_release(key);
        RETURN_THROWS();
    }
    bool shared, copied;
    HashTable *rest;
    if (take_shared(options, 3, &shared, &rest, &copied) != SUCCESS) {
        zend_string_release(key);
        RETURN_THROWS();
    }
    if (shared) key = shared_key(key);
    HashTable *list = resource_list(resources);
    zval *first = zend_hash_index_find(list, 0);
    php_redlock_lock_obj *l =
        do_lock(Z_REDLOCK_P(ZEND_THIS), Z_STR_P(first), key, list, ttl, rest, 3, return_value, &conflict, 0, 0);
    zend_array_release(list);
    if (copied) zend_array_release(rest);
    if (!l) {
        if (EG(exception)) RETURN_THROWS();
        RETURN_NULL();
    }
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
    if (!g || check_resource(resource, 1) != SUCCESS || php_redlock_check_ttl(ttl, 2) != SUCCESS) RETURN_THROWS();
    bool shared, copied;
    HashTable *rest;
    if (take_shared(options, 4, &shared, &rest, &copied) != SUCCESS) RETURN_THROWS();
    php_redlock_lock_obj *l = do_lock(Z_REDLOCK_P(ZEND_THIS), resource, shared ? shared_key(make_key(g, resource)) : NULL,
                                      NULL, ttl, rest, 4, &lock_zv, &conflict, 0, 0);
    if (copied) zend_array_release(rest);
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
        int r = php_redlock_lock_release(l, &call);
        if (r != RL_NO_QUORUM) php_redlock_held_forget(l);
        /* $fn's exception wins; else a same-server finding, else a lost lock */
        if (!pending && !php_redlock_throw_same_server(g, &call, r, "synchronized") && r != RL_RELEASED &&
            l->throw_on_lost) {
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

/* A question about resource's key to every node (rl_is_locked,
 * rl_force_release); false when it threw (bad resource, one server named
 * twice). *g is the group asked. */
static bool ask_about_key(zval *self, zend_string *resource, const char *what,
                          int (*fn)(const rl_ctx *, const char *, size_t, rl_call *), rl_call *call,
                          php_redlock_group **g, int *r)
{
    *g = this_group(self);
    if (!*g || check_resource(resource, 1) != SUCCESS) return false;
    zend_string *key = make_key(*g, resource);
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
    php_redlock_group *g = this_group(ZEND_THIS);
    if (!g || check_resource(resource, 1) != SUCCESS) RETURN_THROWS();
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
        zend_string *key = make_key(g, resource);
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
        php_redlock_lock_restored(return_value, g, zend_string_init(slots, slotslen, 0), NULL, resource, token, true);
        free(slots);
        return;
    }
    if (!resources) {
        zend_string *key = make_key(g, resource);
        php_redlock_lock_restored(return_value, g, shared ? shared_key(key) : key, NULL, resource, token, false);
        return;
    }
    zend_string *key = key_list(g, resources, 3, "\"resources\" ");
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
    HashTable *list = resource_list(resources);
    php_redlock_lock_restored(return_value, g, shared ? shared_key(key) : key, list, resource, token, false);
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
    php_redlock_group *g = this_group(ZEND_THIS);
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
