/* php_redlock.h -- module entry, globals and shared declarations of the redlock extension. */
#ifndef PHP_REDLOCK_H
#define PHP_REDLOCK_H

extern zend_module_entry redlock_module_entry;
#define phpext_redlock_ptr &redlock_module_entry

#define PHP_REDLOCK_VERSION "0.1.0"

#ifdef ZTS
#include "TSRM.h"
#endif

ZEND_BEGIN_MODULE_GLOBALS(redlock)
    /* INI defaults of every option */
    zend_long retry_count;
    zend_long retry_delay;
    zend_long retry_jitter;
    zend_long wait;
    double drift_factor;
    zend_long connect_timeout;
    zend_long timeout;
    bool persistent;
    char *prefix;
    bool fencing;
    bool auto_release;
    bool throw_on_lost;
    /* connection pool of this worker: identity -> php_redlock_pooled* (persistent) */
    HashTable pool;
    /* process counters for stats() */
    zend_long acquired, conflicts, quorum_failures, released, extended;
    /* per request: locks to release at request end; id -> php_redlock_held* */
    HashTable held;
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
