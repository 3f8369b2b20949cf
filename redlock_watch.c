/* redlock_watch.c -- the watchdog's glue (redlock_core/lock/rl_watchdog.c): the watches of this request's locks, and
 * on_lost, by which the holder's PHP code hears at once that its lock is gone (docs/api.md "Lock lost").
 *
 * A lock acquired with auto_extend or on_lost gets a watch (php_redlock_watch_start). The request's end
 * and releaseAll() stop every watch (php_redlock_watch_stop_all) and count each lock lost into the
 * metrics, unless on_lost counted it when it told the holder.
 *
 * on_lost: the watchdog thread finds the loss: a failed extension, or the
 * validity's end (a deadline-only watch for a lock without auto_extend, or
 * after max_hold). Its callback only sets the lock's atomic "pending" flag
 * and the holder thread's EG(vm_interrupt), as the engine's own timeout
 * does: no signal, no PHP memory touched but those two words. The engine
 * then calls zend_interrupt_function in the holder thread at its next safe
 * point (a backward jump, a function's entry, the return of an internal
 * function); there, in PHP's thread, the lock's 'throw' or callable runs.
 * pcntl chains the same hook (ext/pcntl: pcntl_interrupt_function). */
#include "php_redlock_int.h"

#include <stdatomic.h>

/* ---------- the request's watches ---------- */

static void lost_cb(void *arg);
static void lost_forget_all(void);

/* An entry of REDLOCK_G(watched). */
typedef struct php_redlock_watched {
    rl_watch *w;
    uint64_t fork_gen; /* of the process that acquired the lock */
    int mres;          /* its resource's metrics slot (php_redlock_metrics_resource) */
    bool counted;      /* its loss is in the metrics already (told by on_lost) */
} php_redlock_watched;

/* on_lost told the holder that w's lock is lost: counted now, not again at
 * the end of the request (a rare event: a walk over this request's watches) */
static void watch_count_lost(const rl_watch *w)
{
    php_redlock_watched *e;
    uint64_t gen = rl_fork_generation();
    if (!w || !REDLOCK_G(held_active)) return;
    ZEND_HASH_FOREACH_PTR(&REDLOCK_G(watched), e) {
        if (e->w == w && !e->counted && e->fork_gen == gen) {
            e->counted = true;
            php_redlock_metrics_lost(e->mres);
            return;
        }
    } ZEND_HASH_FOREACH_END();
}

rl_watch *php_redlock_watch_start(php_redlock_group *g, zend_string *key, zend_long ttl, const rl_lock_info *info,
                                  const php_redlock_opts *o, php_redlock_lost *lost)
{
    /* the node settings as the pooled connections have them (with the
     * password, which the group does not keep) and this group's timeouts;
     * the watchdog copies them into connections of its own */
    rl_node_conf confs[RL_MAX_NODES];
    for (int i = 0; i < g->n; i++) {
        confs[i] = *rl_conn_conf(g->conns[i]);
        confs[i].connect_timeout_ms = g->connect_timeout[i];
        confs[i].timeout_ms = g->timeout[i];
    }
    rl_watch_spec spec = {
        .confs = confs,
        .conns = g->conns, /* their addresses: the watchdog looks no name up */
        .n = g->n,
        .key = ZSTR_VAL(key),
        .keylen = ZSTR_LEN(key),
        .token = info->token,
        .ttl_ms = (int)ttl,
        .drift_factor = o->drift_factor,
        .max_hold_ms = o->max_hold,
        .persistent = g->opts.persistent, /* else its connections end with the request, like the group's */
        /* on_lost without auto_extend: a timer on the validity's end, no connection */
        .deadline_only = !o->auto_extend,
        .on_lost = lost ? lost_cb : NULL,
        .on_lost_arg = lost,
        /* its extensions raise the maxttl key and repair restarted nodes, as extend() */
        .restart_grace = g->opts.restart_grace != 0,
        .prefix_len = ZSTR_LEN(g->opts.prefix),
    };
    rl_watch *w = rl_watch_start(&spec, info);
    if (w && REDLOCK_G(held_active)) {
        /* the request's own reference: stopped at its end, whatever became of the object */
        rl_watch_ref(w);
        php_redlock_watched *e = emalloc(sizeof(*e));
        size_t pl = ZSTR_LEN(g->opts.prefix);
        *e = (php_redlock_watched){.w = w,
                                   .fork_gen = rl_fork_generation(),
                                   .mres = php_redlock_metrics_key_resource(key, pl)};
        zend_hash_next_index_insert_ptr(&REDLOCK_G(watched), e);
    }
    return w;
}

void php_redlock_watch_stop_all(void)
{
    php_redlock_watched *e;
    if (!REDLOCK_G(held_active)) return;
    uint64_t gen = rl_fork_generation();
    ZEND_HASH_FOREACH_PTR(&REDLOCK_G(watched), e) {
        rl_watch_stop(e->w); /* a fork child's copy: a no-op, the parent keeps extending */
        /* each watched lock is here once: a lost one is counted here, when its request
         * ends, by the process that acquired it (a child's copy may say lost too) */
        rl_watch_status st;
        rl_watch_status_get(e->w, &st);
        if (st.state == RL_WATCH_LOST && e->fork_gen == gen && !e->counted) php_redlock_metrics_lost(e->mres);
        rl_watch_unref(e->w);
        efree(e);
    } ZEND_HASH_FOREACH_END();
    zend_hash_destroy(&REDLOCK_G(watched));
    zend_hash_init(&REDLOCK_G(watched), 8, NULL, NULL, 0);
    lost_forget_all(); /* a loss already flagged is not told after this either */
    rl_watchdog_drop_idle(); /* the watchdog's connections of non-persistent objects */
}

/* ---------- on_lost ---------- */

struct php_redlock_lost {
    atomic_int pending; /* set by the watchdog thread */
#if PHP_VERSION_ID >= 80200
    zend_atomic_bool *vm_interrupt; /* the holder thread's EG(vm_interrupt) */
#else
    volatile zend_bool *vm_interrupt;
#endif
    zval handler;            /* TRUE: 'throw'; else the callable */
    zend_object *lock;       /* its Lock, one reference, from attach on */
    uint64_t fork_gen;       /* a forked child gets nothing */
    zend_ulong id;           /* its entry in REDLOCK_G(lost) */
    bool done;               /* delivered, or no longer wanted */
};

static void (*prev_interrupt)(zend_execute_data *ex);

static void set_interrupt(php_redlock_lost *lost)
{
#if PHP_VERSION_ID >= 80200
    zend_atomic_bool_store_ex(lost->vm_interrupt, true);
#else
    *lost->vm_interrupt = 1;
#endif
}

/* A delivery that cannot run now (an exception in flight; no user frame)
 * is asked for again by the watchdog thread, REDELIVER_US later: it sets
 * this thread's EG(vm_interrupt), and the next interrupt point delivers
 * (while the exception is still in flight: once more a REDELIVER_US later).
 * Not by setting the flag here: the engine's interrupt helper checks the
 * flag again before it goes on (its ZEND_VM_ENTER), so it would call us back
 * at once, at the same opline, with the exception still in flight, for
 * ever; and a cap on those calls (the earlier code stopped after 8) leaves
 * the loss pending with no one to set the flag again: never delivered. So
 * a pending loss waits at most REDELIVER_US past the point where user code
 * can run again, and the VM is interrupted at most once per REDELIVER_US
 * meanwhile. The timer is the thread's (ZEND_TLS), cancelled at the
 * request's end, before the thread can go. */
#define REDELIVER_US 1000u
ZEND_TLS rl_poke redeliver;
ZEND_TLS bool redeliver_used;

static void redeliver_cb(void *arg)
{
    /* the watchdog thread, under its mutex: one store */
#if PHP_VERSION_ID >= 80200
    zend_atomic_bool_store((zend_atomic_bool *)arg, true);
#else
    *(volatile zend_bool *)arg = 1;
#endif
}

static void defer(void)
{
    redeliver.cb = redeliver_cb;
    redeliver.arg = (void *)&EG(vm_interrupt);
    redeliver_used = true;
    /* -1: no watchdog thread (out of threads): then at the next interrupt of any kind */
    (void)rl_watchdog_poke(&redeliver, REDELIVER_US);
}

php_redlock_lost *php_redlock_lost_new(const php_redlock_opts *o, bool synchronized)
{
    const zval *h = &o->on_lost;
    /* synchronized() with auto_extend: 'throw' unless told (an explicit null turns it off) */
    bool throw_default = synchronized && o->auto_extend && Z_TYPE_P(h) == IS_UNDEF;
    if (!throw_default && Z_TYPE_P(h) <= IS_NULL) return NULL;
    if (!REDLOCK_G(lost_active)) return NULL; /* outside a request: no one to tell */
    php_redlock_lost *lost = ecalloc(1, sizeof(*lost));
    if (throw_default)
        ZVAL_TRUE(&lost->handler);
    else
        ZVAL_COPY(&lost->handler, h);
    lost->vm_interrupt = &EG(vm_interrupt);
    lost->fork_gen = rl_fork_generation();
    return lost;
}

void php_redlock_lost_free(php_redlock_lost *lost)
{
    zval_ptr_dtor(&lost->handler);
    efree(lost);
}

/* For the watchdog (rl_watch_spec.on_lost): the lock is lost, tell its thread. */
static void lost_cb(void *arg)
{
    /* the watchdog thread, under its mutex: two stores and nothing else */
    php_redlock_lost *lost = arg;
    atomic_store(&lost->pending, 1);
    set_interrupt(lost);
}

static void lost_dtor(zval *zv)
{
    php_redlock_lost *lost = Z_PTR_P(zv);
    if (lost->lock) {
        php_redlock_lock_from_obj(lost->lock)->lost = NULL;
        OBJ_RELEASE(lost->lock);
    }
    php_redlock_lost_free(lost);
}

void php_redlock_lost_attach(php_redlock_lock_obj *l, php_redlock_lost *lost)
{
    /* the request holds the Lock until release() or its end: a callable gets
     * it, and 'throw' comes also when the script kept no reference */
    GC_ADDREF(&l->std);
    lost->lock = &l->std;
    l->lost = lost;
    lost->id = zend_hash_next_free_element(&REDLOCK_G(lost));
    zend_hash_index_add_new_ptr(&REDLOCK_G(lost), lost->id, lost);
}

void php_redlock_lost_forget(php_redlock_lock_obj *l)
{
    /* the request's reference to the Lock goes; the caller (release(),
     * synchronized()) still holds one */
    if (l->lost && REDLOCK_G(lost_active)) zend_hash_index_del(&REDLOCK_G(lost), l->lost->id);
}

/* Every watch is stopped (php_redlock_watch_stop_all, the only caller): no
 * callback can come for these entries any more, and a loss already flagged
 * is not told. The entries go, and the request's references to their Locks
 * with them: a worker runtime calling releaseAll() between jobs keeps
 * nothing of the jobs before. */
static void lost_forget_all(void)
{
    if (!REDLOCK_G(lost_active)) return;
    zend_hash_clean(&REDLOCK_G(lost));
}

/* The next lost lock of this request to tell, or NULL. */
static php_redlock_lost *next_pending(bool *more)
{
    php_redlock_lost *lost, *found = NULL;
    uint64_t gen = rl_fork_generation();
    *more = false;
    ZEND_HASH_FOREACH_PTR(&REDLOCK_G(lost), lost) {
        if (lost->done || !atomic_load(&lost->pending)) continue;
        if (lost->fork_gen != gen || php_redlock_lock_from_obj(lost->lock)->released) {
            lost->done = true; /* a parent's lock in a forked child; a released one */
            continue;
        }
        if (found) {
            *more = true;
            break;
        }
        found = lost;
    } ZEND_HASH_FOREACH_END();
    return found;
}

/* The user code an interrupt returns to. zend_interrupt_function's argument
 * is the frame the VM runs (PHP 8.2: zend_interrupt_helper, always the user
 * frame) or, from PHP 8.3's zend_fcall_interrupt, the frame of the internal
 * function that has just returned: the VM then looks at EG(exception) and
 * rethrows it in that frame's caller (ZEND_DO_ICALL), which is where the
 * code goes on. EG(current_execute_data) is no better: right after an
 * internal call it is still that call's frame. */
static const zend_execute_data *user_frame(const zend_execute_data *vm_ex)
{
    const zend_execute_data *ex = vm_ex ? vm_ex : EG(current_execute_data);
    if (ex && ex->func && !ZEND_USER_CODE(ex->func->common.type) && ex->prev_execute_data &&
        ex->prev_execute_data->func && ZEND_USER_CODE(ex->prev_execute_data->func->common.type))
        ex = ex->prev_execute_data;
    return ex;
}

static void deliver(const zend_execute_data *vm_ex)
{
    bool more;
    php_redlock_lost *lost;
    while ((lost = next_pending(&more))) {
        const zend_execute_data *ex = user_frame(vm_ex);
        if (EG(exception) || !ex || !ex->func || !ZEND_USER_CODE(ex->func->common.type)) {
            /* no user code now (an exception in flight; no user frame: an
             * uncaught exception being reported): at the next point where it can run */
            defer();
            return;
        }
        php_redlock_lock_obj *l = php_redlock_lock_from_obj(lost->lock);
        lost->done = true; /* once, also when the callable re-enters */
        watch_count_lost(l->watch); /* redlock_lost_total: visible to the pool now */
        if (Z_TYPE(lost->handler) == IS_TRUE) {
            rl_watch_status st;
            rl_watch_status_get(l->watch, &st);
            zend_throw_exception_ex(php_redlock_lost_ce, 0, "the lock on \"%s\" was lost: %s",
                                    Z_STRVAL_P(REDLOCK_LOCK_PROP(l, RESOURCE)), st.reason);
        } else {
            zval fn, arg, ret;
            ZVAL_COPY(&fn, &lost->handler); /* the callable may drop its last holder */
            ZVAL_OBJ_COPY(&arg, lost->lock);
            ZVAL_UNDEF(&ret);
            call_user_function(NULL, NULL, &fn, &ret, 1, &arg);
            zval_ptr_dtor(&ret);
            zval_ptr_dtor(&arg);
            zval_ptr_dtor(&fn);
        }
        if (EG(exception)) {
            if (more) defer(); /* the others once this exception is handled */
            return;
        }
    }
}

static void lost_interrupt(zend_execute_data *ex)
{
    /* the previous handler first (pcntl's signals): ours may leave an exception */
    if (prev_interrupt) prev_interrupt(ex);
    /* never during request shutdown: shutdown functions and destructors get nothing */
    if (REDLOCK_G(lost_active) && zend_hash_num_elements(&REDLOCK_G(lost)) &&
        !(EG(flags) & EG_FLAGS_IN_SHUTDOWN))
        deliver(ex);
}

void php_redlock_lost_minit(void)
{
    prev_interrupt = zend_interrupt_function;
    zend_interrupt_function = lost_interrupt;
}

void php_redlock_lost_mshutdown(void)
{
    if (zend_interrupt_function == lost_interrupt) zend_interrupt_function = prev_interrupt;
}

void php_redlock_lost_rinit(void)
{
    zend_hash_init(&REDLOCK_G(lost), 8, NULL, lost_dtor, 0);
    REDLOCK_G(lost_active) = true;
}

void php_redlock_lost_rshutdown(void)
{
    if (!REDLOCK_G(lost_active)) return;
    REDLOCK_G(lost_active) = false;
    if (redeliver_used) {
        rl_watchdog_poke_cancel(&redeliver); /* nothing is delivered after the request */
        redeliver_used = false;
    }
    zend_hash_destroy(&REDLOCK_G(lost));
}
