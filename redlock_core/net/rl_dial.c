/* rl_dial.c -- dialing a node: its address (resolved once: rl_uri.c's
 * rlc_resolve_addr), the socket and its non-blocking connect with the TCP
 * options, the reader (rl_read.c's) and what is queued ahead of the first
 * command (AUTH/SELECT gate, INFO identity, SCRIPT LOAD), a probe's PING gate
 * and the releases replayed behind it, when a connection is unreachable
 * (rlc_unreachable; giving it up is rl_conn.c's rlc_abandon), a stale connect
 * dialed again. A failure is recorded by rl_conn.c. Above rl_conn.c and
 * rl_read.c; nothing below calls it. */
#include "rl_conn_struct.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rlc_queue_replay(rl_conn *c, uint64_t now);

static int rlc_resolve(rl_conn *c, char *why, size_t whylen)
{
    if (c->addrlen) return 0;
    return rlc_resolve_addr(&c->conf, !c->no_dns, &c->addr, &c->addrlen, why, whylen);
}

/* Pipelined ahead of the first command: costs no extra round trip. */
static int rlc_queue_handshake(rl_conn *c, uint64_t now, int ident)
{
    char db[16];
    if (c->conf.password) {
        const char *argv[3] = {"AUTH", c->conf.user, c->conf.password};
        size_t lens[3] = {4, c->conf.user ? strlen(c->conf.user) : 0, strlen(c->conf.password)};
        int argc = 3;
        if (!c->conf.user) {
            argv[1] = c->conf.password;
            lens[1] = lens[2];
            argc = 2;
        }
        int rc = rlc_append_secret_cmd(c, argc, argv, lens, now);
        c->secret_end = c->olen; /* the first command: obuf[0, olen) */
        if (rc) return -1;
    }
    if (c->conf.database) {
        int n = snprintf(db, sizeof(db), "%d", c->conf.database);
        const char *argv[2] = {"SELECT", db};
        size_t lens[2] = {6, (size_t)n};
        if (rlc_append_cmd(c, 2, argv, lens, EXP_SELECT, RL_OP_OTHER, 0, now)) return -1;
    }
    if (c->sub) return 0; /* a subscriber runs no script and counts no vote */
    if (ident) {
        /* docs/api.md "Nodes": one server must not count twice toward the quorum
         * (a name and its address, TCP and the unix socket of one server);
         * its run_id tells, before any of our replies from it is counted */
        const char *argv[2] = {"INFO", "server"};
        size_t lens[2] = {4, 6};
        if (rlc_append_cmd(c, 2, argv, lens, EXP_IDENT, RL_OP_OTHER, 0, now)) return -1;
        /* docs/api.md "Restarted nodes": run_id and uptime above, aof_enabled
         * here; two commands, not "INFO server persistence" (a server before
         * 7.0 takes one section per INFO) */
        const char *argv2[2] = {"INFO", "persistence"};
        size_t lens2[2] = {4, 11};
        if (rlc_append_cmd(c, 2, argv2, lens2, EXP_IDENT_AOF, RL_OP_OTHER, 0, now)) return -1;
        rl_info_init(&c->ninfo);
        c->info_refused = 0;
        c->ident_pending = 2;
    }
    return rlc_queue_scripts(c, now);
}

/* TCP options of every connection. Keepalive: an idle connection to a host
 * that vanished is noticed (nothing of ours is on it). TCP_USER_TIMEOUT:
 * data nobody ACKs is given up by the kernel after that long; both end in
 * ETIMEDOUT, which the fan-out treats like rlc_abandon (the releases owed are
 * kept). A silent partition is normally noticed much earlier, by a call
 * (rlc_unreachable). Best effort: a kernel without one of them still works. */
static void rlc_set_tcp_opts(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
#ifdef TCP_KEEPIDLE
    int idle = KEEPALIVE_IDLE_S, intvl = KEEPALIVE_INTVL_S, cnt = KEEPALIVE_CNT;
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
#endif
#ifdef TCP_USER_TIMEOUT
    unsigned int ut = USER_TIMEOUT_MS;
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, sizeof(ut));
#endif
}

/* A new socket and its non-blocking connect, into c->fd and c->state.
 * Returns 0 (connecting or connected), -1 when the connect failed (why and
 * *err set), -2 when there was no socket to try (why set); no socket is left
 * on failure. */
static int rlc_dial(rl_conn *c, uint64_t now, char *why, size_t whylen, int *err)
{
    int fd = socket(c->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, whylen, "socket: %s", strerror(errno));
        *err = RL_E_IO;
        return -2;
    }
    if (connect(fd, (struct sockaddr *)&c->addr, c->addrlen) == 0) {
        /* connected at once (a unix socket): a TLS handshake still runs on the first poll */
        c->state = c->conf.tls ? ST_HANDSHAKE : ST_READY;
        c->io_want = POLLOUT;
    } else if (errno == EINPROGRESS || errno == EAGAIN) {
        c->state = ST_CONNECTING;
    } else {
        int e = errno;
        snprintf(why, whylen, "connect: %s", strerror(e));
        *err = e == ECONNREFUSED || e == ENOENT ? RL_E_REFUSED : RL_E_IO;
        close(fd);
        return -1;
    }
    if (c->addr.ss_family != AF_UNIX) rlc_set_tcp_opts(fd);
    c->fd = fd;
    c->gen = rl_fork_generation();
    c->dialed_us = now;
    c->deadline_us = now + (uint64_t)c->conf.connect_timeout_ms * 1000u;
    return 0;
}

/* Start a non-blocking connect. Returns 0 (connecting or ready) or -1 with r failed. */
int rlc_conn_open(rl_conn *c, rl_result *r, uint64_t now, int ident)
{
    char why[RL_REASON_LEN];
    int err = RL_E_IO;
    if (rlc_resolve(c, why, sizeof(why)) != 0) {
        rlc_node_failed(c, r, RL_E_RESOLVE, why, now, 1);
        return -1;
    }
    if (rlc_reader_new(c) != 0) {
        rlc_fail_res(c, r, RL_E_NOMEM, NULL);
        return -1;
    }
    rlc_obuf_reset(c);
    c->qhead = c->qlen = 0;
    c->owed_n = 0;
#ifndef RL_HAVE_TLS
    if (c->conf.tls) {
        rlc_fail_res(c, r, RL_E_IO, "TLS is not available in this build");
        rl_conn_close(c);
        return -1;
    }
#endif
    int d = rlc_dial(c, now, why, sizeof(why), &err);
    if (d != 0) {
        rl_conn_close(c);
        rlc_node_failed(c, r, err, why, now, d == -1); /* (no socket: nothing says the node is down) */
        return -1;
    }
    c->st.connects++;
#ifdef RL_HAVE_TLS
    c->io = c->conf.tls ? &rl_io_tls : &rl_io_plain;
#else
    c->io = &rl_io_plain;
#endif
    if (rlc_queue_handshake(c, now, ident) != 0 || (c->probing && rlc_queue_replay(c, now) != 0)) {
        rlc_fail_res(c, r, RL_E_NOMEM, NULL);
        rl_conn_close(c);
        return -1;
    }
    return 0;
}

/* A connection that replaces one given up as unreachable: a PING gate after
 * the handshake, and behind it the releases the node owes (rl_conn.owe), in
 * the order they were first sent. Nothing behind the gate is written before
 * the server has answered the PING on this connection, begun after the old
 * one was reset: see HACKING.md "Partitions". */
static int rlc_queue_replay(rl_conn *c, uint64_t now)
{
    const char *argv[1] = {"PING"};
    size_t lens[1] = {4};
    if (rlc_append_cmd(c, 1, argv, lens, EXP_GATE, RL_OP_RELEASE, 0, now) != 0) return -1;
    size_t off = 0;
    for (int k = 0; k < c->owe_n; k++) {
        size_t sz = c->owe_sz[k];
        if (rlc_obuf_append_raw(c, c->owe + off, sz, OBUF_MAX) != 0 ||
            rlc_q_push(c, EXP_SKIP, RL_OP_RELEASE, 0, now) != 0)
            return -1;
        c->q[(c->qhead + c->qlen - 1) % QMAX].copied = 1; /* (its copy is already kept) */
        off += sz;
    }
    return 0;
}

int rlc_probe_ms(const rl_conn *c)
{
    int ms = c->conf.timeout_ms > PROBE_MIN_MS ? c->conf.timeout_ms : PROBE_MIN_MS;
    return c->conf.connect_timeout_ms < ms ? c->conf.connect_timeout_ms : ms;
}

int rlc_unreachable(const rl_conn *c)
{
    if (c->fd < 0 || c->sub || c->state != ST_READY || c->addr.ss_family == AF_UNIX) return 0;
#ifdef TCP_INFO
    struct tcp_info ti;
    socklen_t len = sizeof(ti);
    memset(&ti, 0, sizeof(ti));
    if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) return 0;
    /* Not a paused or slow server: its kernel still ACKs what we send (a
     * full receive window is probed, and those probes are ACKed). Here ours
     * retransmits data nobody acknowledged for a second or more. */
    return ti.tcpi_unacked > 0 && ti.tcpi_retransmits > 0 && ti.tcpi_last_ack_recv >= UNREACH_ACK_MS;
#else
    return 0;
#endif
}

/* A connect begun by an earlier call failed: that is old news (the server
 * may have come back since). Nothing was written on it, so its buffered
 * commands (its handshake, a queued release) go out on a new connect, begun
 * now. Returns 0, or -1 with why (the connection is then closed). */
int rlc_redial(rl_conn *c, uint64_t now, char *why, size_t whylen, int *err)
{
    if (c->fd < 0 || c->state != ST_CONNECTING || c->opos != 0) return -1;
    close(c->fd);
    c->fd = -1;
    if (rlc_dial(c, now, why, whylen, err) == 0) {
        c->st.connects++;
        return 0;
    }
    rl_conn_close(c);
    return -1;
}
