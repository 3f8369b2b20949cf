/* rl_stats.c -- per-node statistics: latency histograms (mergeable across connections), error names. */
#include "rl_internal.h"

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
