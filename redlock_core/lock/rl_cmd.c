/* rl_cmd.c -- building the commands of a call: a script's EVALSHA (and its key-list or read-lock variant),
 * a release with its id for the waiters, numbers as arguments. */
#include "rl_lock_int.h"

#include <stdio.h>
#include <string.h>

/* EVALSHA sha 1 key: a script's command, its arguments to follow */
void rl_evalsha1(rl_cmd *cmd, const char *script, const char *sha, const char *key, size_t keylen)
{
    memset(cmd, 0, sizeof(*cmd));
    rl_arg(cmd, "EVALSHA", 7);
    rl_arg(cmd, sha, RL_TOKEN_LEN);
    rl_arg(cmd, "1", 1);
    rl_arg(cmd, key, keylen);
    cmd->script = script;
}

/* the list variant of a script (a key list, RL_KEY_LIST) */
static void list_script(const char **script, const char **sha, const char *key, size_t keylen)
{
    if (rl_key_is_shared(key, keylen)) {
        if (*script == rl_script_acquire) {
            *script = rl_script_acquire_shared;
            *sha = rl_script_acquire_shared_sha;
        } else if (*script == rl_script_release) {
            *script = rl_script_release_shared;
            *sha = rl_script_release_shared_sha;
        } else if (*script == rl_script_extend) {
            *script = rl_script_extend_shared;
            *sha = rl_script_extend_shared_sha;
        }
        return;
    }
    if (*script == rl_script_acquire) {
        *script = rl_script_acquire_all;
        *sha = rl_script_acquire_all_sha;
    } else if (*script == rl_script_release) {
        *script = rl_script_release_all;
        *sha = rl_script_release_all_sha;
    } else if (*script == rl_script_extend) {
        *script = rl_script_extend_all;
        *sha = rl_script_extend_all_sha;
    }
}

/* nkey (the attempt's key of a caller-chosen token): its key, NUL, 'a';
 * for a key list its first key's (the list's script writes it only when it
 * set that key, so only the holder of it does) */
void rl_eval_cmd(rl_cmd *cmd, const char *script, const char *sha, const char *key, size_t keylen, const char *nkey)
{
    memset(cmd, 0, sizeof(*cmd));
    size_t nkeylen = keylen + 2;
    if (rl_key_is_list(key, keylen)) {
        list_script(&script, &sha, key, keylen);
        size_t pos = 1, kl = 0;
        const char *k;
        if (nkey && rl_list_next(key, keylen, &pos, &k, &kl)) nkeylen = kl + 2; /* (its first key, then NUL 'a') */
    }
    rl_arg(cmd, "EVALSHA", 7);
    rl_arg(cmd, sha, RL_TOKEN_LEN);
    rl_arg(cmd, nkey ? "2" : "1", 1);
    rl_arg(cmd, key, keylen);
    if (nkey) rl_arg(cmd, nkey, nkeylen);
    cmd->script = script;
}

void rl_script_cmd(rl_cmd *cmd, const char *script, const char *sha, const char *key, size_t keylen, const char *token)
{
    rl_eval_cmd(cmd, script, sha, key, keylen, NULL);
    rl_arg(cmd, token, strlen(token));
}

void rl_release_tag(rl_cmd *cmd, const char *key, size_t keylen, const char *token)
{
    /* a connection keeps it in order behind the SET it undoes */
    cmd->op = RL_OP_RELEASE;
    cmd->tag = rl_lock_tag(key, keylen, token, strlen(token));
}

/* ARGV[2] of a release: its id for the waiters (rl_script_release), from the
 * CSPRNG, so that it says nothing of the token and differs at each release
 * (without random bytes, zeros: a waiter may then take it for an earlier
 * release and wait for its timer) */
static void release_id_zero(rl_cmd *cmd)
{
    memset(cmd->id, '0', RL_RELEASE_ID_LEN);
    cmd->id[RL_RELEASE_ID_LEN] = '\0';
}

void rl_release_id_draw(rl_cmd *cmd)
{
    if (rl_random_hex(&rl_random_system, cmd->id, RL_RELEASE_ID_LEN / 2) != 0) release_id_zero(cmd);
}

/* the id's place among the arguments; drawn later (release_id_draw) by a
 * command that may never be sent (an attempt's cleanup) */
void rl_release_id_slot(rl_cmd *cmd)
{
    release_id_zero(cmd);
    rl_arg(cmd, cmd->id, RL_RELEASE_ID_LEN);
}

void rl_release_id(rl_cmd *cmd)
{
    rl_release_id_draw(cmd);
    rl_arg(cmd, cmd->id, RL_RELEASE_ID_LEN);
}

void rl_release_cmd(rl_cmd *cmd, const char *key, size_t keylen, const char *token)
{
    rl_script_cmd(cmd, rl_script_release, rl_script_release_sha, key, keylen, token);
    rl_release_id(cmd);
    rl_release_tag(cmd, key, keylen, token);
}

/* v in decimal and a NUL; what snprintf would give, without its cost on
 * every attempt */
size_t rl_fmt_int(char *buf, size_t cap, long long v)
{
    char tmp[24];
    size_t l = 0;
    if (v < 0) tmp[l++] = '-';
    l += rl_put_uint(tmp + l, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v);
    if (l + 1 > cap) return (size_t)snprintf(buf, cap, "%lld", v);
    memcpy(buf, tmp, l);
    buf[l] = '\0';
    return l;
}
