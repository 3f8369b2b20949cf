/* rl_keys.c -- a call's key: one resource, or a key list (docs/api.md "Several resources") whose first entry
 * empty makes it a read lock's (rl_key_is_shared); the list's encoding. */
#include "rl_internal.h"

#include <string.h>

int rl_key_is_list(const char *key, size_t keylen) { return keylen > 0 && key[0] == '\0'; }

int rl_key_is_shared(const char *key, size_t keylen)
{
    return keylen >= 3 && key[0] == '\0' && key[1] == '\0' && key[2] == '\0';
}

int rl_list_next(const char *list, size_t len, size_t *pos, const char **k, size_t *kl)
{
    for (;;) {
        if (*pos + 2 > len) return 0;
        size_t l = (size_t)(unsigned char)list[*pos] << 8 | (unsigned char)list[*pos + 1];
        if (*pos + 2 + l > len) return 0;
        *k = list + *pos + 2;
        *kl = l;
        *pos += 2 + l;
        if (l > 0) return 1; /* (an empty entry: a read lock's mark) */
    }
}

int rl_list_add(char *buf, size_t cap, size_t *len, const char *key, size_t keylen)
{
    size_t at = *len ? *len : 1;
    if (keylen > RL_LIST_KEY_MAX || at + 2 + keylen > cap) return -1;
    buf[0] = '\0';
    buf[at] = (char)(keylen >> 8);
    buf[at + 1] = (char)(keylen & 255);
    memcpy(buf + at + 2, key, keylen);
    *len = at + 2 + keylen;
    return 0;
}
