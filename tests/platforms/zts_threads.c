/* zts_threads.c -- the FrankenPHP model: one process, thread-safe PHP (ZTS) over the embed SAPI,
 * N threads each serving many PHP requests at once, the redlock extension loaded (php.ini from
 * PHPRC). Each request runs zts_threads.php, which does the checks of one request (lock/release,
 * wait woken by a release, the auto_extend watchdog, fencing, TLS, request-end release,
 * releaseAll(), per-thread statistics, and a counter on the aux node changed only under a lock
 * shared by every thread) and returns the names of the checks that failed. A last request in
 * the main thread checks the counter against the number of critical sections run.
 *
 *   PHPRC=DIR zts_threads THREADS REQUESTS SCRIPT
 *
 * Prints a line per failed check and ends with "N passed, N failed": a request is one test, passed
 * when every check of it passed (the checks passed are counted too).
 * Built and run by tests/platforms/run.sh against a ZTS debug PHP (leaks and failed assertions
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

static void *worker(void *arg)
{
    int thread = (int)(intptr_t)arg;
    /* this thread's PHP globals, as FrankenPHP's threads get theirs */
    (void)ts_resource(0);
    for (int r = 1; r <= requests; r++) one_request(thread, r, 0);
    ts_free_thread();
    return NULL;
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
    php_embed_shutdown();
    printf("%d threads x %d requests: %ld critical sections on the shared lock, %ld checks passed\n", threads,
           atoi(argv[2]), sections, checks);
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed ? 1 : 0;
}
