/* tsan_tokens.c -- tokens from many threads at once (ZTS builds): no duplicate, no zero token.
 * Built with -fsanitize=thread: a data race in the random pool fails the run too. */
#include "rl_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define PER_THREAD 100000

static char (*tokens)[RL_TOKEN_LEN + 1];

static void *worker(void *arg)
{
    size_t base = (size_t)(uintptr_t)arg * PER_THREAD;
    for (size_t i = 0; i < PER_THREAD; i++)
        if (rl_make_token(&rl_random_system, tokens[base + i]) != 0) return (void *)1;
    return NULL;
}

static int cmp(const void *a, const void *b) { return memcmp(a, b, RL_TOKEN_LEN); }

int main(void)
{
    int passed = 0, failed = 0;
    size_t total = (size_t)THREADS * PER_THREAD;
    tokens = calloc(total, sizeof(*tokens));
    if (!tokens) return 2;
    pthread_t th[THREADS];
    int errors = 0;
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t);
    for (int t = 0; t < THREADS; t++) {
        void *rv;
        pthread_join(th[t], &rv);
        errors += rv != NULL;
    }
    size_t zero = 0, dup = 0, badlen = 0;
    for (size_t i = 0; i < total; i++) {
        if (strlen(tokens[i]) != RL_TOKEN_LEN) badlen++;
        if (strspn(tokens[i], "0") == RL_TOKEN_LEN) zero++;
    }
    qsort(tokens, total, sizeof(*tokens), cmp);
    for (size_t i = 1; i < total; i++) dup += memcmp(tokens[i - 1], tokens[i], RL_TOKEN_LEN) == 0;
    printf("    %d threads x %d tokens: %zu duplicates, %zu zero tokens, %zu bad lengths, %d errors\n", THREADS,
           PER_THREAD, dup, zero, badlen, errors);
    if (dup || zero || badlen || errors) {
        printf("FAIL tokens_threads\n");
        failed++;
    } else {
        printf("PASS tokens_threads\n");
        passed++;
    }
    free(tokens);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
