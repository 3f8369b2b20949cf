/* rl_resp.c -- RESP encoding of a command (the replies are parsed by hiredis's reader in rl_read.c). */
#include "rl_internal.h"

#include <string.h>

size_t rl_put_uint(char *p, uint64_t n)
{
    if (n < 10) { /* most lengths and counts of a command */
        p[0] = (char)('0' + n);
        return 1;
    }
    if (n < 100) {
        p[0] = (char)('0' + n / 10);
        p[1] = (char)('0' + n % 10);
        return 2;
    }
    char tmp[24];
    size_t l = 0;
    do {
        tmp[l++] = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    for (size_t i = 0; i < l; i++) p[i] = tmp[l - 1 - i];
    return l;
}

static size_t num_len(size_t n)
{
    size_t l = 1;
    while (n >= 10) {
        n /= 10;
        l++;
    }
    return l;
}

size_t rl_resp_format(char *buf, size_t cap, int argc, const char *const *argv, const size_t *argvlen)
{
    size_t need = 1 + num_len((size_t)argc) + 2;
    for (int i = 0; i < argc; i++) need += 1 + num_len(argvlen[i]) + 2 + argvlen[i] + 2;
    if (need > cap) return need;
    char *p = buf;
    *p++ = '*';
    p += rl_put_uint(p, (size_t)argc);
    *p++ = '\r';
    *p++ = '\n';
    for (int i = 0; i < argc; i++) {
        *p++ = '$';
        p += rl_put_uint(p, argvlen[i]);
        *p++ = '\r';
        *p++ = '\n';
        if (argvlen[i]) memcpy(p, argv[i], argvlen[i]);
        p += argvlen[i];
        *p++ = '\r';
        *p++ = '\n';
    }
    return need;
}
