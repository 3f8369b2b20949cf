/* rl_sub.c -- a subscriber connection (rl_wait.c's): (UN)SUBSCRIBE written or
 * queued behind its connect, the hook its pushes go to, whether it is live. Its
 * replies are read by rl_read.c (EXP_SUB/EXP_UNSUB, messages) in
 * rl_net_listen's loop (rl_fanout.c). */
#include "rl_conn_struct.h"

#include <string.h>

rl_conn *rl_conn_new_subscriber(const rl_node_conf *conf)
{
    rl_conn *c = rl_conn_new(conf);
    if (c) c->sub = 1;
    return c;
}

int rlc_sub_send(rl_conn *c, int on, int argc, const char *const *argv, const size_t *lens, uint64_t now,
                 void (*hook)(void *ud, rl_conn *c), rl_push_decode_fn decode, void *ud)
{
    char why[RL_REASON_LEN];
    if (rlc_inherited(c)) rl_conn_close(c); /* inherited: the parent's */
    if (c->fd >= 0 && connecting(c) && on && now >= c->deadline_us) {
        /* begun by an earlier wait that did not need it (uncontended) and
         * not looked at since: the connect has most likely completed; it
         * gets a fresh deadline from now, when someone waits on it */
        c->deadline_us = now + (uint64_t)c->conf.connect_timeout_ms * 1000u;
    }
    if (c->fd < 0) {
        rl_result r;
        if (!on || now < c->down_until_us) return -1;
        memset(&r, 0, sizeof(r));
        if (rlc_conn_open(c, &r, now, 0) != 0) return -1;
    }
    /* RESP2: one confirmation per channel. No room (a node hung behind many
     * waits): closed, so that it is not counted as subscribed while its
     * connection stays open (a subscriber's connection holds nothing that
     * must still run); subscribed afresh once it can be. */
    if (rlc_append_cmd(c, argc, argv, lens, on ? EXP_SUB : EXP_UNSUB, RL_OP_OTHER, 0, now) != 0) {
        rl_conn_close(c);
        return -1;
    }
    for (int k = 2; k < argc; k++) {
        if (rlc_q_push(c, on ? EXP_SUB : EXP_UNSUB, RL_OP_OTHER, 0, now) != 0) {
            rl_conn_close(c); /* a command whose other replies have no place: start afresh */
            return -1;
        }
    }
    c->on_push = hook;
    c->push_decode = decode;
    c->push_ud = ud;
    if (c->state == ST_READY && rlc_flush_out(c, why, sizeof(why)) != 0) {
        rl_conn_close(c); /* the server ended it: nothing of a subscription is lost */
        return -1;
    }
    return 0;
}

const rl_push *rlc_push(const rl_conn *c) { return &c->push; }

int rlc_live(const rl_conn *c) { return c->fd >= 0 && c->gen == rl_fork_generation(); }

uint64_t rlc_retry_at(const rl_conn *c) { return c->fd < 0 ? c->down_until_us : 0; }

void rlc_check_idle(rl_conn *c)
{
    if (c->fd >= 0 && c->qlen == 0) rl_conn_check(c);
}

void rlc_unhook(rl_conn *c, void *ud)
{
    if (c->push_ud != ud) return;
    c->on_push = NULL;
    c->push_ud = NULL;
}
