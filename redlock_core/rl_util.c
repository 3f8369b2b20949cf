/* rl_util.c -- monotonic clock, CSPRNG tokens, RESP encoding, latency histograms, error names. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rl.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

const char rl_script_release[] =
    "if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"del\",KEYS[1]) else return 0 end";
const char rl_script_release_sha[] = "b70c2384248f88e6b75b9f89241a180f856ad852";
const char rl_script_extend[] =
    "if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"pexpire\",KEYS[1],ARGV[2]) else return 0 end";
const char rl_script_extend_sha[] = "36e94d1c6e02fcefaa7ee5d79eee614dbac55f10";

const char *rl_err_name(int err)
{
    switch (err) {
    case RL_OK: return "ok";
    case RL_E_REFUSED: return "connection refused";
    case RL_E_TIMEOUT: return "timeout";
    case RL_E_AUTH: return "authentication failed";
    case RL_E_PROTO: return "protocol error";
    case RL_E_IO: return "i/o error";
    case RL_E_DOWN: return "down (back-off)";
    case RL_E_REDIS: return "error reply";
    case RL_E_RESOLVE: return "host not resolved";
    case RL_E_NOMEM: return "out of memory";
    case RL_E_SAME_SERVER: return "same server as another node";
    case RL_E_STALLED: return "stalled";
    }
    return "unknown error";
}

/* ---- clock ---- */
static uint64_t mono_now_us(void *ctx)
{
    struct timespec ts;
    (void)ctx;
    /* The spec's elapsed time must not jump with the wall clock, and must not
     * stop either: CLOCK_MONOTONIC stands still while the machine is
     * suspended (and in some VM pauses), so a lock would claim validity its
     * keys no longer have. CLOCK_BOOTTIME keeps counting (API.md). */
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
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
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

int rl_make_token(const rl_random *rnd, char out[RL_TOKEN_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char b[RL_TOKEN_BYTES];
    if (rnd->fill(rnd->ctx, b, sizeof(b)) != 0) return -1;
    for (int i = 0; i < RL_TOKEN_BYTES; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    out[RL_TOKEN_LEN] = '\0';
    return 0;
}

/* ---- RESP ---- */
static size_t put_num(char *p, size_t n)
{
    char tmp[24];
    size_t l = 0;
    do {
        tmp[l++] = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    for (size_t i = 0; i < l; i++) p[i] = tmp[l - 1 - i];
    return l;
}

static size_t num_len(size_t n)
{
    size_t l = 1;
    while (n >= 10) {
        n /= 10;
        l++;
    }
    return l;
}

size_t rl_resp_format(char *buf, size_t cap, int argc, const char *const *argv,
                      const size_t *argvlen)
{
    size_t need = 1 + num_len((size_t)argc) + 2;
    for (int i = 0; i < argc; i++) need += 1 + num_len(argvlen[i]) + 2 + argvlen[i] + 2;
    if (need > cap) return need;
    char *p = buf;
    *p++ = '*';
    p += put_num(p, (size_t)argc);
    *p++ = '\r';
    *p++ = '\n';
    for (int i = 0; i < argc; i++) {
        *p++ = '$';
        p += put_num(p, argvlen[i]);
        *p++ = '\r';
        *p++ = '\n';
        if (argvlen[i]) memcpy(p, argv[i], argvlen[i]);
        p += argvlen[i];
        *p++ = '\r';
        *p++ = '\n';
    }
    return need;
}

/* ---- latency: quarter-octave histogram, mergeable across connections ---- */
static int lat_bucket(uint64_t us)
{
    if (us < 4) return (int)us;
    int b = 63 - __builtin_clzll(us);
    int idx = (b - 1) * 4 + (int)((us >> (b - 2)) & 3);
    return idx > 127 ? 127 : idx;
}

static uint64_t lat_value(int idx)
{
    if (idx < 4) return (uint64_t)idx;
    int b = idx / 4 + 1, sub = idx % 4;
    uint64_t lo = (uint64_t)(4 + sub) << (b - 2);
    uint64_t width = (uint64_t)1 << (b - 2);
    return lo + width - 1; /* the bucket's upper bound: a percentile never understates */
}

void rl_latency_add(rl_latency *l, uint64_t us)
{
    l->count++;
    if (us > l->max_us) l->max_us = us;
    l->bucket[lat_bucket(us)]++;
}

void rl_latency_merge(rl_latency *into, const rl_latency *from)
{
    into->count += from->count;
    if (from->max_us > into->max_us) into->max_us = from->max_us;
    for (int i = 0; i < 128; i++) into->bucket[i] += from->bucket[i];
}

uint64_t rl_latency_percentile(const rl_latency *l, double p)
{
    if (l->count == 0) return 0;
    uint64_t want = (uint64_t)(p * (double)l->count + 0.999999);
    if (want == 0) want = 1;
    uint64_t seen = 0;
    for (int i = 0; i < 128; i++) {
        seen += l->bucket[i];
        if (seen >= want) {
            uint64_t v = lat_value(i);
            /* the maximum's own bucket reports the maximum: exact at p100 */
            return v > l->max_us || i == lat_bucket(l->max_us) ? l->max_us : v;
        }
    }
    return l->max_us;
}
