/* fuzz_uri.c -- libFuzzer target: rl_uri_parse on arbitrary bytes.
 *
 * Invariants checked on every input:
 *  - success: exactly one of host / socket is set; a host has a port in
 *    1..65535 and at most 255 bytes; a socket is absolute, port 0; the
 *    database is 0..1000000; strings are NUL-terminated C strings; a
 *    password is never empty; the timeouts are left as they were;
 *  - failure: the conf is untouched, the error is a non-empty terminated
 *    string that never contains the password part of the input;
 *  - nothing leaks (LeakSanitizer), nothing overflows (ASan/UBSan). */
#include "rl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAIL_IF(c)          \
    do {                    \
        if (c) __builtin_trap(); \
    } while (0)

/* Characters no error message is made of: a password holding one of them
 * can only show up in the error by being copied there. */
static int unusual(unsigned char c)
{
    return c < 0x20 || c >= 0x7f || c == '!' || c == '$' || c == '*' || c == '{' || c == '}' || c == '~' ||
           c == '^' || c == '|' || c == '`' || c == '<' || c == '>' || c == '=' || c == ';' || c == '\\' ||
           c == '\'' || c == '"';
}

/* The bytes between the user's ':' and the last '@' of redis[s]:// URIs. */
static int password_part(const char *s, size_t n, const char **pw, size_t *pwlen)
{
    size_t off;
    if (n >= 8 && memcmp(s, "redis://", 8) == 0)
        off = 8;
    else if (n >= 9 && memcmp(s, "rediss://", 9) == 0)
        off = 9;
    else
        return 0;
    const char *at = NULL;
    for (size_t i = off; i < n; i++)
        if (s[i] == '@') at = s + i;
    if (!at) return 0;
    const char *colon = memchr(s + off, ':', (size_t)(at - (s + off)));
    if (!colon) return 0;
    *pw = colon + 1;
    *pwlen = (size_t)(at - colon - 1);
    return 1;
}

static int contains_bytes(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
    if (nlen == 0 || nlen > hlen) return 0;
    for (size_t i = 0; i + nlen <= hlen; i++)
        if (memcmp(hay + i, needle, nlen) == 0) return 1;
    return 0;
}

static int has_unusual(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (unusual((unsigned char)p[i])) return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exact-size heap copy: ASan sees any read past the given length */
    char *uri = malloc(size ? size : 1);
    if (!uri) return 0;
    if (size) memcpy(uri, data, size);

    rl_node_conf conf;
    memset(&conf, 0xa5, sizeof(conf));
    conf.connect_timeout_ms = 1234;
    conf.timeout_ms = 5678;
    rl_node_conf before = conf;
    char err[RL_REASON_LEN * 2];
    memset(err, 0x7f, sizeof(err));
    size_t errlen = RL_REASON_LEN; /* bytes past errlen must stay untouched */

    int rc = rl_uri_parse(uri, size, &conf, err, errlen);
    if (rc == 0) {
        FAIL_IF((conf.host == NULL) == (conf.socket == NULL));
        if (conf.host) {
            size_t hl = strlen(conf.host);
            FAIL_IF(hl == 0 || hl > 255);
            FAIL_IF(conf.port < 1 || conf.port > 65535);
        } else {
            FAIL_IF(conf.socket[0] != '/');
            FAIL_IF(strlen(conf.socket) > 107);
            FAIL_IF(conf.port != 0);
            FAIL_IF(conf.user || conf.password || conf.database);
        }
        FAIL_IF(conf.database < 0 || conf.database > 1000000);
        FAIL_IF(conf.tls != 0 && conf.tls != 1);
        FAIL_IF(conf.password && conf.password[0] == '\0');
        if (conf.user) (void)strlen(conf.user);
        FAIL_IF(conf.connect_timeout_ms != 1234 || conf.timeout_ms != 5678);
        /* the name never shows the password */
        char name[300];
        size_t nl = rl_node_conf_name(&conf, name, sizeof(name));
        FAIL_IF(nl >= sizeof(name) || strlen(name) != nl);
        if (conf.password && strlen(conf.password) >= 4 && has_unusual(conf.password, strlen(conf.password)))
            FAIL_IF(strstr(name, conf.password) != NULL);
        char tiny[5];
        nl = rl_node_conf_name(&conf, tiny, sizeof(tiny));
        FAIL_IF(nl >= sizeof(tiny) || strlen(tiny) != nl);
        rl_node_conf_free(&conf);
        FAIL_IF(conf.host || conf.socket || conf.user || conf.password);
    } else {
        FAIL_IF(rc != -1);
        FAIL_IF(memcmp(&conf, &before, sizeof(conf)) != 0);
        size_t el = strnlen(err, errlen);
        FAIL_IF(el == 0 || el >= errlen);
        for (size_t i = errlen; i < sizeof(err); i++) FAIL_IF(err[i] != 0x7f);
        const char *pw;
        size_t pwlen;
        if (password_part(uri, size, &pw, &pwlen) && pwlen >= 3 && has_unusual(pw, pwlen))
            FAIL_IF(contains_bytes(err, el, pw, pwlen));
        /* no error buffer at all is fine too */
        FAIL_IF(rl_uri_parse(uri, size, &conf, NULL, 0) != -1);
    }
    free(uri);
    return 0;
}
