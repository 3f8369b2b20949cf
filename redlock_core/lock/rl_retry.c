/* rl_retry.c -- between two attempts of a lock() or a permit: the retry pause, and the wait for a release
 * (docs/api.md "Waiting") spread over the waiters of one resource. */
#include "rl_lock_int.h"

static uint64_t retry_pause_us(const rl_ctx *c, const rl_opts *o)
{
    uint64_t us = (uint64_t)o->retry_delay_ms * 1000u;
    if (o->retry_jitter_ms > 0) {
        uint32_t r = 0;
        if (c->rnd->fill(c->rnd->ctx, &r, sizeof(r)) == 0)
            us += (uint64_t)r % ((uint64_t)o->retry_jitter_ms * 1000u + 1);
    }
    return us;
}

/* Thundering herd (docs/api.md "Waiting"). A release reaches every waiter at
 * once: woken together, their SETs could split the nodes' votes so that
 * nobody gets a quorum, and on a small machine the wake-ups alone delay
 * the handoff. So waiters space themselves out, over a time proportional to
 * their number (a release tells it: the channel's subscribers), and each
 * tries only if the latest news is a release, not another waiter's
 * "acquired":
 * - few waiters (below RL_HERD): sleep in poll() until a message comes; on
 *   a release hold back a random time within (waiters - 1) slots (one slot:
 *   one attempt's round trip), then try unless someone announced first (two
 *   waiters go at once: of two SETs one always gets a majority);
 * - many: nobody sleeps in poll(). Each sleeps a random time within
 *   2 x waiters slots and then reads, without waiting, what its
 *   subscriptions brought meanwhile: about one waiter per slot looks, so a
 *   release is seen about one slot later, by one or two of them, while the
 *   others are never woken by it. The hold-back is a sleep, not a poll, so
 *   the messages of the other nodes wake nobody.
 * The retry timer (retry_delay + jitter) stays the fallback for an expiry,
 * a lost message or a node down. */
#define RL_SLOT_MIN_US 100u
#define RL_SLOT_MAX_US 1000u
#define RL_HERD 16

uint64_t rl_random_below(const rl_ctx *c, uint64_t span)
{
    uint32_t r = 0;
    if (span == 0 || c->rnd->fill(c->rnd->ctx, &r, sizeof(r)) != 0) return 0;
    return (uint64_t)r % span;
}

static uint64_t slot_of(uint64_t slot_us)
{
    return slot_us < RL_SLOT_MIN_US ? RL_SLOT_MIN_US : slot_us > RL_SLOT_MAX_US ? RL_SLOT_MAX_US : slot_us;
}

/* Between two attempts of a subscribed wait (b->w), never past until_us.
 * Returns when the next attempt should go: 1 when a release sent it (a
 * wake-up, rl_lock_info.wakeups), 0 the timer. b->waiters: the last count a
 * release gave; b->by_cleanup: 1 when that release was a failed attempt's
 * cleanup. */
static int wait_for_release(const rl_ctx *c, rl_between *b, uint64_t until_us, uint64_t slot_us)
{
    const rl_waiter *w = b->w;
    int *waiters = &b->waiters, *by_cleanup = &b->by_cleanup;
    rl_wake ev;
    *by_cleanup = 0;
    uint64_t slot = slot_of(slot_us);
    for (;;) {
        uint64_t now = c->clock->now_us(c->clock->ctx);
        if (now >= until_us) return 0; /* the timer */
        if (*waiters >= RL_HERD) {
            uint64_t nap = 1 + rl_random_below(c, slot * (uint64_t)*waiters);
            if (nap > until_us - now) nap = until_us - now;
            c->clock->sleep_us(c->clock->ctx, nap);
            if (w->latest(w->ctx, &ev) != RL_WAKE_RELEASED) continue; /* nothing new, or taken again */
            *waiters = ev.waiters;
            *by_cleanup = ev.cleanup;
            return 1;
        }
        if (w->wait(w->ctx, until_us, &ev) == RL_WAKE_TIMER) return 0;
        if (ev.kind != RL_WAKE_RELEASED) continue; /* another waiter's SET: keep waiting */
        *waiters = ev.waiters;
        *by_cleanup = ev.cleanup;
        /* two can go together: one of them gets a majority whatever the order */
        uint64_t hold = ev.waiters > 2 ? rl_random_below(c, slot * (uint64_t)(ev.waiters - 1)) : 0;
        now = c->clock->now_us(c->clock->ctx);
        if (now + hold > until_us) hold = until_us > now ? until_us - now : 0;
        if (hold == 0) return 1;
        c->clock->sleep_us(c->clock->ctx, hold);
        /* the latest news decides: taken by another waiter, or free */
        int k = w->latest(w->ctx, &ev);
        if (k == RL_WAKE_RELEASED) *by_cleanup = ev.cleanup;
        if (k != RL_WAKE_ACQUIRED) return 1;
    }
}

/* step 6, between attempts (retry and wake policy): 0 to try again, 1 to stop.
 * With wait: until the deadline, never sleeping past it, woken by a release;
 * else retry_count more attempts, never sleeping after the last. */
int rl_next_attempt(const rl_ctx *c, const rl_opts *o, rl_between *b, int attempt, uint64_t slot_us, rl_lock_info *info)
{
    b->by_cleanup = 0;
    uint64_t now = c->clock->now_us(c->clock->ctx);
    uint64_t pause = retry_pause_us(c, o);
    if (b->max_pause_us && pause > b->max_pause_us) pause = b->max_pause_us;
    if (b->deadline) {
        if (now >= b->deadline) return 1;
        if (now + pause > b->deadline) pause = b->deadline - now;
    } else if (attempt >= o->retry_count) {
        return 1;
    }
    if (b->w && !b->confirmed) {
        b->w->ready(b->w->ctx, b->deadline);
        b->confirmed = 1;
        return 0;
    }
    if (b->w)
        info->wakeups += wait_for_release(c, b, now + pause, slot_us);
    else if (pause)
        c->clock->sleep_us(c->clock->ctx, pause);
    return 0;
}
