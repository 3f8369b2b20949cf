/* rl_sys.c -- what the core asks of the system: the monotonic clock, the fork generation, random tokens. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rl_internal.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* ---- clock ---- */
static uint64_t mono_now_us(void *ctx)
{
    struct timespec ts;
    (void)ctx;
    /* The spec's elapsed time must not jump with the wall clock, and must not
     * stop either: CLOCK_MONOTONIC stands still while the machine is
     * suspended (and in some VM pauses), so a lock would claim validity its
     * keys no longer have. CLOCK_BOOTTIME keeps counting (docs/api.md). */
#ifdef CLOCK_BOOTTIME
    if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
#endif
        clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void mono_sleep_us(void *ctx, uint64_t us)
{
    struct timespec ts;
    (void)ctx;
    ts.tv_sec = (time_t)(us / 1000000u);
    ts.tv_nsec = (long)(us % 1000000u) * 1000;
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {}
}

const rl_clock rl_clock_monotonic = {mono_now_us, mono_sleep_us, NULL};

/* ---- fork generation and random pool ---- */
/* Written only in a fork child's atfork handler (one thread then), read by
 * any thread: an atomic keeps ThreadSanitizer and the compiler honest. */
static _Atomic uint64_t fork_gen = 1;
/* One pool per thread (ZTS: FrankenPHP, threaded Apache): a shared pool
 * without a lock can hand two threads the same bytes, or zeroed ones. */
static __thread unsigned char rnd_pool[RL_TOKEN_BYTES * 32];
static __thread size_t rnd_pos = sizeof(rnd_pool); /* empty */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void on_fork_child(void)
{
    fork_gen++;
    /* the child must never hand out the parent's buffered random bytes (only
     * the forking thread lives on in the child: its pool is this one) */
    memset(rnd_pool, 0, sizeof(rnd_pool));
    rnd_pos = sizeof(rnd_pool);
}

static void install_atfork(void) { pthread_atfork(NULL, NULL, on_fork_child); }

uint64_t rl_fork_generation(void)
{
    pthread_once(&atfork_once, install_atfork);
    return fork_gen;
}

static int getrandom_all(unsigned char *p, size_t len)
{
    while (len > 0) {
        ssize_t r = getrandom(p, len, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

/* One getrandom(2) call serves 32 tokens: the hot path makes no syscall it
 * does not need. Consumed bytes are wiped. */
static int system_fill(void *ctx, void *buf, size_t len)
{
    (void)ctx;
    pthread_once(&atfork_once, install_atfork);
    if (len > sizeof(rnd_pool)) return getrandom_all(buf, len);
    if (sizeof(rnd_pool) - rnd_pos < len) {
        if (getrandom_all(rnd_pool, sizeof(rnd_pool)) != 0) return -1;
        rnd_pos = 0;
    }
    memcpy(buf, rnd_pool + rnd_pos, len);
    memset(rnd_pool + rnd_pos, 0, len);
    rnd_pos += len;
    return 0;
}

const rl_random rl_random_system = {system_fill, NULL};

int rl_random_hex(const rl_random *rnd, char *out, size_t nbytes)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char b[64];
    if (nbytes > sizeof(b) || rnd->fill(rnd->ctx, b, nbytes) != 0) return -1;
    for (size_t i = 0; i < nbytes; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    out[2 * nbytes] = '\0';
    return 0;
}

int rl_make_token(const rl_random *rnd, char out[RL_TOKEN_LEN + 1]) { return rl_random_hex(rnd, out, RL_TOKEN_BYTES); }
