/* rl_scripts.c -- the Lua scripts the core sends (EVALSHA, loaded at connect by rl_conn.c), with their SHA1s:
 * the lock scripts (rl_lock.c) and fencing's raise (rl_fence.c). Declared in rl_internal.h. */
#include "rl_internal.h"

/* The token-checked scripts of the spec: delete, or extend, only while the key holds our token.
 * rl_conn.c loads them at connect (SCRIPT LOAD) and retries a NOSCRIPT as EVAL.
 * A release also tells the waiters (docs/api.md "Waiting", rl.h RL_WAKE_*): only
 * when the key's channel has subscribers (else one PUBSUB NUMSUB is all it
 * costs), on one shard with subscribers, chosen from the release's id (ARGV[2],
 * random per release, the same on every node) so that every node picks the
 * same; through pcall, so that a user whose ACL refuses pub/sub still
 * releases. The message carries that id, never the token: a subscriber must
 * not learn a token (a framework's is derived from its owner), and a waiter
 * tells two releases by the same owner apart.
 * ARGV[4], a fair attempt's cleanup only: the waiter's queue id (see
 * RL_LUA_FAIR_WAKE). With a second key (KEYS[2], ARGV[3]: the attempt's key and nonce, see
 * rl_acquire) it is the cleanup of one failed attempt with a caller-chosen
 * token: it deletes only what that attempt set, and where that attempt
 * promoted our read lock (key "\0o" holds the nonce and the read lock's
 * expiry) it gives the read lock back as it was. */
/* the node's time in ms (TIME before a write: effects replication, asked for first) */
#define RL_LUA_NOW \
    "local tn = redis.call(\"time\") local now = tonumber(tn[1]) * 1000 + math.floor(tonumber(tn[2]) / 1000) "
/* Fair waiting (HACKING.md "Fair waiting"): the queue of key fk (a Lua
 * local set before; ZSET fk "\0q", see rl_script_acquire) without its
 * lapsed entries; qn: the entries left (0: no queue). Each entry lapses on
 * its own: fk "\0qx" holds its deadline (the node's time in ms: its
 * waiter's ttl after its last attempt), whatever the PX of the queue's
 * keys, which the longest-lived waiter raised. So every script that reads
 * the queue prunes it first (ZREM of the last entry deletes the key): a
 * waiter that died keeps nobody out, a plain lock() neither, beyond its
 * own ttl. TIME before a write: effects replication (the default from
 * Redis 7), asked for here or before the script's first write. */
#define RL_LUA_FAIR_PRUNE                                                                         \
    "local qn = 0 if redis.call(\"exists\",fk .. \"\\0q\") == 1 then "                            \
    "if redis.replicate_commands then redis.replicate_commands() end local qx = fk .. \"\\0qx\" " \
    "local qt = redis.call(\"time\") local dq = redis.call(\"zrangebyscore\",qx,\"-inf\","        \
    "tonumber(qt[1]) * 1000 + math.floor(tonumber(qt[2]) / 1000)) for i = 1, #dq, 1000 do "       \
    "local j = math.min(i + 999, #dq) redis.call(\"zrem\",fk .. \"\\0q\",unpack(dq, i, j)) "      \
    "redis.call(\"zrem\",qx,unpack(dq, i, j)) end qn = redis.call(\"zcard\",fk .. \"\\0q\") end "
/* Fair waiting (docs/api.md "Fair waiting"): where fair waiters queue on key k (ZSET
 * k "\0q", see rl_script_acquire), a release tells only the first of them
 * that listens (one of the queue's first four: one that died listens no
 * more), on its own channel c "\0q" id, "1 <release id>"; fw: told one.
 * self: the releasing waiter's own queue id (a fair attempt's cleanup) or
 * nil: when it is that first one, nobody is told (fw all the same): only
 * the queue's first can take the key, and a waiter woken by the cleanup of
 * its own attempt, won on a minority, would try again at once and lose
 * again while the holder's majority lasts (a loop of wake-ups, measured:
 * 7 in a row in tests/fair/fifo.phpt) */
#define RL_LUA_FAIR_WAKE(k, c, self)                                                          \
    "local fw = false local fk = " k " " RL_LUA_FAIR_PRUNE "if qn > 0 then "                  \
    "local hs = redis.call(\"zrange\"," k " .. \"\\0q\",0,3) local fc = {} "                  \
    "for i = 1, #hs do fc[i] = " c " .. \"\\0q\" .. hs[i] end if #fc > 0 then "               \
    "local fm = redis.pcall(\"pubsub\",\"numsub\",unpack(fc)) if type(fm) == \"table\" then " \
    "for i = 1, #hs do local v = fm[2 * i] if v and v > 0 then if hs[i] ~= " self " then "    \
    "redis.pcall(\"publish\",fc[i],\"1 \" .. id) end fw = true break end end end end end "
/* a release's message "<n> <id>" to ONE shard of key channel c that has
 * subscribers, the same on every node (from h, the release id's hash; rl.h
 * RL_WAKE_SHARDS, RL_WAKE_SUBS): of the 32 groups c "\0" string.char(48 + g)
 * the first from h with subscribers, then of its 32 shards (the group's
 * name and string.char(48 + s)) the first from h / 32 with subscribers;
 * n is that shard's subscribers. A group without a shard subscribed (a
 * waiter of a build before the two levels, listening on its group alone)
 * gets the message itself. 32 x 32: as many names and NUMSUB arguments (the
 * script's cost) as one level of 64 had. */
#define RL_LUA_SHARD_TELL(c)                                                                                             \
    "local ch = {} for k = 0, 31 do ch[k + 1] = " c " .. \"\\0\" .. string.char(48 + k) end "                            \
    "local m = redis.pcall(\"pubsub\",\"numsub\",unpack(ch)) "                                                           \
    "if type(m) == \"table\" then for k = 0, 31 do local j = (h + k) % 32 local v = m[2 * j + 2] "                       \
    "if v and v > 0 then local sc = {} for q = 0, 31 do sc[q + 1] = ch[j + 1] .. string.char(48 + q) end "               \
    "local m2 = redis.pcall(\"pubsub\",\"numsub\",unpack(sc)) local to, n = ch[j + 1], v "                               \
    "if type(m2) == \"table\" then local h2 = math.floor(h / 32) for q = 0, 31 do "                                      \
    "local jj = (h2 + q) % 32 local v2 = m2[2 * jj + 2] if v2 and v2 > 0 then to, n = sc[jj + 1], v2 break end end end " \
    "redis.pcall(\"publish\",to,n .. \" \" .. id) break end end end "
const char rl_script_release[] =
    "if redis.replicate_commands then redis.replicate_commands() end "
    "if KEYS[2] then if redis.call(\"get\",KEYS[2]) ~= ARGV[3] then return 0 end redis.call(\"del\",KEYS[2]) "
    "local ok = KEYS[1] .. \"\\0o\" local o = redis.call(\"get\",ok) "
    "if o and string.sub(o, 1, #ARGV[3] + 1) == ARGV[3] .. \":\" and redis.call(\"get\",KEYS[1]) == ARGV[1] then " RL_LUA_NOW
    "local old = tonumber(string.sub(o, #ARGV[3] + 2)) redis.call(\"del\",ok) if old > now then "
    "redis.call(\"zadd\",KEYS[1] .. \"\\0r\",old,ARGV[1]) redis.call(\"pexpire\",KEYS[1] .. \"\\0r\",old - now) "
    "redis.call(\"set\",KEYS[1],\"\\0s\",\"PX\",old - now) return 1 end end end "
    "if redis.call(\"get\",KEYS[1]) == ARGV[1] then local r = redis.call(\"del\",KEYS[1]) "
    "local c = \"redlock:released:\" .. KEYS[1] local s = redis.pcall(\"pubsub\",\"numsub\",c) "
    "if type(s) == \"table\" and s[2] and s[2] > 0 then local id = ARGV[2] or \"\" "
    /* a fair waiter first, else one shard */
    RL_LUA_FAIR_WAKE("KEYS[1]", "c",
                     "ARGV[4]") "if not fw then local h = 0 "
                          "for i = 1, #id do h = (h * 31 + string.byte(id, i)) % 65521 end " RL_LUA_SHARD_TELL(
                              "c") "end end "
                                   "return r else return 0 end";
const char rl_script_release_sha[] = "0f0313afe084287a14e027044923f4ae0c1556c6";
/* a fair waiter that gives up, or won (where its entry is left): its queue
 * entry (ARGV[1] its id) goes, and when it was first and the key is free,
 * the next is told (ARGV[2]: an id as a release's) */
const char rl_script_fair_leave[] =
    "local fk = KEYS[1] " RL_LUA_FAIR_PRUNE
    "local qk = KEYS[1] .. \"\\0q\" local hd = redis.call(\"zrange\",qk,0,0)[1] "
    "redis.call(\"zrem\",qk,ARGV[1]) redis.call(\"zrem\",qk .. \"x\",ARGV[1]) "
    "if hd == ARGV[1] and redis.call(\"exists\",KEYS[1]) == 0 then local id = ARGV[2] "
    "local c = \"redlock:released:\" .. KEYS[1] " RL_LUA_FAIR_WAKE("KEYS[1]", "c", "nil") "end return 1";
const char rl_script_fair_leave_sha[] = "8a0f72f5c3a96a2b91eabe0c3b07f23f78a9ce2a";
/* An attempt done by script: SET NX PX, and when it set the key,
 * - "acquired" to the waiters of its shard (ARGV[3], "" none), so that those
 *   holding back stand down (a waiter's attempt);
 * - with a second key, the attempt's nonce (ARGV[4]) in KEYS[2], with the
 *   same TTL (an attempt with a caller-chosen token: its cleanup, the release
 *   script with that key, then deletes only what this attempt set). */
/* The longest TTL asked for (docs/api.md "Restarted nodes"), kept on each node in
 * the key given (prefix . "\0redlock:maxttl") as "<ms>:<created>", created
 * the node's TIME in ms when the key was made: m gets the stored TTL (0
 * none), a the key's age in ms (-1 none), both as they were before; the key
 * is written only when ttl exceeds the stored TTL. TIME before a write needs
 * effects replication: the default from Redis 7, asked for before. */
#define RL_LUA_MAXTTL(mk, ttl)                                                                              \
    "local t = redis.call(\"time\") local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) " \
    "local m, a, c = 0, -1, now local v = redis.call(\"get\"," mk ") "                                      \
    "if v then local x, y = string.match(v, \"^(%d+):(%d+)$\") if x then m = tonumber(x) c = tonumber(y) "  \
    "a = now - c if a < 0 then a = 0 end end end "                                                          \
    "if tonumber(" ttl ") > m then redis.call(\"set\"," mk "," ttl " .. \":\" .. string.format(\"%d\", c)) end "
/* An attempt done by script: SET NX PX, and when it set the key,
 * - "acquired" to the waiters of its shard (ARGV[3], "" none), so that those
 *   holding back stand down (a waiter's attempt);
 * - with a second key, the attempt's nonce (ARGV[4]) in KEYS[2], with the
 *   same TTL (an attempt with a caller-chosen token: its cleanup, the release
 *   script with that key, then deletes only what this attempt set).
 * With ARGV[5] (not ""), the maxttl key: raised to the TTL if lower, and the
 * answer is [SET's answer, stored TTL, its age] (rl_reply.aux).
 * Read locks (docs/api.md "Read locks", rl_script_acquire_shared): where readers
 * hold the key (its value "\0s", no token's), the SET fails as for any
 * holder, so an exclusive lock() costs its one script when there is none.
 * Then, with ARGV[6] (a waiting exclusive lock(): ms), the attempt enters
 * the waiting writers (ZSET key "\0w", our token until now + ARGV[6]) that
 * hold new readers back, and leaves it when it wins; with a caller-chosen
 * token that is the only reader, it promotes that read lock: the key takes
 * our token (PX at least what the read lock had left), and "\0o" keeps the
 * nonce and the read lock's expiry for the cleanup to give it back. */
const char rl_script_acquire[] =
    "local mk = ARGV[5] if mk == \"\" then mk = nil end local wms = ARGV[6] if wms == \"\" then wms = nil end "
    "local fid = ARGV[7] "
    "if (mk or wms or fid or KEYS[2]) and redis.replicate_commands then redis.replicate_commands() end "
    "local qk = KEYS[1] .. \"\\0q\" local r, blk, tk = false, false, nil local fk = KEYS[1] " RL_LUA_FAIR_PRUNE
    "if fid then " RL_LUA_NOW "local xk = qk .. \"x\" local tq = qk .. \"t\" local e = tonumber(ARGV[9]) "
    "local t = tonumber(ARGV[8]) if t > 0 then redis.call(\"zadd\",qk,ARGV[8],fid) redis.call(\"zadd\",xk,now + e,fid) "
    "if tonumber(redis.call(\"get\",tq) or \"0\") < t then redis.call(\"set\",tq,ARGV[8]) end "
    "for _, x in ipairs({qk, xk, tq}) do if redis.call(\"pttl\",x) < e then redis.call(\"pexpire\",x,e) end end end "
    "local hd = redis.call(\"zrange\",qk,0,0)[1] blk = hd ~= nil and hd ~= fid "
    "if not blk then r = redis.call(\"set\",KEYS[1],ARGV[1],\"NX\",\"PX\",ARGV[2]) end "
    "if not r and t == 0 then tk = redis.call(\"incr\",tq) "
    "if redis.call(\"pttl\",tq) < e then redis.call(\"pexpire\",tq,e) end end "
    "elseif qn > 0 then blk = true "
    "else r = redis.call(\"set\",KEYS[1],ARGV[1],\"NX\",\"PX\",ARGV[2]) end "
    "if r then if KEYS[2] then redis.call(\"set\",KEYS[2],ARGV[4],\"PX\",ARGV[2]) end "
    "if wms then redis.call(\"zrem\",KEYS[1] .. \"\\0w\",ARGV[1]) end "
    "if ARGV[3] ~= \"\" then redis.pcall(\"publish\",\"redlock:released:\" .. KEYS[1] .. \"\\0\" .. ARGV[3],\"acquired\") end "
    "elseif not blk and (KEYS[2] or wms) and redis.call(\"get\",KEYS[1]) == \"\\0s\" then " RL_LUA_NOW
    "local rk = KEYS[1] .. \"\\0r\" redis.call(\"zremrangebyscore\",rk,\"-inf\",now) "
    "local mine = redis.call(\"zscore\",rk,ARGV[1]) "
    "if KEYS[2] and mine and redis.call(\"zcard\",rk) == 1 then "
    "local old = tonumber(mine) local px = math.max(tonumber(ARGV[2]), old - now) "
    "redis.call(\"set\",KEYS[1],ARGV[1],\"PX\",px) redis.call(\"del\",rk) "
    "redis.call(\"set\",KEYS[1] .. \"\\0o\",ARGV[4] .. \":\" .. string.format(\"%d\", old),\"PX\",px) "
    "redis.call(\"set\",KEYS[2],ARGV[4],\"PX\",px) r = redis.status_reply(\"OK\") "
    "if wms then redis.call(\"zrem\",KEYS[1] .. \"\\0w\",ARGV[1]) end "
    "elseif wms then local wk = KEYS[1] .. \"\\0w\" redis.call(\"zremrangebyscore\",wk,\"-inf\",now) "
    "redis.call(\"zadd\",wk,now + tonumber(wms),ARGV[1]) "
    "if redis.call(\"pttl\",wk) < tonumber(wms) then redis.call(\"pexpire\",wk,wms) end end "
    "end if tk then r = tk end if not mk then return r end " RL_LUA_MAXTTL("mk", "ARGV[2]") "return {r, m, a}";
const char rl_script_acquire_sha[] = "ec4a0715d607856eb52f824a31801de2fac33a08";
/* compare-and-pexpire; with ARGV[3], the maxttl key (as above): the answer is
 * [1 extended, 0 another owner's key, -1 no key; stored TTL; its age] */
const char rl_script_extend[] =
    "if ARGV[3] and redis.replicate_commands then redis.replicate_commands() end "
    "local v = redis.call(\"get\",KEYS[1]) local r = 0 "
    "if v == ARGV[1] then r = redis.call(\"pexpire\",KEYS[1],ARGV[2]) elseif not v then r = -1 end "
    "if not ARGV[3] then if r < 0 then return 0 end return r end " RL_LUA_MAXTTL("ARGV[3]",
                                                                                 "ARGV[2]") "return {r, m, a}";
const char rl_script_extend_sha[] = "d32a34799dd1bc93aa6d1f1b91225666f1ee20af";

/* ---- several resources at once (docs/api.md "Several resources", rl.h rl_key_is_list) ----
 * A key list is one argument ("\0", then each key with its length): these
 * scripts split it, so every call and queue that carries a
 * key (owed releases, the watchdog, restore) carries a list unchanged. Each
 * script is atomic on its node: all the keys or none. A node counts only
 * when it holds (set, extended) every key. Not loaded at connect: the first
 * EVALSHA of a connection falls back to EVAL (NOSCRIPT), once. */
#define RL_LUA_SPLIT                                                                                           \
    "local ks = {} local b = KEYS[1] local p = 2 while p + 1 <= #b do "                                        \
    "local l = string.byte(b, p) * 256 + string.byte(b, p + 1) ks[#ks + 1] = string.sub(b, p + 2, p + 1 + l) " \
    "p = p + 2 + l end "
/* the acquire script's arguments (below), for every key: none may exist */
const char rl_script_acquire_all[] =
    "if ARGV[5] and redis.replicate_commands then redis.replicate_commands() end " RL_LUA_SPLIT
    "local r = false local free = true "
    "for i = 1, #ks do local fk = ks[i] if redis.call(\"exists\",fk) == 1 then free = false break end " RL_LUA_FAIR_PRUNE
    "if qn > 0 then free = false break end end "
    "if free then for i = 1, #ks do redis.call(\"set\",ks[i],ARGV[1],\"PX\",ARGV[2]) end "
    "r = redis.status_reply(\"OK\") if KEYS[2] then redis.call(\"set\",KEYS[2],ARGV[4],\"PX\",ARGV[2]) end "
    "if ARGV[3] ~= \"\" then for i = 1, #ks do "
    "redis.pcall(\"publish\",\"redlock:released:\" .. ks[i] .. \"\\0\" .. ARGV[3],\"acquired\") end end "
    "end if not ARGV[5] then return r end " RL_LUA_MAXTTL("ARGV[5]", "ARGV[2]") "return {r, m, a}";
const char rl_script_acquire_all_sha[] = "1bdb628a715930721c5e0b7a0baadfe6cfafcce4";
/* the release script's arguments; 1 when the node held every key (each
 * key of ours is deleted all the same, and its waiters told) */
/* a release's message to the waiters of key k, channel c (as
 * rl_script_release: its first fair waiter, else one shard; h, id given) */
#define RL_LUA_TELL(k, c)                                                                                             \
    "local s = redis.pcall(\"pubsub\",\"numsub\"," c ") "                                                             \
    "if type(s) == \"table\" and s[2] and s[2] > 0 then " RL_LUA_FAIR_WAKE(k, c, "nil") "if not fw then " RL_LUA_SHARD_TELL( \
        c) "end end "
const char rl_script_release_all[] =
    "if redis.replicate_commands then redis.replicate_commands() end "
    "if KEYS[2] then if redis.call(\"get\",KEYS[2]) ~= ARGV[3] then return 0 end redis.call(\"del\",KEYS[2]) end " RL_LUA_SPLIT
    "local id = ARGV[2] or \"\" local h = 0 "
    "for i = 1, #id do h = (h * 31 + string.byte(id, i)) % 65521 end local r = 0 "
    "for i = 1, #ks do if redis.call(\"get\",ks[i]) == ARGV[1] then redis.call(\"del\",ks[i]) r = r + 1 "
    "local sp = string.match(ks[i], \"^(.*%zp)%d+$\") if sp then redis.call(\"del\",sp .. \"T\" .. ARGV[1]) end "
    "local c = \"redlock:released:\" .. (sp or ks[i]) " RL_LUA_TELL(
        "ks[i]", "c") "end end if r == #ks then return 1 end return 0";
const char rl_script_release_all_sha[] = "4f2d32bde6dc0dd1e9f0f02fb0d13e3ace1fcee3";
/* the extend script's arguments: 1 every key ours (each extended), -1 no
 * key at all (a restarted node: repairable), 0 else (ours extended all the same) */
const char rl_script_extend_all[] =
    "if ARGV[3] and redis.replicate_commands then redis.replicate_commands() end " RL_LUA_SPLIT
    "local ok, miss = 0, 0 for i = 1, #ks do local v = redis.call(\"get\",ks[i]) "
    "if v == ARGV[1] then redis.call(\"pexpire\",ks[i],ARGV[2]) ok = ok + 1 "
    "local sp = string.match(ks[i], \"^(.*%zp)%d+$\") if sp and redis.call(\"pttl\",sp .. \"L\") < tonumber(ARGV[2]) "
    "then redis.call(\"pexpire\",sp .. \"L\",ARGV[2]) end elseif not v then miss = miss + 1 end end "
    "local r = 0 if ok == #ks then r = 1 elseif miss == #ks then r = -1 end "
    "if not ARGV[3] then if r < 0 then return 0 end return r end " RL_LUA_MAXTTL("ARGV[3]",
                                                                                 "ARGV[2]") "return {r, m, a}";
const char rl_script_extend_all_sha[] = "14b005e68c0e6f5f102ff353c4559929d969cc68";
/* isHeld(): our token (as GET would answer) when every key holds it, else nil */
const char rl_script_held_all[] =
    RL_LUA_SPLIT "for i = 1, #ks do if redis.call(\"get\",ks[i]) ~= ARGV[1] then return false end end return ARGV[1]";
const char rl_script_held_all_sha[] = "d527e24f12198db62172583645495da05deb0dae";

/* ---- read locks (docs/api.md "Read locks"; why this is safe: HACKING.md "Read locks") ----
 * A read lock's key list begins with an empty entry (rl_key_is_shared: no
 * resource is empty, rl_list_next skips it). On each node, a key k held by
 * readers has the value "\0s" (no token has a NUL) and its readers are the
 * ZSET k "\0r": token -> the node's time (ms) when that reader expires. k
 * lives as long as its longest-lived reader (PX from the largest score), so
 * an exclusive SET NX fails while any reader is alive, and a reader that
 * dies stops counting at its own expiry (entries past it are pruned). A
 * reader never joins a key holding a token (an exclusive holder) nor one
 * with waiting writers (ZSET k "\0w", see rl_script_acquire): no writer
 * starvation. The arguments are those of the list's scripts. */
#define RL_LUA_SPLIT_S                                                  \
    "local ks = {} local b = KEYS[1] local p = 2 while p + 1 <= #b do " \
    "local l = string.byte(b, p) * 256 + string.byte(b, p + 1) "        \
    "if l > 0 then ks[#ks + 1] = string.sub(b, p + 2, p + 1 + l) end p = p + 2 + l end "
/* the reader set's largest expiry (0 none) */
#define RL_LUA_MAXEXP(rk)                                \
    "local mx = 0 local top = redis.call(\"zrange\"," rk \
    ",-1,-1,\"withscores\") if top[2] then mx = tonumber(top[2]) end "
/* Every key or none: each must hold no token but ours, and (unless we read
 * it already) no waiting writer nor another's pending demotion. Our own
 * exclusive key (a caller-chosen token) is demoted: "\0s", with us as its
 * reader, and k "\0c" (nonce ":" the exclusive expiry) holds other readers
 * back until the client confirms (rl_script_shared_confirm) or the cleanup
 * gives the exclusive lock back. The nonce key is written only when this
 * attempt added something (a new reader, a demotion): the cleanup of a
 * refresh must not remove the read lock it refreshed. */
const char rl_script_acquire_shared[] =
    "local mk = ARGV[5] if mk == \"\" then mk = nil end "
    "if redis.replicate_commands then redis.replicate_commands() end " RL_LUA_SPLIT_S RL_LUA_NOW
    "local tk = ARGV[1] local ttl = tonumber(ARGV[2]) local nc = ARGV[4] if nc == \"\" then nc = nil end "
    "local free, had, dem = true, {}, {} "
    "for i, k in ipairs(ks) do local v = redis.call(\"get\",k) local rk = k .. \"\\0r\" "
    "if v == tk and nc then dem[i] = true elseif v and v ~= \"\\0s\" then free = false break else "
    "redis.call(\"zremrangebyscore\",rk,\"-inf\",now) if redis.call(\"zscore\",rk,tk) then had[i] = true else "
    "local wk = k .. \"\\0w\" redis.call(\"zremrangebyscore\",wk,\"-inf\",now) "
    "if redis.call(\"zcard\",wk) > 0 or redis.call(\"exists\",k .. \"\\0c\") == 1 then free = false break end "
    "local fk = k " RL_LUA_FAIR_PRUNE "if qn > 0 then free = false break end "
    "end end end "
    "local r = false if free then local any = false for i, k in ipairs(ks) do local rk = k .. \"\\0r\" local old = 0 "
    "if dem[i] then local pt = redis.call(\"pttl\",k) if pt > 0 then old = now + pt end end "
    "redis.call(\"zadd\",rk,now + ttl,tk) " RL_LUA_MAXEXP(
        "rk") "if old > mx then mx = old end "
              "redis.call(\"set\",k,\"\\0s\",\"PX\",mx - now) redis.call(\"pexpire\",rk,mx - now) "
              "if dem[i] then redis.call(\"set\",k .. \"\\0c\",nc .. \":\" .. string.format(\"%d\", old),\"PX\",mx - now) end "
              "if not had[i] then any = true end "
              "if ARGV[3] ~= \"\" then redis.pcall(\"publish\",\"redlock:released:\" .. k .. \"\\0\" .. ARGV[3],\"acquired\") end end "
              "if KEYS[2] and any then redis.call(\"set\",KEYS[2],nc,\"PX\",ttl) end r = redis.status_reply(\"OK\") end "
              "if not mk then return r end " RL_LUA_MAXTTL("mk", "ARGV[2]") "return {r, m, a}";
/* 1 when we read every key (each of ours leaves; a key whose last reader
 * left is deleted and its waiters told). With the attempt's key and nonce
 * (the cleanup of a failed attempt): only where that attempt added us, and
 * a demotion it made is undone (the key takes our token back, with the
 * expiry it had). */
const char rl_script_release_shared[] =
    "if redis.replicate_commands then redis.replicate_commands() end "
    "if KEYS[2] then if redis.call(\"get\",KEYS[2]) ~= ARGV[3] then return 0 end redis.call(\"del\",KEYS[2]) end " RL_LUA_SPLIT_S
        RL_LUA_NOW
    "local id = ARGV[2] or \"\" local h = 0 for i = 1, #id do h = (h * 31 + string.byte(id, i)) % 65521 end "
    "local r = 0 for _, k in ipairs(ks) do local rk = k .. \"\\0r\" local dk = k .. \"\\0c\" "
    "local d = KEYS[2] and redis.call(\"get\",dk) "
    "if d and string.sub(d, 1, #ARGV[3] + 1) == ARGV[3] .. \":\" then "
    "local old = tonumber(string.sub(d, #ARGV[3] + 2)) redis.call(\"del\",dk) redis.call(\"zrem\",rk,ARGV[1]) "
    "if redis.call(\"zcard\",rk) == 0 then redis.call(\"del\",rk) end "
    "if old > now then redis.call(\"set\",k,ARGV[1],\"PX\",old - now) else redis.call(\"del\",k) end r = r + 1 "
    "elseif redis.call(\"get\",k) == \"\\0s\" then redis.call(\"zremrangebyscore\",rk,\"-inf\",now) "
    "if redis.call(\"zrem\",rk,ARGV[1]) == 1 then r = r + 1 end "
    "if redis.call(\"zcard\",rk) == 0 then redis.call(\"del\",k,rk,dk) local c = \"redlock:released:\" .. k " RL_LUA_TELL(
        "k",
        "c") "else " RL_LUA_MAXEXP("rk") "redis.call(\"pexpire\",k,mx - now) redis.call(\"pexpire\",rk,mx - now) end end end "
                                         "if r == #ks then return 1 end return 0";
/* 1 every key read by us (each entry extended), -1 no key at all (a
 * restarted node: repairable), 0 else (ours extended all the same) */
const char rl_script_extend_shared[] =
    "if redis.replicate_commands then redis.replicate_commands() end " RL_LUA_SPLIT_S RL_LUA_NOW
    "local ok, miss = 0, 0 for _, k in ipairs(ks) do local v = redis.call(\"get\",k) local rk = k .. \"\\0r\" "
    "if v == \"\\0s\" then redis.call(\"zremrangebyscore\",rk,\"-inf\",now) if redis.call(\"zscore\",rk,ARGV[1]) then "
    "redis.call(\"zadd\",rk,\"XX\",now + tonumber(ARGV[2]),ARGV[1]) " RL_LUA_MAXEXP(
        "rk") "redis.call(\"pexpire\",k,mx - now) redis.call(\"pexpire\",rk,mx - now) ok = ok + 1 end "
              "elseif not v then miss = miss + 1 end end "
              "local r = 0 if ok == #ks then r = 1 elseif miss == #ks then r = -1 end "
              "if not ARGV[3] then if r < 0 then return 0 end return r end " RL_LUA_MAXTTL(
                  "ARGV[3]", "ARGV[2]") "return {r, m, a}";
/* isHeld(): our token when we read every key (an entry not expired) */
const char rl_script_held_shared[] = RL_LUA_SPLIT_S RL_LUA_NOW
    "for _, k in ipairs(ks) do if redis.call(\"get\",k) ~= \"\\0s\" then return false end "
    "local sc = redis.call(\"zscore\",k .. \"\\0r\",ARGV[1]) if not sc or tonumber(sc) <= now then return false end end "
    "return ARGV[1]";
/* after a won attempt with a caller-chosen token: its demotions are final
 * (other readers may join); ARGV[1] the attempt's nonce */
const char rl_script_shared_confirm[] = RL_LUA_SPLIT_S
    "for _, k in ipairs(ks) do local d = redis.call(\"get\",k .. \"\\0c\") "
    "if d and string.sub(d, 1, #ARGV[1] + 1) == ARGV[1] .. \":\" then redis.call(\"del\",k .. \"\\0c\") end end return 1";
const char rl_script_acquire_shared_sha[] = "7ee875561e4c01703890384490c89a44d95c73f5";
const char rl_script_release_shared_sha[] = "eb3fb1852805d1810815efd97ce13ef9d19fa614";
const char rl_script_extend_shared_sha[] = "ce43bc1f0e8e177bad84058f80a15892b8df75db";
const char rl_script_held_shared_sha[] = "a20f83af1e913284cc1c8ff6952dc396fd159037";
const char rl_script_shared_confirm_sha[] = "06a90d571e0460e51948e6cd90262f02f62bddd8";

/* ---- semaphores (docs/api.md "Semaphores"; why this is safe: HACKING.md "Semaphores") ----
 * A semaphore of limit L is L slots, each an ordinary RedLock mutex: slot i
 * of resource r is the key r "\0p" i, the stored limit r "\0pL" (no
 * resource holds a NUL: neither is any lock's key). A permit is w slots
 * that one quorum of nodes holds together; every slot has at most one
 * holder, so at most L permits. One script per node takes the first w free
 * slots from a start the client draws (KEYS[1] the slots' prefix r "\0p";
 * ARGV token, ttl, limit, weight, start, [maxttl key]) and answers them as
 * a bitmap (bit s of byte s / 8, (L + 7) / 8 bytes: at most 128 whatever
 * the slots, so it fits rl_reply.str), nil when fewer than w are free (sets
 * none), the stored limit (an integer) when another one is stored while a
 * slot of it is held. A stored limit that is not an integer in 1..1024
 * (RL_MAX_PERMITS) is no limit: the script never loops past 1024 slots.
 * Free slots look the same on every node, so a free permit costs one round
 * trip. */
#define RL_LUA_BITMAP(set, lim)                                              \
    "local b = {} for i = 1, math.floor((" lim " + 7) / 8) do b[i] = 0 end " \
    "for _, s in ipairs(" set ") do local j = math.floor(s / 8) + 1 b[j] = b[j] + 2 ^ (s % 8) end "
const char rl_script_permit[] =
    "if ARGV[6] and redis.replicate_commands then redis.replicate_commands() end "
    "local sp = KEYS[1] local lim = tonumber(ARGV[3]) local w = tonumber(ARGV[4]) local st = tonumber(ARGV[5]) "
    "local r = false local cur = redis.call(\"get\",sp .. \"L\") local cl = tonumber(cur) "
    "if cl and (cl ~= math.floor(cl) or cl < 1 or cl > 1024) then cl = nil end "
    "if cl and cl ~= lim then for i = 0, cl - 1 do "
    "if redis.call(\"exists\",sp .. i) == 1 then r = cl break end end end "
    "if not r then local got = {} for i = 0, lim - 1 do local s = (st + i) % lim "
    "if redis.call(\"exists\",sp .. s) == 0 then got[#got + 1] = s if #got == w then break end end end "
    "if #got == w then for _, s in ipairs(got) do redis.call(\"set\",sp .. s,ARGV[1],\"PX\",ARGV[2]) end "
    "if redis.call(\"pttl\",sp .. \"L\") < tonumber(ARGV[2]) or cur ~= ARGV[3] then "
    "redis.call(\"set\",sp .. \"L\",ARGV[3],\"PX\",ARGV[2]) end "
    "table.sort(got) local out = {} local i = 1 while i <= #got do local j = i "
    "while j < #got and got[j + 1] == got[j] + 1 do j = j + 1 end "
    "if j > i then out[#out + 1] = got[i] .. \"-\" .. got[j] else out[#out + 1] = tostring(got[i]) end i = j + 1 end "
    "redis.call(\"set\",sp .. \"T\" .. ARGV[1],table.concat(out, \",\"),\"PX\",ARGV[2]) " RL_LUA_BITMAP(
        "got", "lim") "r = string.char(unpack(b)) end end "
                      "if not ARGV[6] then return r end " RL_LUA_MAXTTL("ARGV[6]", "ARGV[2]") "return {r, m, a}";
/* The cleanup of an attempt on a node whose answer the client did not keep
 * (it decided without it, or kept other slots): the slots the attempt set
 * there, which its script remembered in r "\0pT" token, go, but for those
 * in ARGV[2] (the kept ones, as ranges; "" none). Queued behind the attempt
 * on the same connection, so it always finds what the attempt set; a
 * command of the same size whatever the limit. */
const char rl_script_permit_trim[] =
    "local sp = KEYS[1] local tk = sp .. \"T\" .. ARGV[1] local t = redis.call(\"get\",tk) if not t then return 0 end "
    "redis.call(\"del\",tk) local keep = {} "
    "for a, b in string.gmatch(ARGV[2] .. \",\", \"(%d+)-?(%d*),\") do "
    "for s = tonumber(a), tonumber(b ~= \"\" and b or a) do keep[s] = true end end local n = 0 "
    "for a, b in string.gmatch(t .. \",\", \"(%d+)-?(%d*),\") do "
    "for s = tonumber(a), tonumber(b ~= \"\" and b or a) do "
    "if not keep[s] and redis.call(\"get\",sp .. s) == ARGV[1] then redis.call(\"del\",sp .. s) n = n + 1 end end end "
    "return n";
const char rl_script_permit_trim_sha[] = "0c5b895ad565dec5d757b4bd7da29b9533eb0c1e";
/* restore() of a permit: the slots of r "\0p" (KEYS[1]) below the limit
 * (ARGV[2], the client's: 1..1024) that hold our token (ARGV[1]), as the
 * permit script's bitmap; nil none */
const char rl_script_permit_find[] =
    "local lim = tonumber(ARGV[2]) local got = {} for i = 0, lim - 1 do "
    "if redis.call(\"get\",KEYS[1] .. i) == ARGV[1] then got[#got + 1] = i end end "
    "if #got == 0 then return false end " RL_LUA_BITMAP("got", "lim") "return string.char(unpack(b))";
const char rl_script_permit_find_sha[] = "3d571770df6728d09de11308c316cada6b0f6f08";
const char rl_script_permit_sha[] = "a8b0af2047bc1cdbaf34bee08cffe850cdef9c2d";

/* Phase 2 on one node: raise the counter to ARGV[1] if it is lower; answer
 * the counter as it is afterwards (>= ARGV[1] means "confirmed"). SET keeps
 * the key without expiry: the counter must never expire. Lua numbers are
 * doubles, exact below 2^53: beyond that the node refuses (an error reply, a
 * node failure) rather than confirm a fence it cannot compare. */
const char rl_script_fence_raise[] =
    "local m = tonumber(ARGV[1]) local v = tonumber(redis.call(\"get\",KEYS[1]) or \"0\") "
    "if v == nil or m == nil then return redis.error_reply(\"fence counter is not an integer\") end "
    "if v >= 9007199254740992 or m >= 9007199254740992 then "
    "return redis.error_reply(\"fence counter out of range (2^53)\") end "
    "if v < m then redis.call(\"set\",KEYS[1],ARGV[1]) return m end return v";
const char rl_script_fence_raise_sha[] = "7cd269a3848b89013e8475f101fe6b6822d826f2";
