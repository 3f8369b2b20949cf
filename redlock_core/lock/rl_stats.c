/* rl_stats.c -- per-node statistics: latency histograms (mergeable across connections), error names. */
#include "rl_internal.h"

#include <stdarg.h>
#include <stdio.h>

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

/* ---- why a node does not count; the message of a call without a quorum ---- */
typedef struct msg_buf {
    char *buf;
    size_t len, n; /* n: the length written so far, or that would have been */
} msg_buf;

__attribute__((format(printf, 2, 3))) static void put(msg_buf *m, const char *fmt, ...)
{
    size_t room = m->n < m->len ? m->len - m->n : 0;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(room ? m->buf + m->n : NULL, room, fmt, ap);
    va_end(ap);
    if (k > 0) m->n += (size_t)k;
}

size_t rl_result_why(const rl_result *r, char *buf, size_t len)
{
    msg_buf m = {buf, len, 0};
    if (len) buf[0] = '\0';
    if (r->state == RL_FAILED) {
        put(&m, "%s", r->reason[0] ? r->reason : rl_err_name(r->err));
    } else if (r->state == RL_ANSWERED && r->novote_need > 0) {
        /* a node out of the quorum (README "Restarted nodes") is no failure, but it says why */
        put(&m, RL_NOVOTE_NEED_FMT, (unsigned long long)(r->up_ms / 1000), (unsigned)r->novote_need);
    } else if (r->state == RL_ANSWERED && r->novote_ms > 0) {
        put(&m, "%s %lld s ago, votes in %lld s", r->novote_clock ? "clock stepped forward" : "restarted",
            (long long)(r->up_ms / 1000), (long long)((r->novote_ms + 999) / 1000));
    }
    return m.n;
}

size_t rl_quorum_message(char *buf, size_t len, const char *what, const rl_call *call, int n, const char *const *names)
{
    msg_buf m = {buf, len, 0};
    if (len) buf[0] = '\0';
    put(&m, "%s: could not reach a quorum (%d of %d nodes needed, %d answered)", what, rl_quorum(n), n, call->answered);
    const char *sep = ": ";
    char why[RL_REASON_LEN + 64];
    for (int i = 0; i < n; i++) {
        if (!rl_result_why(&call->res[i], why, sizeof(why))) continue;
        put(&m, "%s%s %s", sep, names[i], why);
        sep = "; ";
    }
    /* a node still in flight when the outcome was decided did not fail: its
     * answer was simply not awaited */
    sep = "; not awaited: ";
    for (int i = 0; i < n; i++) {
        if (call->res[i].state != RL_PENDING) continue;
        put(&m, "%s%s", sep, names[i]);
        sep = ", ";
    }
    return m.n;
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
