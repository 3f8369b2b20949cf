/* redlock_lock.c -- class RedLock\Lock, and the list of locks released at request end (auto_release). */
#include "php_redlock_int.h"

static zend_object_handlers php_redlock_lock_handlers;
/* Lock::$mode's value, interned at MINIT (read-only after it: shared by threads) */
static zend_string *mode_exclusive, *mode_permit, *mode_shared;

/* A lock still held at request end (auto_release): independent of its object. */
typedef struct php_redlock_held {
    php_redlock_group *g;
    zend_string *key;
    php_redlock_lock_obj *obj;    /* while it lives (releaseAll() marks it released), else NULL */
    char token[RL_TOKEN_MAX + 1]; /* random or the caller's ("token" option) */
    uint64_t fork_gen;
    uint64_t acquired_us; /* for redlock_hold_seconds */
} php_redlock_held;

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
    /* the lock stays on the release list, without its object */
    if (l->held_id && REDLOCK_G(held_active)) {
        php_redlock_held *h = zend_hash_index_find_ptr(&REDLOCK_G(held), l->held_id);
        if (h) h->obj = NULL;
    }
    /* the handle only: the watchdog keeps extending until release() or the request's end */
    if (l->watch) rl_watch_unref(l->watch);
    php_redlock_group_release(l->g);
    if (l->key) zend_string_release(l->key);
    zend_object_std_dtor(obj);
}

static zend_function *php_redlock_lock_get_constructor(zend_object *obj)
{
    zend_throw_error(NULL, "Cannot directly construct RedLock\\Lock, use RedLock::lock()");
    return NULL;
}

zend_result php_redlock_lock_class_init(zend_class_entry *ce)
{
    ce->create_object = php_redlock_lock_create;
    mode_exclusive = zend_string_init_interned("exclusive", sizeof("exclusive") - 1, 1);
    mode_permit = zend_string_init_interned("permit", sizeof("permit") - 1, 1);
    mode_shared = zend_string_init_interned("shared", sizeof("shared") - 1, 1);
    memcpy(&php_redlock_lock_handlers, zend_get_std_object_handlers(), sizeof(zend_object_handlers));
    php_redlock_lock_handlers.offset = XtOffsetOf(php_redlock_lock_obj, std);
    php_redlock_lock_handlers.free_obj = php_redlock_lock_free;
    php_redlock_lock_handlers.clone_obj = NULL;
    php_redlock_lock_handlers.get_constructor = php_redlock_lock_get_constructor;

    /* the slots are named in php_redlock_int.h: they must be where the stub declares them */
#define X(slot, name)                                                                                          \
    {                                                                                                          \
        zend_property_info *pi = zend_hash_str_find_ptr(&ce->properties_info, #name, sizeof(#name) - 1);       \
        if (!pi || pi->offset != OBJ_PROP_TO_OFFSET(REDLOCK_LOCK_PROP_##slot)) {                               \
            zend_error(E_CORE_WARNING, "redlock: RedLock\\Lock::$%s is not in property slot %d", #name,          \
                       REDLOCK_LOCK_PROP_##slot);                                                              \
            return FAILURE;                                                                                    \
        }                                                                                                      \
    }
    REDLOCK_LOCK_PROPS(X)
#undef X
    return SUCCESS;
}

/* ---------- the locks to release at request end ---------- */

static void held_dtor(zval *zv)
{
    php_redlock_held *h = Z_PTR_P(zv);
    php_redlock_group_release(h->g);
    zend_string_release(h->key);
    efree(h);
}

void php_redlock_held_forget(php_redlock_lock_obj *l)
{
    if (l->held_id && REDLOCK_G(held_active)) zend_hash_index_del(&REDLOCK_G(held), l->held_id);
    l->held_id = 0;
}

static void held_add(php_redlock_lock_obj *l)
{
    php_redlock_held *h = emalloc(sizeof(*h));
    *h = (php_redlock_held){.g = l->g,
                            .key = zend_string_copy(l->key),
                            .obj = l,
                            .fork_gen = l->fork_gen,
                            .acquired_us = l->acquired_us};
    l->g->refcount++;
    memcpy(h->token, l->info.token, l->info.token_len + 1);
    l->held_id = ++REDLOCK_G(next_held_id);
    zend_hash_index_add_new_ptr(&REDLOCK_G(held), l->held_id, h);
}

/* Every release (release(), synchronized(), request end) goes through here;
 * acquired_us 0: a restored lock (its acquisition is not ours: no hold time). */
static int release_token(php_redlock_group *g, zend_string *key, const char *token, uint64_t acquired_us,
                         rl_call *call)
{
    php_redlock_group_prepare(g);
    int r = rl_release(&g->ctx, ZSTR_VAL(key), ZSTR_LEN(key), token, call);
    if (r == RL_RELEASED) {
        REDLOCK_G(released)++;
        size_t pl = ZSTR_LEN(g->opts.prefix); /* key: the group's prefix . resource */
        php_redlock_metrics_released(acquired_us, php_redlock_metrics_key_resource(key, pl));
    }
    return r;
}

int php_redlock_lock_release(php_redlock_lock_obj *l, rl_call *call)
{
    /* no extension may follow the release: stop waits for one in flight */
    if (l->watch) rl_watch_stop(l->watch);
    if (l->lost) php_redlock_lost_forget(l); /* nothing after release() */
    return release_token(l->g, l->key, l->info.token, l->acquired_us, call);
}

void php_redlock_held_start(void)
{
    zend_hash_init(&REDLOCK_G(held), 8, NULL, held_dtor, 0);
    zend_hash_init(&REDLOCK_G(watched), 8, NULL, NULL, 0);
    REDLOCK_G(held_active) = true;
}

int php_redlock_held_release_all(bool ending)
{
    php_redlock_held *h;
    int released = 0;
    uint64_t gen = rl_fork_generation();
    /* after this extension's RSHUTDOWN (a later module's, a destructor): nothing is listed */
    if (!REDLOCK_G(held_active)) return 0;
    php_redlock_watch_stop_all(); /* before the releases: no extension after them */
    ZEND_HASH_FOREACH_PTR(&REDLOCK_G(held), h) {
        if (h->fork_gen != gen) continue; /* the parent's lock, not this process' */
        if (h->obj) {
            /* a worker's object may outlive this: it must not look valid, nor release again */
            h->obj->released = true;
            h->obj->held_id = 0;
        }
        if (release_token(h->g, h->key, h->token, h->acquired_us, NULL) == RL_RELEASED) released++;
    } ZEND_HASH_FOREACH_END();
    REDLOCK_G(held_active) = false;
    zend_hash_destroy(&REDLOCK_G(held));
    zend_hash_destroy(&REDLOCK_G(watched));
    /* releaseAll(): the worker's next request starts with an empty list */
    if (!ending) php_redlock_held_start();
    return released;
}

/* ---------- a new lock ---------- */

/* $resources and $mode: lockAll()'s list, else [$resource]; 'permit', 'shared' (a read
 * lock's key list, rl_key_is_shared) or 'exclusive' */
static void set_resources(php_redlock_lock_obj *l, zend_string *resource, HashTable *resources, bool permit)
{
    zval *p = REDLOCK_LOCK_PROP(l, RESOURCES);
    if (resources) {
        ZVAL_ARR(p, zend_array_dup(resources));
    } else {
        array_init_size(p, 1);
        add_next_index_str(p, zend_string_copy(resource));
    }
    ZVAL_INTERNED_STR(REDLOCK_LOCK_PROP(l, MODE), permit                                          ? mode_permit
                                                  : rl_key_is_shared(ZSTR_VAL(l->key), ZSTR_LEN(l->key)) ? mode_shared
                                                                                                     : mode_exclusive);
}

/* The object of a new Lock in out: spec's group (one more reference), key (taken over), $resource,
 * $resources and $mode */
static php_redlock_lock_obj *lock_init(zval *out, const php_redlock_lock_spec *s)
{
    object_init_ex(out, php_redlock_lock_ce);
    php_redlock_lock_obj *l = Z_REDLOCK_LOCK_P(out);
    l->g = s->g;
    s->g->refcount++;
    l->key = s->key;
    l->fork_gen = rl_fork_generation();
    ZVAL_STR_COPY(REDLOCK_LOCK_PROP(l, RESOURCE), s->resource);
    set_resources(l, s->resource, s->resources, s->permit);
    return l;
}

php_redlock_lock_obj *php_redlock_lock_new(zval *out, const php_redlock_lock_spec *s, zend_long ttl,
                                           const rl_lock_info *info, const php_redlock_opts *o, rl_watch *watch)
{
    php_redlock_lock_obj *l = lock_init(out, s);
    l->info = *info;
    l->drift_factor = o->drift_factor;
    l->throw_on_lost = o->throw_on_lost;
    l->watch = watch;
    l->acquired_us = rl_clock_monotonic.now_us(NULL);
    ZVAL_STRINGL(REDLOCK_LOCK_PROP(l, TOKEN), info->token, info->token_len);
    ZVAL_LONG(REDLOCK_LOCK_PROP(l, TTL), ttl);
    if (o->fencing)
        ZVAL_LONG(REDLOCK_LOCK_PROP(l, FENCE), (zend_long)info->fence);
    else
        ZVAL_NULL(REDLOCK_LOCK_PROP(l, FENCE));

    if (o->auto_release && REDLOCK_G(held_active)) held_add(l);
    return l;
}

php_redlock_lock_obj *php_redlock_lock_restored(zval *out, const php_redlock_lock_spec *s, zend_string *token)
{
    php_redlock_lock_obj *l = lock_init(out, s);
    /* validity unknown until an extend() succeeds: valid_until_us 0 */
    memcpy(l->info.token, ZSTR_VAL(token), ZSTR_LEN(token));
    l->info.token[ZSTR_LEN(token)] = '\0';
    l->info.token_len = ZSTR_LEN(token);
    l->drift_factor = s->g->opts.drift_factor;
    l->throw_on_lost = s->g->opts.throw_on_lost;
    ZVAL_STR_COPY(REDLOCK_LOCK_PROP(l, TOKEN), token);
    ZVAL_LONG(REDLOCK_LOCK_PROP(l, TTL), 0);
    ZVAL_NULL(REDLOCK_LOCK_PROP(l, FENCE));
    /* not acquired by this process: never released at request end */
    return l;
}

/* ---------- methods ---------- */

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
    int r = php_redlock_lock_release(l, &call);
    /* with no quorum reachable the request-end release may still succeed */
    if (r != RL_NO_QUORUM) php_redlock_held_forget(l);
    if (php_redlock_throw_same_server(l->g, &call, r, "release")) RETURN_THROWS();
    if (r == RL_RELEASED) RETURN_TRUE;
    if (l->throw_on_lost && r == RL_LOST) {
        zend_throw_exception_ex(php_redlock_lost_ce, 0, "release: the lock on \"%s\" was already gone (expired or taken)",
                                Z_STRVAL_P(REDLOCK_LOCK_PROP(l, RESOURCE)));
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
    if (php_redlock_check_ttl(ttl, 1) != SUCCESS) RETURN_THROWS();
    php_redlock_lock_obj *l = Z_REDLOCK_LOCK_P(ZEND_THIS);
    if (!lock_is_ours(l)) RETURN_FALSE;
    int r = RL_LOST, lost = 0;
    if (!l->released) {
        info = l->info;
        if (l->watch) {
            /* the watchdog waits while we extend; its validity is the lock's */
            rl_lock_info cur;
            lost = rl_watch_pause(l->watch, &cur) == RL_WATCH_LOST;
            info.start_us = cur.start_us;
            info.valid_until_us = cur.valid_until_us;
            info.validity_ms = cur.validity_ms;
        }
        if (!lost) {
            /* a lock the watchdog lost stays lost, as any lost lock */
            php_redlock_group_prepare(l->g);
            r = rl_extend(&l->g->ctx, ZSTR_VAL(l->key), ZSTR_LEN(l->key), l->info.token, (int)ttl, l->drift_factor,
                          &info, &call);
            /* whatever the outcome: a failed extend may have shortened the TTL
             * on the nodes that ran it, and the core never lets validity grow then */
            l->info = info;
        }
        if (l->watch) rl_watch_resume(l->watch, r, (int)ttl, &info);
        if (!lost && php_redlock_throw_same_server(l->g, &call, r, "extend")) RETURN_THROWS();
    }
    if (r == RL_EXTENDED) {
        ZVAL_LONG(REDLOCK_LOCK_PROP(l, TTL), ttl);
        REDLOCK_G(extended)++;
        php_redlock_metrics_add(REDLOCK_M_EXTENSIONS, 1);
        RETURN_TRUE;
    }
    if (l->throw_on_lost && r == RL_LOST) {
        if (lost) {
            rl_watch_status st;
            rl_watch_status_get(l->watch, &st);
            zend_throw_exception_ex(php_redlock_lost_ce, 0, "extend: the lock on \"%s\" was lost (auto_extend: %s)",
                                    Z_STRVAL_P(REDLOCK_LOCK_PROP(l, RESOURCE)), st.reason);
            RETURN_THROWS();
        }
        zend_throw_exception_ex(php_redlock_lost_ce, 0, "extend: the lock on \"%s\" is %s",
                                Z_STRVAL_P(REDLOCK_LOCK_PROP(l, RESOURCE)),
                                l->released ? "released" : "gone (expired or taken)");
        RETURN_THROWS();
    }
    RETURN_FALSE;
}

static zend_long lock_remaining(php_redlock_lock_obj *l)
{
    /* a forked child inherits the object, not the lock */
    if (l->released || !lock_is_ours(l)) return 0;
    /* auto_extend: the watchdog's last successful extension, 0 once it lost the lock */
    if (l->watch) return (zend_long)rl_watch_remaining_ms(l->watch);
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

/* Asks the nodes (GET compared with our token), whatever this object knows:
 * also after release() or once the validity ran out. */
PHP_METHOD(RedLock_Lock, isHeld)
{
    ZEND_PARSE_PARAMETERS_NONE();
    php_redlock_lock_obj *l = Z_REDLOCK_LOCK_P(ZEND_THIS);
    rl_call call;
    /* a forked child inherits the object, not the lock */
    if (!lock_is_ours(l)) RETURN_FALSE;
    php_redlock_group_prepare(l->g);
    int r = rl_is_held(&l->g->ctx, ZSTR_VAL(l->key), ZSTR_LEN(l->key), l->info.token, l->info.token_len, &call);
    if (php_redlock_throw_same_server(l->g, &call, r, "isHeld")) RETURN_THROWS();
    if (r == RL_NO_QUORUM || r == RL_ERROR) {
        REDLOCK_G(quorum_failures)++;
        php_redlock_metrics_add(REDLOCK_M_QUORUM_FAILURES, 1);
        php_redlock_throw_quorum(l->g, &call, "isHeld");
        RETURN_THROWS();
    }
    RETURN_BOOL(r == RL_YES);
}
