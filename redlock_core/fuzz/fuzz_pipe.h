/* fuzz_pipe.h -- what the fuzz targets with a server thread (fuzz_reply,
 * fuzz_nodes) share: one byte over a pipe between the main thread and it.
 * libFuzzer's -timeout timer (SIGALRM) interrupts calls: EINTR is retried. */
#ifndef FUZZ_PIPE_H
#define FUZZ_PIPE_H
#include <errno.h>
#include <unistd.h>

static int put1(int fd, char c)
{
    for (;;) {
        ssize_t r = write(fd, &c, 1);
        if (r == 1) return 0;
        if (r < 0 && errno == EINTR) continue;
        return -1;
    }
}

static int get1(int fd, char *c)
{
    for (;;) {
        ssize_t r = read(fd, c, 1);
        if (r == 1) return 0;
        if (r < 0 && errno == EINTR) continue;
        return -1;
    }
}
#endif
