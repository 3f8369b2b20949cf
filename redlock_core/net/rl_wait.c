/* rl_wait.c -- waiting for a release: subscriber connections, SUBSCRIBE/UNSUBSCRIBE, and the
 * rl_waiter that rl_acquire sleeps on (docs/api.md "Waiting"). */
#include "rl_conn_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int node_index(const rl_subs *s, const rl_conn *c)
{
    for (int i = 0; i < s->net.n; i++)
        if (s->net.conns[i] == c) return i;
    return -1;
}

#define RL_WAKE_GRACE_US 2000u

/* the event of the release last counted (reported, or reported again) */
static void released_event(rl_subs *s)
{
    s->ev.kind = RL_WAKE_RELEASED;
    s->ev.waiters = s->seen_waiters > 0 ? s->seen_waiters : 1;
    s->ev.cleanup = s->counting_cleanup;
}

static void report_release(rl_subs *s)
{
    s->last_release = s->counting;
    s->last_seen = s->seen;
    s->counting = 0;
    released_event(s);
}

/* a release announced by fewer than a quorum of nodes, for long enough */
static void release_grace(rl_subs *s, uint64_t now)
{
    if (s->counting && now >= s->seen_first_us + RL_WAKE_GRACE_US) report_release(s);
}

/* The decoding of a subscriber connection's pushes, element by element as
 * the reply parser meets them (rl_read.c calls it through the hook given to
 * rlc_sub_send): ["message", channel, payload] or ["subscribe", channel, n].
 * s is NULL for an element that is not a string. The channel is kept as its
 * rl_hash, the payload's leading number (the release's: -1 none) and the
 * hash of what follows its space (the release's id). */
void rl_wait_push_element(rl_push *p, int idx, const char *s, size_t len)
{
    if (!s) {
        if (idx == 0) p->kind = PUSH_OTHER;
        return;
    }
    if (idx == 0) {
        p->kind = len == 7 && memcmp(s, "message", 7) == 0         ? PUSH_MESSAGE
                  : len == 9 && memcmp(s, "subscribe", 9) == 0     ? PUSH_SUBSCRIBE
                  : len == 11 && memcmp(s, "unsubscribe", 11) == 0 ? PUSH_UNSUBSCRIBE
                                                                   : PUSH_OTHER;
    } else if (idx == 1) {
        p->chan = rl_hash(RL_HASH_INIT, s, len);
    } else if (idx == 2) {
        size_t i = 0;
        p->first = len ? s[0] : '\0';
        p->number = len && s[0] >= '0' && s[0] <= '9' ? 0 : -1;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            if (p->number < 1000000000) p->number = p->number * 10 + (s[i] - '0');
        const char *sp = memchr(s, ' ', len);
        p->id = sp ? rl_hash(RL_HASH_INIT, sp + 1, len - (size_t)(sp + 1 - s)) : 0;
        p->idmark = sp && sp + 1 < s + len ? sp[1] : '\0';
    }
}

/* a channel of this wait: the key's, its group's or its shard's (of each
 * key, for a key list; a group gets a message only from a release of a
 * version before the shards) */
static int ours(const rl_subs *s, uint64_t h)
{
    if (!s->nlist) return h == s->chan_hash || h == s->shard_hash || (s->grouped && h == s->group_hash);
    for (int k = 0; k < 3 * s->nlist; k++)
        if (s->list_hash[k] == h) return 1;
    return 0;
}

/* A push or a (un)subscribe confirmation on one of our connections. */
static void on_push(void *ud, rl_conn *c)
{
    rl_subs *s = ud;
    const rl_push *p = rlc_push(c);
    int i = node_index(s, c);
    if (i < 0) return;
    if (p->kind == PUSH_SUBSCRIBE || p->kind == PUSH_REFUSED) {
        /* (a confirmation of an earlier channel, still in flight, is not ours) */
        if (p->kind == PUSH_REFUSED) {
            s->pending[i] = 0;
            s->wanted[i] = 0; /* not allowed: leave it to the timer */
        } else if (ours(s, p->chan) && s->pending[i]) {
            s->pending[i]--;
        }
        return;
    }
    if (p->kind != PUSH_MESSAGE || !s->on || !ours(s, p->chan)) return; /* an older wait's, or another shard's */
    if (p->number >= 0) {
        /* the cleanup of an attempt that a cleanup woke: not news (rl.h
         * RL_ID_QUIET), and it must not disturb a count under way */
        if (p->idmark == RL_ID_QUIET) return;
        /* A release reaches us once per node; it is reported once, when a
         * quorum of nodes announced it: then the key is free on a quorum,
         * and a SET sent now does not overtake the holder's release on the
         * nodes that have not run it yet (it would fail there, and the
         * attempt with it). Fewer in RL_WAKE_GRACE_US: reported all the
         * same (a node down, a message lost). The id is the release's own
         * (random per release, rl_script_release): another release by the
         * same owner, with the same token, is a new one. */
        if (p->id == s->last_release) {
            /* Reported from fewer than a quorum (the grace ran out: the
             * other nodes' servers slow to run the release), the attempt it
             * sent may have failed on the nodes that had not run it yet.
             * The message that completes a quorum is news once more: the
             * key is free on a quorum now (else the wait slept to its retry
             * timer). Reported once: messages past a quorum are not. */
            int q = rl_quorum(s->net.n), had = __builtin_popcountll(s->last_seen);
            s->last_seen |= (uint64_t)1 << i;
            if (had < q && __builtin_popcountll(s->last_seen) >= q) released_event(s);
            return;
        }
        if (p->id != s->counting) {
            s->counting = p->id;
            s->counting_cleanup = p->idmark == RL_ID_CLEANUP;
            s->seen = 0;
            s->seen_waiters = 0;
            s->seen_first_us = s->net.clock->now_us(s->net.clock->ctx);
        }
        s->seen |= (uint64_t)1 << i;
        int w = p->number > 0 ? (p->number > 1000000 ? 1000000 : (int)p->number) : 1;
        if (w > s->seen_waiters) s->seen_waiters = w;
        if (__builtin_popcountll(s->seen) >= rl_quorum(s->net.n)) report_release(s);
    } else if (p->first == 'a') {
        /* A waiter's SET took the key on node i. Each node's messages come
         * in that node's order, not across nodes: an "acquired" from a node
         * that has not announced the release being counted (or the one last
         * reported) ran there before that release, and is old news (a
         * holder of 1 ms: every node sends "acquired", then its release;
         * node 2's "acquired" read after node 1's release cancelled it, and
         * the wait ran to its retry timer). After that node's release, the
         * latest news wins: the release is over. */
        uint64_t bit = (uint64_t)1 << i;
        if (s->counting ? !(s->seen & bit) : (s->last_release && !(s->last_seen & bit))) return;
        if (s->counting) {
            s->last_release = s->counting;
            s->last_seen = s->seen;
            s->counting = 0;
        }
        s->ev.kind = RL_WAKE_ACQUIRED;
        s->ev.waiters = 0;
        s->ev.cleanup = 0;
    }
}

/* SUBSCRIBE (or UNSUBSCRIBE) the key's channel, our group's and our shard's
 * (a fair waiter: its own channel instead of both) on node i,
 * opening its connection if needed; returns 0 when written or queued, -1
 * with the connection closed (never counted as subscribed: see
 * enough_confirmed) or never opened. */
static int sub_send_list(rl_subs *s, int i, int on, uint64_t now);
static int sub_send(rl_subs *s, int i, int on, uint64_t now)
{
    if (s->nlist) return sub_send_list(s, i, on, now);
    const char *argv[4] = {on ? "SUBSCRIBE" : "UNSUBSCRIBE", s->chan, s->chan, s->chan};
    size_t lens[4] = {on ? 9u : 11u, s->chanlen, s->chanlen + s->shardlen, s->chanlen + 2};
    return rlc_sub_send(s->net.conns[i], on, s->grouped ? 4 : 3, argv, lens, now, on_push, rl_wait_push_element, s);
}

/* a key list's: the three channels of every key in one command (its words
 * made here, copied into the connection's output buffer by rlc_sub_send) */
static int sub_send_list(rl_subs *s, int i, int on, uint64_t now)
{
    size_t pl = sizeof(RL_WAKE_CHANNEL) - 1, cap = (size_t)s->nlist * (pl + 3) + s->listlen;
    const char *argv[1 + 3 * RL_MAX_LIST];
    size_t lens[1 + 3 * RL_MAX_LIST];
    char *buf = malloc(cap), *o = buf;
    if (!buf) return -1;
    argv[0] = on ? "SUBSCRIBE" : "UNSUBSCRIBE";
    lens[0] = on ? 9u : 11u;
    const char *k;
    size_t pos = 1, kl;
    for (int n = 0; n < s->nlist && rl_list_next(s->list, s->listlen, &pos, &k, &kl); n++) {
        memcpy(o, RL_WAKE_CHANNEL, pl);
        memcpy(o + pl, k, kl);
        o[pl + kl] = '\0';
        o[pl + kl + 1] = s->shard[0];
        o[pl + kl + 2] = s->shard[1];
        argv[1 + 3 * n] = argv[2 + 3 * n] = argv[3 + 3 * n] = o;
        lens[1 + 3 * n] = pl + kl;
        lens[2 + 3 * n] = pl + kl + 2;
        lens[3 + 3 * n] = pl + kl + 3;
        o += pl + kl + 3;
    }
    int r = rlc_sub_send(s->net.conns[i], on, 1 + 3 * s->nlist, argv, lens, now, on_push, rl_wait_push_element, s);
    free(buf);
    return r;
}

/* the confirmations a SUBSCRIBE of this wait expects */
static unsigned char confirmations(const rl_subs *s)
{
    return (unsigned char)(s->nlist ? 3 * s->nlist : s->grouped ? 3 : 2);
}

/* nodes that dropped out (restart, down) are subscribed again once their back-off is over */
static void resubscribe(rl_subs *s, uint64_t now)
{
    for (int i = 0; i < s->net.n; i++) {
        rl_conn *c = s->net.conns[i];
        if (!s->wanted[i] || rlc_live(c)) continue;
        s->pending[i] = sub_send(s, i, 1, now) == 0 ? confirmations(s) : 0;
    }
}

static int w_subscribe(void *ctx, const char *key, size_t keylen, int shard, const char *fid)
{
    rl_subs *s = ctx;
    uint64_t now = s->net.clock->now_us(s->net.clock->ctx);
    size_t pl = sizeof(RL_WAKE_CHANNEL) - 1;
    s->nlist = 0;
    rl_wake_shard_name(shard < 0 ? 0 : shard, s->shard);
    if (rl_key_is_list(key, keylen)) {
        /* every key's three channels, hashed as a pushed channel is */
        const char *k;
        size_t pos = 1, kl;
        char z3[3] = {'\0', s->shard[0], s->shard[1]};
        while (s->nlist < RL_MAX_LIST && rl_list_next(key, keylen, &pos, &k, &kl)) {
            uint64_t h = rl_hash(rl_hash(RL_HASH_INIT, RL_WAKE_CHANNEL, pl), k, kl);
            s->list_hash[3 * s->nlist] = h;
            s->list_hash[3 * s->nlist + 1] = rl_hash(h, z3, 2);
            s->list_hash[3 * s->nlist + 2] = rl_hash(h, z3, 3);
            s->nlist++;
        }
        s->list = key;
        s->listlen = keylen;
        keylen = 0; /* (chan: unused) */
    }
    if (keylen > RL_MAX_KEY) return -1;
    memcpy(s->chan, RL_WAKE_CHANNEL, pl);
    memcpy(s->chan + pl, key, keylen);
    s->chanlen = pl + keylen;
    s->chan[s->chanlen] = '\0'; /* no resource has a NUL: no key's channel is a shard's */
    s->chan[s->chanlen + 1] = s->shard[0];
    s->chan[s->chanlen + 2] = s->shard[1];
    s->shardlen = 3;
    s->grouped = 1;
    if (fid && !s->nlist) {
        /* a fair waiter's own channel (rl_script_release wakes the queue's first) */
        s->chan[s->chanlen + 1] = 'q';
        memcpy(s->chan + s->chanlen + 2, fid, RL_FAIR_ID_LEN);
        s->shardlen = 2 + RL_FAIR_ID_LEN;
        s->grouped = 0;
    }
    s->chan_hash = rl_hash(RL_HASH_INIT, s->chan, s->chanlen);
    s->group_hash = rl_hash(RL_HASH_INIT, s->chan, s->chanlen + 2);
    s->shard_hash = rl_hash(RL_HASH_INIT, s->chan, s->chanlen + s->shardlen);
    s->ev.kind = RL_WAKE_TIMER;
    s->last_release = 0;
    s->last_seen = 0;
    s->counting = 0;
    s->on = 1;
    int any = 0;
    for (int i = 0; i < s->net.n; i++) {
        rl_conn *c = s->net.conns[i];
        /* an idle connection kept from an earlier request: drop it if the server closed it */
        rlc_check_idle(c);
        s->wanted[i] = 1;
        s->pending[i] = sub_send(s, i, 1, now) == 0 ? confirmations(s) : 0;
        any |= s->pending[i] != 0;
    }
    if (!any) s->on = 0;
    return any ? 0 : -1;
}

/* Confirmed on a quorum of nodes is enough to wait: a release that frees
 * the lock deletes the key on a quorum, which meets ours in at least one
 * node, whose message then reaches us. A hung node costs no wait. */
static int enough_confirmed(void *ud)
{
    rl_subs *s = ud;
    int ok = 0, waiting = 0;
    for (int i = 0; i < s->net.n; i++) {
        if (!rl_conn_is_open(s->net.conns[i])) continue;
        if (s->pending[i])
            waiting++;
        else if (s->wanted[i])
            ok++;
    }
    return waiting == 0 || ok >= rl_quorum(s->net.n);
}

static void w_ready(void *ctx, uint64_t until_us)
{
    rl_subs *s = ctx;
    /* a node that does not confirm within its own timeout is left to the timer */
    uint64_t now = s->net.clock->now_us(s->net.clock->ctx), cap = now;
    for (int i = 0; i < s->net.n; i++) {
        const rl_node_conf *cf = rl_conn_conf(s->net.conns[i]);
        uint64_t t = now + (uint64_t)(cf->connect_timeout_ms + cf->timeout_ms) * 1000u;
        if (t > cap) cap = t;
    }
    rl_net_listen(&s->net, until_us < cap ? until_us : cap, enough_confirmed, s);
}

/* an event, or a release begun to be counted during this listen: then
 * its grace (RL_WAKE_GRACE_US) must bound the wait, not the retry timer
 * (releases of two owners interleaved, or a node's message lost, leave a
 * count short of a quorum; a fair waiter is the only one told) */
static int has_event(void *ud)
{
    const rl_subs *s = ud;
    return s->ev.kind != RL_WAKE_TIMER || (s->counting && s->counting != s->listen_counting);
}

static int w_wait(void *ctx, uint64_t until_us, rl_wake *ev)
{
    rl_subs *s = ctx;
    const rl_clock *clk = s->net.clock;
    s->ev.kind = RL_WAKE_TIMER;
    resubscribe(s, clk->now_us(clk->ctx));
    for (;;) {
        uint64_t now = clk->now_us(clk->ctx);
        if (now >= until_us) break;
        /* a node down is tried again when its back-off ends, not only at the timer */
        uint64_t until = until_us;
        for (int i = 0; i < s->net.n; i++) {
            rl_conn *c = s->net.conns[i];
            uint64_t at = rlc_retry_at(c);
            if (s->wanted[i] && at > now && at < until) until = at;
        }
        if (s->counting && s->seen_first_us + RL_WAKE_GRACE_US < until) until = s->seen_first_us + RL_WAKE_GRACE_US;
        s->listen_counting = s->counting;
        rl_net_listen(&s->net, until, has_event, s);
        if (s->ev.kind == RL_WAKE_TIMER) release_grace(s, clk->now_us(clk->ctx));
        if (s->ev.kind != RL_WAKE_TIMER) break;
        if (until < until_us) resubscribe(s, clk->now_us(clk->ctx));
    }
    *ev = s->ev;
    s->ev.kind = RL_WAKE_TIMER;
    return ev->kind;
}

static int w_latest(void *ctx, rl_wake *ev)
{
    rl_subs *s = ctx;
    uint64_t now = s->net.clock->now_us(s->net.clock->ctx);
    rl_net_listen(&s->net, now, NULL, NULL); /* one pass, no wait: every message already here */
    if (s->ev.kind == RL_WAKE_TIMER) release_grace(s, now);
    *ev = s->ev;
    s->ev.kind = RL_WAKE_TIMER;
    return ev->kind;
}

static void w_unsubscribe(void *ctx)
{
    rl_subs *s = ctx;
    uint64_t now = s->net.clock->now_us(s->net.clock->ctx);
    for (int i = 0; i < s->net.n; i++) {
        rl_conn *c = s->net.conns[i];
        if (rlc_live(c) && s->wanted[i]) {
            /* not awaited: its reply, and messages sent before it, are read
             * (and dropped) at the next wait or request end */
            if (sub_send(s, i, 0, now) != 0) rl_conn_close(c);
        }
        s->wanted[i] = s->pending[i] = 0;
        rlc_unhook(c, s);
    }
    s->on = 0;
}

void rl_subs_init(rl_subs *s, rl_conn **conns, int n, const rl_clock *clock, rl_waiter *w)
{
    memset(s, 0, sizeof(*s));
    s->net.conns = conns;
    s->net.n = n;
    s->net.clock = clock;
    *w = (rl_waiter){.subscribe = w_subscribe,
                     .ready = w_ready,
                     .wait = w_wait,
                     .latest = w_latest,
                     .unsubscribe = w_unsubscribe,
                     .ctx = s};
}
