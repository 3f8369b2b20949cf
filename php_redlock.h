/* php_redlock.h -- module entry, the list of options and the globals of the redlock extension. */
#ifndef PHP_REDLOCK_H
#define PHP_REDLOCK_H

extern zend_module_entry redlock_module_entry;
#define phpext_redlock_ptr &redlock_module_entry

#define PHP_REDLOCK_VERSION "0.1.0"

#ifdef ZTS
#include "TSRM.h"
#endif

/* Every option, once. The globals, the INI entries redlock.<name> and their
 * validators, the defaults and the options-array parser are all made from
 * this list (redlock.c, redlock_options.c).
 *   X(name, type, where, INI default, min, max)
 *   type   LONG    an int in [min, max]
 *          DOUBLE  a float in [min, max)
 *          BOOL
 *          STRING  at most max bytes, no NUL
 *   where  CALL    constructor and per call (lock(), synchronized())
 *          CTOR    constructor only (a \ValueError per call) */
#define REDLOCK_OPTIONS(X)                                                   \
    X(retry_count,     LONG,   CALL, "3",    0, REDLOCK_MAX_RETRY_COUNT)     \
    X(retry_delay,     LONG,   CALL, "200",  0, INT_MAX)                     \
    X(retry_jitter,    LONG,   CALL, "100",  0, INT_MAX)                     \
    X(wait,            LONG,   CALL, "0",    0, INT_MAX)                     \
    X(drift_factor,    DOUBLE, CALL, "0.01", 0, 1)                           \
    X(connect_timeout, LONG,   CTOR, "50",   1, RL_TIMEOUT_MAX_MS)           \
    X(timeout,         LONG,   CTOR, "50",   1, RL_TIMEOUT_MAX_MS)           \
    X(persistent,      BOOL,   CTOR, "1",    0, 1)                           \
    X(prefix,          STRING, CTOR, "",     0, REDLOCK_MAX_PREFIX)          \
    X(fencing,         BOOL,   CALL, "0",    0, 1)                           \
    X(auto_release,    BOOL,   CALL, "1",    0, 1)                           \
    X(throw_on_lost,   BOOL,   CALL, "0",    0, 1)                           \
    X(auto_extend,     BOOL,   CALL, "0",    0, 1)                           \
    X(max_hold,        LONG,   CALL, "0",    0, INT_MAX)

/* C type of an option in the globals (the INI value) */
#define REDLOCK_GLOBAL_TYPE_LONG zend_long
#define REDLOCK_GLOBAL_TYPE_DOUBLE double
#define REDLOCK_GLOBAL_TYPE_BOOL bool
#define REDLOCK_GLOBAL_TYPE_STRING char *
#define REDLOCK_OPTION_GLOBAL(name, type, where, ini, min, max) REDLOCK_GLOBAL_TYPE_##type name;

ZEND_BEGIN_MODULE_GLOBALS(redlock)
    /* INI defaults of every option */
    REDLOCK_OPTIONS(REDLOCK_OPTION_GLOBAL)
    /* connection pool of this worker: identity -> php_redlock_pooled* (persistent) */
    HashTable pool;
    /* process counters for stats() */
    zend_long acquired, conflicts, quorum_failures, released, extended;
    /* per request: locks to release at request end; id -> php_redlock_held* */
    HashTable held;
    /* per request: the watchdog's handles of the auto_extend locks acquired
     * in it (rl_watch*), stopped at request end */
    HashTable watched;
    bool held_active;
    uint64_t next_held_id;
    uint64_t request_id;
ZEND_END_MODULE_GLOBALS(redlock)

ZEND_EXTERN_MODULE_GLOBALS(redlock)
#define REDLOCK_G(v) ZEND_MODULE_GLOBALS_ACCESSOR(redlock, v)

#if defined(ZTS) && defined(COMPILE_DL_REDLOCK)
ZEND_TSRMLS_CACHE_EXTERN()
#endif

#endif
