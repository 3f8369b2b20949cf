/* ports.h -- a free loopback TCP port for a test redis-server, outside the
 * kernel's ephemeral range: a node restarted on its port must not find it
 * taken meanwhile as the source port of some client connection (the same
 * rule as tests/nodes.sh); and a connection to such a server. */
#ifndef RL_TEST_PORTS_H
#define RL_TEST_PORTS_H

#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port_is_free(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    if (fd < 0) return 0;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    int ok = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
    close(fd);
    return ok;
}

static int free_port(void)
{
    int lo = 32768, hi = 60999, min = 20000, max = 60000;
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (f) {
        if (fscanf(f, "%d %d", &lo, &hi) != 2) lo = 32768, hi = 60999;
        fclose(f);
    }
    if (lo - 1 - min >= 1000) {
        if (max >= lo) max = lo - 1;
    } else if (65000 - hi >= 1000) {
        min = hi + 1, max = 65000;
    }
    static unsigned seed;
    if (!seed) seed = (unsigned)getpid() ^ (unsigned)time(NULL);
    for (int tries = 0; tries < 200; tries++) {
        int p = min + (int)(rand_r(&seed) % (unsigned)(max - min + 1));
        if (port_is_free(p)) return p;
    }
    return -1;
}

/* A blocking hiredis connection to a test server on 127.0.0.1:port, 1 s
 * timeouts; NULL when it does not answer. */
static redisContext *loopback_connect(int port)
{
    struct timeval tv = {1, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
    if (!c || c->err) {
        if (c) redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, tv);
    return c;
}

#endif
