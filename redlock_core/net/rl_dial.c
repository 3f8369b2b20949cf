/* rl_dial.c -- dialing a node: its address (resolved once), the socket and its
 * non-blocking connect with the TCP options, what is queued ahead of the first
 * command (AUTH/SELECT gate, INFO identity, SCRIPT LOAD), a probe's PING gate
 * and the releases replayed behind it, an unreachable connection given up
 * (rlc_abandon), a stale connect dialed again; and how a failure is recorded
 * (the call's result, the node's back-off). */
#include "rl_conn_struct.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/un.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rlc_queue_replay(rl_conn *c, uint64_t now);

void rlc_fail_res(rl_conn *c, rl_result *r, int err, const char *reason)
{
    r->state = RL_FAILED;
    r->err = err;
    snprintf(r->reason, sizeof(r->reason), "%s", reason ? reason : rl_err_name(err));
    if (err == RL_E_TIMEOUT)
        c->st.timeouts++;
    else
        c->st.errors++;
    if (err == RL_E_DOWN || err == RL_E_STALLED) c->st.skipped++;
    snprintf(c->st.last_error, sizeof(c->st.last_error), "%s", r->reason);
}

static void rlc_start_backoff(rl_conn *c, uint64_t now, int err, const char *why)
{
    /* a dead node must cost nothing on later calls: skip it for a while,
     * doubling up to a cap, and try again once the period is over */
    c->backoff_ms = c->backoff_ms ? c->backoff_ms * 2 : BACKOFF_MIN_MS;
    if (c->backoff_ms > BACKOFF_MAX_MS) c->backoff_ms = BACKOFF_MAX_MS;
    c->down_until_us = now + (uint64_t)c->backoff_ms * 1000u;
    c->down_err = err;
    snprintf(c->down_why, sizeof(c->down_why), "%s", why ? why : rl_err_name(err));
}

/* A node failure, recorded in one place for the paths that can take a node
 * down: the call's result when it is still pending (its reason, the node's
 * statistics and last error: rlc_fail_res) and, when the node itself failed
 * (down: a connect, a handshake or AUTH/SELECT that failed, a connection
 * timed out in its handshake), its back-off. r may be NULL: a connect that
 * no call waits for. */
void rlc_node_failed(rl_conn *c, rl_result *r, int err, const char *why, uint64_t now, int down)
{
    if (r && r->state == RL_PENDING) rlc_fail_res(c, r, err, why);
    if (down) rlc_start_backoff(c, now, err, why);
}

/* A node in back-off fails at once, with the reason it went down: an AUTH
 * refusal stays an authentication failure. */
void rlc_fail_down(rl_conn *c, rl_result *r)
{
    char why[RL_REASON_LEN];
    int err = c->down_err == RL_E_AUTH ? RL_E_AUTH : RL_E_DOWN;
    snprintf(why, sizeof(why), "down (back-off after: %.70s)", c->down_why[0] ? c->down_why : "failed connect");
    rlc_fail_res(c, r, err, why);
    if (err != RL_E_DOWN) c->st.skipped++;
}

int rlc_resolve_addr(const rl_node_conf *conf, int dns, struct sockaddr_storage *addr, socklen_t *addrlen, char *why,
                     size_t whylen)
{
    if (conf->socket) {
        struct sockaddr_un *un = (struct sockaddr_un *)addr;
        if (strlen(conf->socket) >= sizeof(un->sun_path)) {
            snprintf(why, whylen, "unix socket path too long");
            return -1;
        }
        un->sun_family = AF_UNIX;
        strcpy(un->sun_path, conf->socket);
        *addrlen = sizeof(*un);
        return 0;
    }
    struct sockaddr_in *v4 = (struct sockaddr_in *)addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)addr;
    if (inet_pton(AF_INET, conf->host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)conf->port);
        *addrlen = sizeof(*v4);
        return 0;
    }
    if (inet_pton(AF_INET6, conf->host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)conf->port);
        *addrlen = sizeof(*v6);
        return 0;
    }
    if (!dns) {
        snprintf(why, whylen, "cannot resolve host: no address handed over (not looked up here)");
        return -1;
    }
    /* a name: resolved once per connection object (blocking), then cached */
    struct addrinfo hints = {0}, *ai = NULL, *p;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_family = AF_UNSPEC;
    int rc = getaddrinfo(conf->host, NULL, &hints, &ai);
    if (rc != 0 || !ai) {
        snprintf(why, whylen, "cannot resolve host: %s", gai_strerror(rc));
        return -1;
    }
    for (p = ai; p; p = p->ai_next)
        if (p->ai_family == AF_INET) break;
    if (!p) p = ai;
    memcpy(addr, p->ai_addr, p->ai_addrlen);
    *addrlen = p->ai_addrlen;
    if (p->ai_family == AF_INET)
        v4->sin_port = htons((uint16_t)conf->port);
    else
        v6->sin6_port = htons((uint16_t)conf->port);
    freeaddrinfo(ai);
    return 0;
}

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

/* the spec's scripts are loaded once per connection; EVALSHA then
 * falls back to EVAL only if the server lost them (SCRIPT FLUSH, restart).
 * Every script is loaded, also those of lockAll() and semaphore(): a
 * command not waited for (a failed attempt's cleanup, a permit's trim) is
 * retried after NOSCRIPT as the same EVALSHA once these are loaded again
 * (rlc_late_script_reply), so a script missing here would be lost there. */
int rlc_queue_scripts(rl_conn *c, uint64_t now)
{
    for (size_t k = 0; k < RL_SCRIPTS_N; k++) {
        const char *argv[3] = {"SCRIPT", "LOAD", rl_scripts[k].text};
        size_t lens[3] = {6, 4, rl_scripts[k].len};
        /* (marked as releases: room is always kept for them, like for a release) */
        if (rlc_append_cmd(c, 3, argv, lens, EXP_SCRIPT, RL_OP_RELEASE, 0, now)) return -1;
    }
    return 0;
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

/* Why a reset, and why the releases kept here cannot be overtaken by what
 * the old connection held (HACKING.md "Partitions"):
 * - close() with SO_LINGER 0 drops our kernel's send queue and sends a RST:
 *   nothing unacknowledged is ever sent again. What the server's kernel had
 *   received before ran, or runs, before anything of a later connection can
 *   arrive: the replacement's releases wait behind a PING answered on it, a
 *   round trip begun after the reset (and a partition long enough to be
 *   noticed dropped what was in flight).
 * - So a SET still in the old queue either ran before the release we send
 *   again, or never runs; a release owed for it (sent on the old connection
 *   or not yet) goes out again on the new one. Releases are token-checked:
 *   sending one twice, or one whose SET never ran, deletes nothing of
 *   anyone else's, so mutual exclusion does not depend on any of this; an
 *   overtaken release would only leave our key until its TTL. */
void rlc_abandon(rl_conn *c, uint64_t now)
{
    if (c->fd >= 0 && c->gen == rl_fork_generation()) {
        struct linger lg = {1, 0};
        setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    }
    c->probing = c->gen == rl_fork_generation();
    c->abandoned_us = now;
    c->probe_next_us = now;
    rl_conn_close(c); /* keeps owe (probing) */
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
