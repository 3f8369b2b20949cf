/* redlock.c -- the module: INI entries, class registration, request start and end, phpinfo(). */
#include "php_redlock_int.h"

#include "ext/spl/spl_exceptions.h"
#include "ext/standard/info.h"

#include <hiredis/hiredis.h>

#include "redlock_arginfo.h"

ZEND_DECLARE_MODULE_GLOBALS(redlock)

zend_class_entry *php_redlock_ce;
zend_class_entry *php_redlock_lock_ce;
zend_class_entry *php_redlock_exception_ce;
zend_class_entry *php_redlock_quorum_ce;
zend_class_entry *php_redlock_conflict_ce;
zend_class_entry *php_redlock_lost_ce;

/* ---------- INI: one entry per option of REDLOCK_OPTIONS (php_redlock.h) ---------- */

#ifdef ZTS
#define REDLOCK_INI_GLOBALS ((void *)&redlock_globals_id)
#else
#define REDLOCK_INI_GLOBALS ((void *)&redlock_globals)
#endif
#define REDLOCK_INI_DISPLAY_LONG NULL
#define REDLOCK_INI_DISPLAY_DOUBLE NULL
#define REDLOCK_INI_DISPLAY_BOOL zend_ini_boolean_displayer_cb
#define REDLOCK_INI_DISPLAY_STRING NULL
#define REDLOCK_INI_DISPLAY_LOST NULL
#define REDLOCK_INI_DISPLAY_GRACE NULL
#define REDLOCK_INI_ENTRY_OF(n, t, ini)                                                                         \
    ZEND_INI_ENTRY3_EX("redlock." #n, ini, PHP_INI_ALL, php_redlock_ini_update_##t,                            \
                       (void *)XtOffsetOf(zend_redlock_globals, n), REDLOCK_INI_GLOBALS,                       \
                       (void *)&php_redlock_opt_defs[REDLOCK_OPT_##n], REDLOCK_INI_DISPLAY_##t)
#define REDLOCK_INI_ENTRY_LONG REDLOCK_INI_ENTRY_OF
#define REDLOCK_INI_ENTRY_DOUBLE REDLOCK_INI_ENTRY_OF
#define REDLOCK_INI_ENTRY_BOOL REDLOCK_INI_ENTRY_OF
#define REDLOCK_INI_ENTRY_STRING REDLOCK_INI_ENTRY_OF
#define REDLOCK_INI_ENTRY_LOST REDLOCK_INI_ENTRY_OF
#define REDLOCK_INI_ENTRY_GRACE REDLOCK_INI_ENTRY_OF
#define REDLOCK_INI_ENTRY_TLS(n, t, ini) /* the tls option has no INI entry */
#define REDLOCK_INI_ENTRY(n, t, w, ini, lo, hi) REDLOCK_IF_INI_##w(REDLOCK_INI_ENTRY_##t(n, t, ini))

PHP_INI_BEGIN()
    REDLOCK_OPTIONS(REDLOCK_INI_ENTRY)
    /* not an option: read once at MINIT (redlock_metrics.c), before php-fpm forks */
    PHP_INI_ENTRY_EX("redlock.metrics", "1", PHP_INI_SYSTEM, NULL, zend_ini_boolean_displayer_cb)
PHP_INI_END()

/* ---------- module ---------- */

static PHP_GINIT_FUNCTION(redlock)
{
#if defined(COMPILE_DL_REDLOCK) && defined(ZTS)
    ZEND_TSRMLS_CACHE_UPDATE();
#endif
    memset(redlock_globals, 0, sizeof(*redlock_globals));
    php_redlock_pool_ginit(&redlock_globals->pool);
    zend_hash_init(&redlock_globals->distinct, 8, NULL, NULL, 1);
}

static PHP_GSHUTDOWN_FUNCTION(redlock)
{
    php_redlock_pool_gshutdown(&redlock_globals->pool);
    zend_hash_destroy(&redlock_globals->distinct);
}

PHP_MINIT_FUNCTION(redlock)
{
    REGISTER_INI_ENTRIES();

    php_redlock_ce = register_class_RedLock();
    php_redlock_class_init(php_redlock_ce);

    php_redlock_lock_ce = register_class_RedLock_Lock();
    if (php_redlock_lock_class_init(php_redlock_lock_ce) != SUCCESS) return FAILURE;

    php_redlock_exception_ce = register_class_RedLock_Exception(spl_ce_RuntimeException);
    php_redlock_quorum_ce = register_class_RedLock_QuorumException(php_redlock_exception_ce);
    php_redlock_conflict_ce = register_class_RedLock_LockConflictException(php_redlock_exception_ce);
    php_redlock_lost_ce = register_class_RedLock_LockLostException(php_redlock_exception_ce);

    rl_fork_generation(); /* installs the atfork hook before any fork */
    php_redlock_lost_minit();
    php_redlock_metrics_startup(); /* reads redlock.metrics; the table is bound at each process' first RINIT */
    return php_redlock_pool_key_init();
}

PHP_MSHUTDOWN_FUNCTION(redlock)
{
    /* stops every watch and joins the watchdog thread, before this code is unloaded */
    rl_watchdog_shutdown();
    php_redlock_lost_mshutdown();
    php_redlock_metrics_shutdown();
    UNREGISTER_INI_ENTRIES();
    return SUCCESS;
}

PHP_RINIT_FUNCTION(redlock)
{
#if defined(COMPILE_DL_REDLOCK) && defined(ZTS)
    ZEND_TSRMLS_CACHE_UPDATE();
#endif
    REDLOCK_G(request_id)++;
    /* before any code of the request: the table of this process' user (a new one: the pool's
     * connections count into it from now on) */
    if (php_redlock_metrics_rinit()) php_redlock_pool_retrack();
    php_redlock_held_start();
    php_redlock_lost_rinit();
    return SUCCESS;
}

/* Runs after shutdown functions and destructors (php_request_shutdown calls
 * RSHUTDOWN later), also after exit(), uncaught exceptions, fatal errors and
 * max_execution_time, so every lock still held by this request is released. */
PHP_RSHUTDOWN_FUNCTION(redlock)
{
    /* stops watching this request's auto_extend locks, then releases (auto_release) */
    php_redlock_held_release_all(true);
    php_redlock_lost_rshutdown(); /* after the watches stopped: no callback is left */
    php_redlock_pool_flush();
    return SUCCESS;
}

PHP_MINFO_FUNCTION(redlock)
{
    char buf[64];
    uint32_t pooled, open;
    php_redlock_pool_counts(&pooled, &open);
    php_info_print_table_start();
    php_info_print_table_row(2, "redlock support", "enabled");
    php_info_print_table_row(2, "Version", PHP_REDLOCK_VERSION);
    snprintf(buf, sizeof(buf), "%d.%d.%d", HIREDIS_MAJOR, HIREDIS_MINOR, HIREDIS_PATCH);
    php_info_print_table_row(2, "hiredis version", buf);
    /* "yes (OpenSSL 3.0.x ...)" when the core was built with OpenSSL (configure found it) */
    if (rl_tls_available()) {
        const char *v = rl_tls_version();
        char tls[160];
        snprintf(tls, sizeof(tls), "yes (%s)", v ? v : "OpenSSL");
        php_info_print_table_row(2, "TLS", tls);
    } else {
        php_info_print_table_row(2, "TLS", "no");
    }
    snprintf(buf, sizeof(buf), "%u", pooled);
    php_info_print_table_row(2, "Pooled connections", buf);
    snprintf(buf, sizeof(buf), "%u", open);
    php_info_print_table_row(2, "Open connections", buf);
    int running = 0;
    snprintf(buf, sizeof(buf), "%d", rl_watchdog_active(&running));
    php_info_print_table_row(2, "auto_extend watched locks", buf);
    php_info_print_table_row(2, "auto_extend watchdog thread", running ? "running" : "not started");
    php_redlock_metrics_info();
    php_info_print_table_end();
    DISPLAY_INI_ENTRIES();
}

zend_module_entry redlock_module_entry = {
    STANDARD_MODULE_HEADER,
    .name = "redlock",
    .functions = NULL,
    .module_startup_func = PHP_MINIT(redlock),
    .module_shutdown_func = PHP_MSHUTDOWN(redlock),
    .request_startup_func = PHP_RINIT(redlock),
    .request_shutdown_func = PHP_RSHUTDOWN(redlock),
    .info_func = PHP_MINFO(redlock),
    .version = PHP_REDLOCK_VERSION,
    PHP_MODULE_GLOBALS(redlock),
    .globals_ctor = PHP_GINIT(redlock),
    .globals_dtor = PHP_GSHUTDOWN(redlock),
    .post_deactivate_func = NULL,
    STANDARD_MODULE_PROPERTIES_EX,
};

#ifdef COMPILE_DL_REDLOCK
#ifdef ZTS
ZEND_TSRMLS_CACHE_DEFINE()
#endif
ZEND_GET_MODULE(redlock)
#endif
