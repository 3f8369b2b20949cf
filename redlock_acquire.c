/* redlock_acquire.c -- RedLock's methods that acquire: lock(), lockAll(), semaphore(), synchronized(), and the
 * one acquisition they share (acquire(): options, the core's call, the outcome's counters, exceptions and Lock). */
#include "php_redlock_int.h"

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

/* One acquisition, as its method parsed it. */
typedef struct acquire_req {
    zend_string *resource; /* $resource (lockAll(): the first): the Lock's, and the metrics' prefix */
    zend_string *key;      /* the key (list) to lock, owned by the call, or NULL for resource's */
    HashTable *resources;  /* lockAll()'s list (its first is resource), else NULL */
    zend_long ttl;
    HashTable *options;    /* the call's options, or NULL */
    uint32_t opt_argn;     /* their argument number (in errors) */
    bool synchronized;     /* synchronized(): on_lost is 'throw' with auto_extend unless told */
    int limit, weight;     /* limit > 0: weight of the semaphore's limit permits instead of a lock */
} acquire_req;

/* The Lock in out, or NULL: a conflict, or it threw. */
static php_redlock_lock_obj *acquire(php_redlock_obj *obj, const acquire_req *req, zval *out)
{
    php_redlock_group *g = obj->g;
    php_redlock_opts o;
    rl_call call;
    rl_lock_info info;
    php_redlock_lock_obj *l = NULL;
    zend_string *key = req->key;
    php_redlock_opts_copy(&o, &g->opts);
    ZVAL_COPY(&o.on_lost, &obj->on_lost); /* (UNDEF in g->opts: nothing to free) */
    if (req->options && php_redlock_opts_apply(&o, req->options, req->opt_argn, REDLOCK_IN_CALL) != SUCCESS) {
        php_redlock_opts_free(&o);
        if (key) zend_string_release(key);
        return NULL;
    }

    if (o.fair && (req->resources || req->limit > 0 || (key && rl_key_is_shared(ZSTR_VAL(key), ZSTR_LEN(key))))) {
        /* (docs/api.md "Fair waiting": one exclusive resource; a default from
         * the constructor or INI applies where it can, the call's own asks) */
        zval *f = req->options ? zend_hash_str_find(req->options, "fair", sizeof("fair") - 1) : NULL;
        if (f && zend_is_true(f)) {
            zend_argument_value_error(req->opt_argn,
                                      "\"fair\" cannot be combined with %s: fair waiting queues for one exclusive lock",
                                      req->resources ? "lockAll()" : req->limit > 0 ? "semaphore()" : "\"shared\"");
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
    if (!key) key = php_redlock_key(g, req->resource);
    php_redlock_group_prepare(g);
    bool waits = o.wait > 0 && o.wake_on_release;
    if (waits && !php_redlock_group_subscribers(g)) ro.wake_on_release = 0; /* out of memory: the timer alone */
    uint64_t called_us = rl_clock_monotonic.now_us(NULL); /* redlock_wait_seconds counts from here */
    info.attempts = info.wakeups = 0; /* (set by rl_acquire but on bad arguments) */
    int r, other_limit = 0;
    if (req->limit > 0) {
        rl_permit_req preq = {ZSTR_VAL(key), ZSTR_LEN(key), req->limit, req->weight, (int)req->ttl};
        rl_permit_got got;
        r = rl_acquire_permit(&g->ctx, &preq, &ro, &info, &got, &call);
        other_limit = got.other_limit;
        if (r == RL_ACQUIRED) {
            /* the permit is the list of its slots' keys: released, extended and watched as any key */
            zend_string_release(key);
            key = zend_string_init(got.slots, got.slotslen, 0);
            free(got.slots);
        }
    } else {
        r = rl_acquire(&g->ctx, ZSTR_VAL(key), ZSTR_LEN(key), (int)req->ttl, &ro, &info, &call);
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
        /* on_lost: NULL unless asked for */
        php_redlock_lost *lost = php_redlock_lost_new(&o, req->synchronized);
        bool watched = o.auto_extend || lost;
        rl_watch *w = watched ? php_redlock_watch_start(g, key, req->ttl, &info, &o, lost) : NULL;
        if (watched && !w) {
            /* a lock that would silently expire under work of unknown length is worse than none */
            rl_release(&g->ctx, ZSTR_VAL(key), ZSTR_LEN(key), info.token, NULL);
            zend_string_release(key);
            if (lost) php_redlock_lost_free(lost);
            zend_throw_exception(php_redlock_exception_ce,
                                 "lock: could not start the auto_extend watchdog (out of memory or no thread)", 0);
        } else {
            REDLOCK_G(acquired)++;
            php_redlock_lock_spec spec = {
                .g = g, .key = key, .resource = req->resource, .resources = req->resources, .permit = req->limit > 0};
            l = php_redlock_lock_new(out, &spec, req->ttl, &info, &o, w);
            if (lost) php_redlock_lost_attach(l, lost);
            php_redlock_metrics_acquired(l->acquired_us - called_us,
                                         req->limit > 0 ? 1 : rl_key_is_shared(ZSTR_VAL(key), ZSTR_LEN(key)) ? 2 : 0,
                                         php_redlock_metrics_resource(ZSTR_VAL(req->resource), ZSTR_LEN(req->resource)));
        }
    } else {
        if (r == RL_NO_QUORUM) {
            REDLOCK_G(quorum_failures)++;
            php_redlock_metrics_add(REDLOCK_M_QUORUM_FAILURES, 1);
            php_redlock_throw_quorum(g, &call, "lock");
        } else if (r == RL_LIMIT) {
            zend_throw_exception_ex(php_redlock_exception_ce, 0,
                                    "semaphore: permits of \"%s\" are held under a limit of %d, not %d",
                                    ZSTR_VAL(req->resource), other_limit, req->limit);
        } else if (r == RL_ERROR) {
            zend_throw_exception(php_redlock_exception_ce,
                                 "lock: internal error (out of memory or random source failed)", 0);
        } else {
            REDLOCK_G(conflicts)++;
            php_redlock_metrics_conflict(php_redlock_metrics_resource(ZSTR_VAL(req->resource), ZSTR_LEN(req->resource)));
        }
        zend_string_release(key);
    }
    php_redlock_opts_free(&o);
    return l;
}

/* lock(), synchronized(): the lock of req->resource ($resource, $ttl: arguments 1 and 2) with options
 * (argument req->opt_argn, 'shared' among them) in out; NULL: a conflict, or it threw */
static php_redlock_lock_obj *acquire_one(zval *self, acquire_req *req, HashTable *options, zval *out)
{
    php_redlock_group *g = php_redlock_this_group(self);
    if (!g || php_redlock_check_resource(req->resource, 1) != SUCCESS || php_redlock_check_ttl(req->ttl, 2) != SUCCESS)
        return NULL;
    bool shared, copied;
    if (take_shared(options, req->opt_argn, &shared, &req->options, &copied) != SUCCESS) return NULL;
    if (shared) req->key = php_redlock_shared_key(php_redlock_key(g, req->resource));
    php_redlock_lock_obj *l = acquire(Z_REDLOCK_P(self), req, out);
    if (copied) zend_array_release(req->options);
    return l;
}

PHP_METHOD(RedLock, lock)
{
    zend_string *resource;
    zend_long ttl;
    HashTable *options = NULL;
    ZEND_PARSE_PARAMETERS_START(2, 3)
        Z_PARAM_STR(resource)
        Z_PARAM_LONG(ttl)
        Z_PARAM_OPTIONAL
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();
    acquire_req req = {.resource = resource, .ttl = ttl, .opt_argn = 3};
    if (!acquire_one(ZEND_THIS, &req, options, return_value)) {
        if (EG(exception)) RETURN_THROWS();
        RETURN_NULL();
    }
}

PHP_METHOD(RedLock, semaphore)
{
    zend_string *resource;
    zend_long limit, ttl, weight = 1;
    HashTable *options = NULL;
    ZEND_PARSE_PARAMETERS_START(3, 4)
        Z_PARAM_STR(resource)
        Z_PARAM_LONG(limit)
        Z_PARAM_LONG(ttl)
        Z_PARAM_OPTIONAL
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();
    php_redlock_group *g = php_redlock_this_group(ZEND_THIS);
    if (!g || php_redlock_check_resource(resource, 1) != SUCCESS) RETURN_THROWS();
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
    acquire_req req = {
        .resource = resource, .ttl = ttl, .options = rest, .opt_argn = 4, .limit = (int)limit, .weight = (int)weight};
    php_redlock_lock_obj *l = acquire(Z_REDLOCK_P(ZEND_THIS), &req, return_value);
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
    ZEND_PARSE_PARAMETERS_START(2, 3)
        Z_PARAM_ARRAY_HT(resources)
        Z_PARAM_LONG(ttl)
        Z_PARAM_OPTIONAL
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();
    php_redlock_group *g = php_redlock_this_group(ZEND_THIS);
    if (!g) RETURN_THROWS();
    zend_string *key = php_redlock_key_list(g, resources, 1, "");
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
    if (shared) key = php_redlock_shared_key(key);
    HashTable *list = php_redlock_resource_list(resources);
    zval *first = zend_hash_index_find(list, 0);
    acquire_req req = {
        .resource = Z_STR_P(first), .key = key, .resources = list, .ttl = ttl, .options = rest, .opt_argn = 3};
    php_redlock_lock_obj *l = acquire(Z_REDLOCK_P(ZEND_THIS), &req, return_value);
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
    zval lock_zv, retval;
    ZEND_PARSE_PARAMETERS_START(3, 4)
        Z_PARAM_STR(resource)
        Z_PARAM_LONG(ttl)
        Z_PARAM_FUNC(fci, fcc)
        Z_PARAM_OPTIONAL
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();
    acquire_req req = {.resource = resource, .ttl = ttl, .opt_argn = 4, .synchronized = true};
    php_redlock_lock_obj *l = acquire_one(ZEND_THIS, &req, options, &lock_zv);
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
        if (!pending && !php_redlock_throw_same_server(l->g, &call, r, "synchronized") && r != RL_RELEASED &&
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
