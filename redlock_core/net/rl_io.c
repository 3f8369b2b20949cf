/* rl_io.c -- the plain I/O table: TCP or a unix socket, no session layer. */
#include "rl_net_internal.h"

#include <errno.h>
#include <sys/socket.h>

static int plain_connect(rl_sess *s, int fd, rl_node_conf *conf, int keep_secret, short *events, char *why,
                         size_t whylen)
{
    (void)s, (void)fd, (void)conf, (void)keep_secret, (void)events, (void)why, (void)whylen;
    return 1; /* nothing beyond the TCP connect */
}

static ssize_t plain_read(rl_sess *s, int fd, char *buf, size_t len)
{
    (void)s;
    return recv(fd, buf, len, MSG_DONTWAIT);
}

static ssize_t plain_write(rl_sess *s, int fd, const char *buf, size_t len)
{
    (void)s;
    return send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static int plain_peek(rl_sess *s, int fd)
{
    char b;
    (void)s;
    ssize_t r = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 1;
    return r > 0 ? 2 : 0;
}

static int plain_pending(const rl_sess *s)
{
    (void)s;
    return 0;
}

static void plain_nothing(rl_sess *s) { (void)s; }

const rl_io rl_io_plain = {
    .name = "tcp",
    .connect = plain_connect,
    .read = plain_read,
    .write = plain_write,
    .peek = plain_peek,
    .pending = plain_pending,
    .close = plain_nothing,
    .free = plain_nothing,
};
