/* zts_threads.c -- the FrankenPHP model: one process, thread-safe PHP (ZTS) over the embed SAPI,
 * N threads each serving many PHP requests at once, the redlock extension loaded (php.ini from
 * PHPRC). Each request runs zts_threads.php, which does the checks of one request (lock/release,
 * wait woken by a release, the auto_extend watchdog, fencing, TLS, request-end release,
 * releaseAll(), per-thread statistics, and a counter on the aux node changed only under a lock
 * shared by every thread) and returns the names of the checks that failed. A last request in
 * the main thread checks the counter against the number of critical sections run, and
 * RedLock::metrics() (one table for every thread of the process) against the sum of what each
 * thread's stats() counted: acquisitions and releases, in total and of the resource prefix "zts".
 *
 *   PHPRC=DIR zts_threads THREADS REQUESTS SCRIPT
 *
 * Prints a line per failed check and ends with "N passed, N failed": a request is one test, passed
 * when every check of it passed (the checks passed are counted too).
 * Built and run by tests/harness/platforms/run.sh against a ZTS debug PHP (leaks and failed assertions
 * are reported by the engine on stderr; run.sh counts them too).
 */
#define _GNU_SOURCE /* as PHP itself is built: its headers use memrchr() */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sapi/embed/php_embed.h>
#include <Zend/zend_exceptions.h>

#define MAX_THREADS 64

static const char *script;
static int requests;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static long passed, failed, checks, sections;
static long long thread_acquired, thread_released; /* what the threads' stats() counted, summed */

static void result(int thread, int request, long p, long s, const char *failures)
{
    pthread_mutex_lock(&out_lock);
    checks += p;
    sections += s;
    if (failures && *failures) failed++;
    else passed++;
    if (failures && *failures) {
        /* one failed check a line */
        const char *l = failures;
        while (*l) {
            const char *e = strchr(l, '\n');
            int n = e ? (int)(e - l) : (int)strlen(l);
            printf("FAIL thread %d request %d: %.*s\n", thread, request, n, l);
            l += n + (e ? 1 : 0);
        }
    }
    fflush(stdout);
    pthread_mutex_unlock(&out_lock);
}

/* One PHP request in the calling thread: the script with $thread, $request (and $final) set;
 * it returns ['passed' => int, 'sections' => int, 'failed' => string (a line per check)]. */
static void one_request(int thread, int request, int final)
{
    char code[1024];
    snprintf(code, sizeof(code),
             "(static function () { $thread = %d; $request = %d; $requests = %d; $final = %s; return require '%s'; })()",
             thread, request, requests, final ? "true" : "false", script);
    SG(options) |= SAPI_OPTION_NO_CHDIR;
    SG(headers_sent) = 1;
    SG(request_info).no_headers = 1;
    if (!final && php_request_startup() == FAILURE) {
        result(thread, request, 0, 0, "php_request_startup() failed");
        return;
    }
    long p = 0, s = 0;
    char fails[4096] = "";
    zend_first_try
    {
        zval rv;
        ZVAL_UNDEF(&rv);
        if (zend_eval_stringl(code, strlen(code), &rv, "zts_threads") == SUCCESS && Z_TYPE(rv) == IS_ARRAY) {
            zval *v;
            if ((v = zend_hash_str_find(Z_ARRVAL(rv), "passed", sizeof("passed") - 1)) && Z_TYPE_P(v) == IS_LONG)
                p = Z_LVAL_P(v);
            if ((v = zend_hash_str_find(Z_ARRVAL(rv), "sections", sizeof("sections") - 1)) && Z_TYPE_P(v) == IS_LONG)
                s = Z_LVAL_P(v);
            if ((v = zend_hash_str_find(Z_ARRVAL(rv), "failed", sizeof("failed") - 1)) && Z_TYPE_P(v) == IS_STRING)
                snprintf(fails, sizeof(fails), "%s", Z_STRVAL_P(v));
        } else {
            snprintf(fails, sizeof(fails), "the script did not return its results%s",
                     EG(exception) ? " (uncaught exception)" : "");
            if (EG(exception)) zend_clear_exception();
        }
        zval_ptr_dtor(&rv);
    }
    zend_catch
    {
        snprintf(fails, sizeof(fails), "fatal error (bailout)");
    }
    zend_end_try();
    if (!final) php_request_shutdown(NULL);
    result(thread, request, p, s, fails);
}

/* code evaluated in the current request; its result in *rv (the caller's to free), 0 when it ran */
static int eval(const char *code, zval *rv)
{
    volatile int ok = -1; /* (set inside the try) */
    ZVAL_UNDEF(rv);
    zend_first_try
    {
        if (zend_eval_stringl((char *)code, strlen(code), rv, "zts_threads") == SUCCESS && !EG(exception)) ok = 0;
        if (EG(exception)) zend_clear_exception();
    }
    zend_end_try();
    return ok;
}

/* One more request after a thread's last (whose end released the lock it left held): this
 * thread's stats() (per thread: the module globals), acquired and released, into the sums. */
static void tally(int thread)
{
    char code[1024];
    const char *slash = strrchr(script, '/');
    snprintf(code, sizeof(code),
             "(static function () { require_once '%.*s/../../config.inc'; $s = rl_new()->stats();"
             " return [$s['acquired'], $s['released']]; })()",
             slash ? (int)(slash - script) : 1, slash ? script : ".");
    SG(options) |= SAPI_OPTION_NO_CHDIR;
    SG(headers_sent) = 1;
    SG(request_info).no_headers = 1;
    zval rv;
    long long a = -1, r = -1;
    if (php_request_startup() == SUCCESS) {
        if (eval(code, &rv) == 0 && Z_TYPE(rv) == IS_ARRAY && zend_hash_num_elements(Z_ARRVAL(rv)) == 2) {
            a = zval_get_long(zend_hash_index_find(Z_ARRVAL(rv), 0));
            r = zval_get_long(zend_hash_index_find(Z_ARRVAL(rv), 1));
        }
        zval_ptr_dtor(&rv);
        php_request_shutdown(NULL);
    }
    pthread_mutex_lock(&out_lock);
    if (a < 0 || r < 0) {
        printf("FAIL thread %d: its stats() could not be read\n", thread);
        failed++;
    } else {
        thread_acquired += a;
        thread_released += r;
    }
    pthread_mutex_unlock(&out_lock);
}

static void *worker(void *arg)
{
    int thread = (int)(intptr_t)arg;
    /* this thread's PHP globals, as FrankenPHP's threads get theirs */
    (void)ts_resource(0);
    for (int r = 1; r <= requests; r++) one_request(thread, r, 0);
    tally(thread);
    ts_free_thread();
    return NULL;
}

/* the value of the sample `series` (the whole name{labels}) in a Prometheus text, -1 when absent */
static long long sample(const char *text, const char *series)
{
    size_t n = strlen(series);
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        if (strncmp(l, series, n) == 0 && l[n] == ' ') return atoll(l + n + 1);
    return -1;
}

/* RedLock::metrics() in the main thread, every thread done: exactly the sums of the threads */
static void check_metrics(void)
{
    zval rv;
    if (eval("RedLock::metrics()", &rv) != 0 || Z_TYPE(rv) != IS_STRING) {
        printf("FAIL metrics: RedLock::metrics() did not return a string\n");
        failed++;
        zval_ptr_dtor(&rv);
        return;
    }
    const char *t = Z_STRVAL(rv);
    static const struct {
        const char *series;
        int released;
    } want[] = {
        {"redlock_acquisitions_total{mode=\"exclusive\"}", 0},
        {"redlock_releases_total", 1},
        /* every resource of zts_threads.php is "zts:..." */
        {"redlock_resource_acquisitions_total{resource=\"zts\"}", 0},
        {"redlock_resource_releases_total{resource=\"zts\"}", 1},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        long long v = sample(t, want[i].series), w = want[i].released ? thread_released : thread_acquired;
        if (v != w) {
            printf("FAIL metrics: %s is %lld, the threads' stats() add up to %lld\n", want[i].series, v, w);
            bad = 1;
        }
    }
    printf("metrics of the process: %lld acquisitions, %lld releases (the threads' stats(): %lld, %lld), "
           "%lld wake-ups\n",
           sample(t, want[0].series), sample(t, want[1].series), thread_acquired, thread_released,
           sample(t, "redlock_wakeups_total"));
    if (bad || thread_acquired <= 0)
        failed++;
    else
        passed++;
    zval_ptr_dtor(&rv);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: PHPRC=DIR %s THREADS REQUESTS SCRIPT\n", argv[0]);
        return 2;
    }
    int threads = atoi(argv[1]);
    requests = atoi(argv[2]);
    script = argv[3];
    if (threads < 1 || threads > MAX_THREADS || requests < 1 || strchr(script, '\'')) {
        fprintf(stderr, "zts_threads: 1..%d threads, at least 1 request, a script path without quotes\n", MAX_THREADS);
        return 2;
    }
    /* module startup and the main thread's request */
    if (php_embed_init(0, NULL) == FAILURE) {
        fprintf(stderr, "zts_threads: php_embed_init failed\n");
        return 1;
    }
    if (!zend_hash_str_exists(&module_registry, "redlock", sizeof("redlock") - 1)) {
        fprintf(stderr, "zts_threads: the redlock extension is not loaded (PHPRC's php.ini)\n");
        php_embed_shutdown();
        return 1;
    }
    pthread_t tids[MAX_THREADS];
    int started = 0;
    for (int t = 0; t < threads; t++) {
        if (pthread_create(&tids[t], NULL, worker, (void *)(intptr_t)(t + 1)) != 0) {
            fprintf(stderr, "zts_threads: pthread_create failed\n");
            failed++;
            break;
        }
        started++;
    }
    for (int t = 0; t < started; t++) pthread_join(tids[t], NULL);
    /* the main thread's request (open since php_embed_init): the counter against the sections */
    requests = (int)sections;
    one_request(0, 0, 1);
    check_metrics();
    php_embed_shutdown();
    printf("%d threads x %d requests: %ld critical sections on the shared lock, %ld checks passed\n", threads,
           atoi(argv[2]), sections, checks);
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed ? 1 : 0;
}
