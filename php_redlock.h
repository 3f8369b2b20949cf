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
 *          STRING  min ... max bytes, no NUL
 *          TLS     an array of TLS settings (REDLOCK_TLS_SETTINGS below);
 *                  no INI entry, no global
 *          LOST    'throw', a callable or null (docs/api.md "Lock lost"); its INI
 *                  entry takes "throw" or "" only (a callable has no INI form)
 *   where  CALL    constructor and per call (lock(), synchronized())
 *          CTOR    constructor only (a \ValueError per call)
 *          PERCALL per call only (a \ValueError in the constructor); no INI entry, no global
 * Options with an INI entry (CALL, CTOR) take their default from it; a
 * PERCALL option is unset (0, false, "") unless the call gives it. */
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
    X(max_hold,        LONG,   CALL, "0",    0, INT_MAX)                     \
    X(wake_on_release, BOOL,   CALL, "1",    0, 1)                           \
    X(fair,            BOOL,   CALL, "0",    0, 1)                           \
    X(token,           STRING, PERCALL, "",  RL_TOKEN_MIN, RL_TOKEN_MAX) \
    X(on_lost,         LOST,   CALL, "",     0, 0)                           \
    X(restart_grace,   GRACE,  CTOR, "auto", 0, INT_MAX)                     \
    X(tls,             TLS,    CTOR, NULL,   0, 0)

/* Every TLS setting, once: the keys of the "tls" option and of a node's "tls"
 * array, named as PHP's ssl stream-context options (docs/api.md "TLS"). A node's
 * array overrides the option setting by setting (redlock_options.c,
 * redlock_nodes.c).  X(name, type, rl_tls_conf field)
 *   FILE    a readable file (kept as an absolute path), or null for none
 *   DIR     a readable directory (absolute), or null for none
 *   SECRET  a string, never shown anywhere; null or "" for none
 *   NAME    a host name or address, 1 ... 255 bytes, or null for the node's host
 *   NOT     a bool, true by default, kept negated in the core's no_* field
 *           (a zeroed rl_tls_conf is the one that verifies) */
#define REDLOCK_TLS_SETTINGS(X)                      \
    X(cafile,           FILE,   cafile)               \
    X(capath,           DIR,    capath)               \
    X(local_cert,       FILE,   local_cert)           \
    X(local_pk,         FILE,   local_pk)             \
    X(passphrase,       SECRET, passphrase)           \
    X(verify_peer,      NOT,    no_verify_peer)       \
    X(verify_peer_name, NOT,    no_verify_peer_name)  \
    X(peer_name,        NAME,   peer_name)

/* C type of an option in the globals (the INI value) */
#define REDLOCK_GLOBAL_TYPE_LONG zend_long
#define REDLOCK_GLOBAL_TYPE_DOUBLE double
#define REDLOCK_GLOBAL_TYPE_BOOL bool
#define REDLOCK_GLOBAL_TYPE_STRING char *
#define REDLOCK_GLOBAL_TYPE_LOST bool /* redlock.on_lost=throw */
#define REDLOCK_GLOBAL_TYPE_GRACE zend_long /* redlock.restart_grace: ms, or RL_GRACE_AUTO for 'auto' */
/* REDLOCK_IF_INI_<where>(x): x for the options that have an INI entry (and a global) */
#define REDLOCK_IF_INI_CALL(x) x
#define REDLOCK_IF_INI_CTOR(x) x
#define REDLOCK_IF_INI_PERCALL(x)
#define REDLOCK_GLOBAL_LONG(name) REDLOCK_GLOBAL_TYPE_LONG name;
#define REDLOCK_GLOBAL_DOUBLE(name) REDLOCK_GLOBAL_TYPE_DOUBLE name;
#define REDLOCK_GLOBAL_BOOL(name) REDLOCK_GLOBAL_TYPE_BOOL name;
#define REDLOCK_GLOBAL_STRING(name) REDLOCK_GLOBAL_TYPE_STRING name;
#define REDLOCK_GLOBAL_LOST(name) REDLOCK_GLOBAL_TYPE_LOST name;
#define REDLOCK_GLOBAL_GRACE(name) REDLOCK_GLOBAL_TYPE_GRACE name;
#define REDLOCK_GLOBAL_TLS(name) /* no INI default */
#define REDLOCK_OPTION_GLOBAL(name, type, where, ini, min, max) REDLOCK_IF_INI_##where(REDLOCK_GLOBAL_##type(name))

ZEND_BEGIN_MODULE_GLOBALS(redlock)
    /* INI defaults of every option that has one */
    REDLOCK_OPTIONS(REDLOCK_OPTION_GLOBAL)
    /* connection pool of this worker: identity -> php_redlock_pooled* (persistent) */
    HashTable pool;
    /* node sets this worker found free of one server named twice: their
     * hosts/sockets and ports -> when (monotonic ms), so that a construction
     * does not resolve every name again (redlock_nodes.c) */
    HashTable distinct;
    /* process counters for stats() */
    zend_long acquired, conflicts, quorum_failures, released, extended;
    zend_long attempts, wakeups; /* acquisition attempts sent, waits a release ended (docs/api.md "Fair waiting") */
    /* per request: locks to release at request end; id -> php_redlock_held* */
    HashTable held;
    /* per request: the watchdog's handles of the auto_extend locks acquired
     * in it (php_redlock_watched*, redlock_watch.c; made and emptied with held,
     * redlock_lock.c), stopped at request end */
    HashTable watched;
    bool held_active;
    /* per request: the locks with on_lost (redlock_watch.c); id -> php_redlock_lost* */
    HashTable lost;
    bool lost_active;
    uint64_t next_held_id;
    uint64_t request_id;
ZEND_END_MODULE_GLOBALS(redlock)

ZEND_EXTERN_MODULE_GLOBALS(redlock)
#define REDLOCK_G(v) ZEND_MODULE_GLOBALS_ACCESSOR(redlock, v)

#if defined(ZTS) && defined(COMPILE_DL_REDLOCK)
ZEND_TSRMLS_CACHE_EXTERN()
#endif

#endif
