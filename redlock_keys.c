/* redlock_keys.c -- from a call's arguments to the keys it asks the nodes about: the checks of $resource and $ttl,
 * prefix . resource, a read lock's key and lockAll()'s key list (docs/api.md "Several resources"). */
#include "php_redlock_int.h"

zend_result php_redlock_check_resource(zend_string *res, uint32_t argn)
{
    if (ZSTR_LEN(res) < 1 || ZSTR_LEN(res) > REDLOCK_MAX_RESOURCE) {
        zend_argument_value_error(argn, "must be between 1 and %d bytes long", REDLOCK_MAX_RESOURCE);
        return FAILURE;
    }
    if (memchr(ZSTR_VAL(res), '\0', ZSTR_LEN(res))) {
        zend_argument_value_error(argn, "must not contain NUL bytes");
        return FAILURE;
    }
    return SUCCESS;
}

zend_result php_redlock_check_ttl(zend_long ttl, uint32_t argn)
{
    if (ttl < 1 || ttl > INT32_MAX) {
        zend_argument_value_error(argn, "must be between 1 and %d", INT32_MAX);
        return FAILURE;
    }
    return SUCCESS;
}

zend_string *php_redlock_key(php_redlock_group *g, zend_string *resource)
{
    return zend_string_concat2(ZSTR_VAL(g->opts.prefix), ZSTR_LEN(g->opts.prefix), ZSTR_VAL(resource),
                               ZSTR_LEN(resource));
}

/* A read lock's key (docs/api.md "Read locks", rl.h rl_key_is_shared): the key
 * list with an empty first entry; key (a key or a list) is released. */
zend_string *php_redlock_shared_key(zend_string *key)
{
    const char *k = ZSTR_VAL(key);
    size_t kl = ZSTR_LEN(key), len;
    zend_string *s;
    if (rl_key_is_list(k, kl)) {
        s = zend_string_alloc(kl + 2, 0);
        memcpy(ZSTR_VAL(s), "\0\0\0", 3);
        memcpy(ZSTR_VAL(s) + 3, k + 1, kl - 1);
        len = kl + 2;
    } else {
        s = zend_string_alloc(kl + 5, 0);
        memcpy(ZSTR_VAL(s), "\0\0\0", 3);
        ZSTR_VAL(s)[3] = (char)(kl >> 8);
        ZSTR_VAL(s)[4] = (char)(kl & 255);
        memcpy(ZSTR_VAL(s) + 5, k, kl);
        len = kl + 5;
    }
    ZSTR_VAL(s)[len] = '\0';
    zend_string_release(key);
    return s;
}

/* lockAll()'s resources (docs/api.md "Several resources"): 1 to 64 distinct
 * strings, each as lock()'s $resource. Their keys' list (rl.h rl_key_is_list)
 * is what the core takes for them all; NULL when it threw. */
zend_string *php_redlock_key_list(php_redlock_group *g, HashTable *resources, uint32_t argn, const char *what)
{
    uint32_t n = zend_hash_num_elements(resources), k = 0;
    if (n < 1 || n > RL_MAX_LIST) {
        zend_argument_value_error(argn, "%smust hold 1 to %d resources, %u given", what, RL_MAX_LIST, n);
        return NULL;
    }
    size_t pl = ZSTR_LEN(g->opts.prefix), len = 0;
    zval *v;
    ZEND_HASH_FOREACH_VAL(resources, v) {
        ZVAL_DEREF(v); /* an element given by reference: its value */
        if (Z_TYPE_P(v) != IS_STRING) {
            zend_argument_type_error(argn, "%smust hold only strings, %s given", what, zend_zval_type_name(v));
            return NULL;
        }
        zend_string *r = Z_STR_P(v);
        if (ZSTR_LEN(r) < 1 || ZSTR_LEN(r) > REDLOCK_MAX_RESOURCE || memchr(ZSTR_VAL(r), '\0', ZSTR_LEN(r))) {
            zend_argument_value_error(argn, "%selement %u must be 1 to %d bytes long, without NUL bytes", what, k,
                                      REDLOCK_MAX_RESOURCE);
            return NULL;
        }
        /* (at most 64: the pairs are compared directly) */
        zval *w;
        uint32_t j = 0;
        ZEND_HASH_FOREACH_VAL(resources, w) {
            if (j++ >= k) break;
            ZVAL_DEREF(w);
            if (zend_string_equals(Z_STR_P(w), r)) {
                zend_argument_value_error(argn, "%smust not name \"%s\" twice", what, ZSTR_VAL(r));
                return NULL;
            }
        } ZEND_HASH_FOREACH_END();
        len += 2 + pl + ZSTR_LEN(r);
        k++;
    } ZEND_HASH_FOREACH_END();
    /* (a resource and the prefix are at most 512 bytes each: every key fits the list's 2-byte length) */
    zend_string *key = zend_string_alloc(1 + len, 0);
    size_t at = 0;
    char kbuf[REDLOCK_MAX_PREFIX + REDLOCK_MAX_RESOURCE];
    memcpy(kbuf, ZSTR_VAL(g->opts.prefix), pl);
    ZEND_HASH_FOREACH_VAL(resources, v) {
        ZVAL_DEREF(v);
        memcpy(kbuf + pl, Z_STRVAL_P(v), Z_STRLEN_P(v));
        rl_list_add(ZSTR_VAL(key), 1 + len, &at, kbuf, pl + Z_STRLEN_P(v));
    } ZEND_HASH_FOREACH_END();
    ZSTR_VAL(key)[at] = '\0';
    return key;
}

/* the resources of a list, as a fresh packed array in their order */
HashTable *php_redlock_resource_list(HashTable *resources)
{
    HashTable *ht = zend_new_array(zend_hash_num_elements(resources));
    zend_hash_real_init_packed(ht);
    zval *v;
    ZEND_HASH_FOREACH_VAL(resources, v) {
        ZVAL_DEREF(v); /* the value, never the caller's reference */
        Z_TRY_ADDREF_P(v);
        zend_hash_next_index_insert_new(ht, v);
    } ZEND_HASH_FOREACH_END();
    return ht;
}
