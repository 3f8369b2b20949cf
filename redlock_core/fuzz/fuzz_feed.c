/* fuzz_feed.c -- libFuzzer target: the reply parser fed with bytes, no socket.
 *
 * rlc_feed/rlc_next_reply are what the fan-out calls after every read (TCP
 * or TLS alike): a pure function of the bytes a node sent. The input is cut
 * into chunks (sizes from its first bytes) to exercise replies split across
 * reads; the head of the expected-reply queue alternates between a command's
 * reply and the INFO replies a connection reads its server's run_id, uptime
 * and aof_enabled from (INFO server, INFO persistence) and the TIME reply of
 * the clock-step check; the INFO parser
 * (rl_info_parse) also takes the whole input at once; with
 * bit 1 of the second byte the connection is a subscriber, whose pub/sub
 * arrays are parsed into its push fields (kind, channel hash, payload number).
 *
 * Invariants: no crash/leak/UB; a parsed reply has a known type; its text is
 * NUL-terminated within the slot and never longer than the reply says; the
 * run_id, when taken, is 40 characters; INFO fields are -1 or in range (an
 * uptime below 10^18, aof_enabled 0/1); a reply taken apart ([answer, int,
 * int]) has naux 0, 1 or 2; the parser's buffer stays bounded by
 * what was fed; a push kind is known, a payload number is -1 or in
 * [0, 10^10), and a command connection never fills its push fields; the
 * fast path for simple replies (rlc_take_simple, as node_read_ex uses it)
 * agrees with hiredis on every stream (tests/reply_diff.h). */
#include "rl_conn_struct.h"
#include "rl_conn_test.h"
#include "tests/reply_diff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAIL_IF(c)               \
    do {                         \
        if (c) __builtin_trap(); \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    rl_node_conf conf;
    memset(&conf, 0, sizeof(conf));
    conf.socket = (char *)"/nonexistent";
    int sub = (data[1] & 2) != 0;
    rl_conn *c = sub ? rl_conn_new_subscriber(&conf) : rl_conn_new(&conf);
    if (!c) return 0;
    if (sub) c->push_decode = rl_wait_push_element; /* (as rlc_sub_send gives it) */
    c->ntime[0] = c->ntime[1] = -1;
    size_t chunk = 1 + data[0] % 64;
    int ident = data[1] & 1;
    data += 2;
    size = size - 2;
    for (int k = 0; k < 4; k++)
        rlc_q_push(c,
                   (unsigned char)(ident && k == 0   ? EXP_IDENT
                                   : ident && k == 1 ? EXP_IDENT_AOF
                                   : ident && k == 2 ? EXP_TIME
                                   : sub             ? EXP_SUB
                                                     : EXP_MINE),
                   0, 0, 0);
    rl_info info;
    rl_info_init(&info);
    rl_info_parse((const char *)data, size, &info);
    FAIL_IF(info.run_id[0] && strlen(info.run_id) != 40);
    FAIL_IF(info.uptime_s < -1 || info.uptime_s >= 1000000000000000000LL);
    FAIL_IF(info.aof < -1 || info.aof > 1);
    FAIL_IF(info.server_time_us < -1);
    size_t off = 0, replies = 0;
    while (off < size) {
        size_t n = size - off < chunk ? size - off : chunk;
        if (rlc_feed(c, (const char *)data + off, n) != 0) break;
        off += n;
        int r;
        while ((r = rlc_next_reply(c)) == 1) {
            const rl_reply *rp = &c->slot;
            FAIL_IF(rp->type < RL_REPLY_STATUS || rp->type > RL_REPLY_ARRAY);
            FAIL_IF(memchr(rp->str, '\0', sizeof(rp->str)) == NULL);
            if (rp->type == RL_REPLY_STATUS || rp->type == RL_REPLY_STRING || rp->type == RL_REPLY_ERROR)
                FAIL_IF(strlen(rp->str) > rp->len);
            FAIL_IF(c->push.kind < PUSH_NONE || c->push.kind > PUSH_REFUSED);
            FAIL_IF(c->push.number < -1 || c->push.number >= 10000000000LL);
            FAIL_IF(!sub && (c->push.kind != PUSH_NONE || c->push.chan != 0));
            FAIL_IF(rp->naux < 0 || rp->naux > 2);
            FAIL_IF(c->ninfo.aof < -1 || c->ninfo.aof > 1 || c->ninfo.uptime_s < -1);
            FAIL_IF(c->ntime[0] < -1 || c->ntime[1] < -1 || c->ntime[0] >= 1000000000000LL);
            qent e;
            if (c->qlen > 0) rlc_q_pop(c, &e);
            replies++;
        }
        if (r < 0) break;
        FAIL_IF(c->reader->len - c->reader->pos > off);
    }
    FAIL_IF(c->run_id[0] && strlen(c->run_id) != 40);
    (void)replies;
    rl_conn_free(c);
    /* the fan-out's fast path (+status, :integer straight from each read)
     * gives hiredis's replies in hiredis's order, whole or cut into reads */
    FAIL_IF(rd_agree((const char *)data, size, 0, NULL) == 0);
    FAIL_IF(rd_agree((const char *)data, size, chunk, NULL) == 0);
    return 0;
}
