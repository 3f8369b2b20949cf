/* rl_conn_test.h -- net/'s calls that no other file of the core makes, only
 * the white-box tests and fuzzers (redlock_core/tests, fuzz: with
 * rl_conn_struct.h): the reply parser fed with bytes, the clock-step check fed
 * with a sample, a subscriber's element decoder. The files that define them
 * include it too, so that their definitions are checked against it. */
#ifndef RL_CONN_TEST_H
#define RL_CONN_TEST_H
#include "rl_net_internal.h"

/* The reply parser, fed with bytes: a pure function of what the node sent.
 * rlc_feed appends bytes; rlc_next_reply parses one reply into c->slot:
 * 1 a reply, 0 none complete yet, -1 protocol error (c->reader->errstr). */
int rlc_feed(rl_conn *c, const char *buf, size_t len);
int rlc_next_reply(rl_conn *c);
/* The reply at buf when it is a whole status (+...) or integer (:digits)
 * line and nothing is half-read: taken into c->slot as rlc_next_reply would
 * (the bytes it used), else 0 and the bytes are hiredis's (rlc_feed). Not
 * on a subscriber connection. */
size_t rlc_take_simple(rl_conn *c, const char *buf, size_t len);
/* One sample of the server's wall clock (server_us, asked at sent_us, read
 * at now): a forward step by more than the drift since the last sample marks
 * c->ident (step_at_us, step_ms). */
void rlc_clock_sample(rl_conn *c, int64_t server_us, uint64_t sent_us, uint64_t now);
/* rl_wait.c's decoder of a subscriber's pub/sub array (rl_push_decode_fn) */
void rl_wait_push_element(rl_push *p, int idx, const char *s, size_t len);

#endif
