/* rl_conn.h -- what the core outside net/ calls of a connection beyond rl.h's
 * rl_conn_*: the watchdog's, what a connection hands over to another of the
 * same node in another thread (rl_conn.c; the address it resolves for a node
 * of its own is rl_internal.h's rlc_resolve_addr, net/rl_uri.c). The rest of
 * net/'s API is net/'s own: rl_net_internal.h (the states, the reply kinds,
 * one fan-out call, the session layer, the calls between net/'s files),
 * struct rl_conn in rl_conn_struct.h, the calls only the white-box tests
 * make in rl_conn_test.h. */
#ifndef RL_CONN_H
#define RL_CONN_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rl_internal.h"

#include <sys/socket.h>
#include <sys/types.h>

/* What a connection hands over to another one of the same node made in
 * another thread (the watchdog's): the address it resolved, so that the
 * other never looks the name up, and the run_id of the server it last knew,
 * so that the other tells a restart since from a node never seen. */
typedef struct rl_conn_handoff {
    struct sockaddr_storage addr;
    socklen_t addrlen; /* 0: none */
    char run_id[41];   /* "": none */
} rl_conn_handoff;
/* from c into h (in c's thread); h's address is left as it was when c has none */
void rlc_handoff_get(const rl_conn *c, rl_conn_handoff *h);
/* what c lacks, from h: an address when it has none, a run_id when it knew none */
void rlc_handoff_take(rl_conn *c, const rl_conn_handoff *h);
/* the newer of two handoffs into into: h's run_id when it has one, its address when into has none */
void rlc_handoff_merge(rl_conn_handoff *into, const rl_conn_handoff *h);
/* a connection of the watchdog's thread: it never looks a name up, and its
 * conf is read by other threads under the watchdog's lock */
void rlc_mark_watchdog(rl_conn *c);

#endif
