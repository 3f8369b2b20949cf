-- release.lua -- unlock() of one key: the token-checked delete of the spec, which also
-- tells the waiters; and, with KEYS[2], the cleanup of one failed attempt.
--
-- KEYS[1]  the lock's key (prefix . resource)
-- KEYS[2]  (optional) the attempt's nonce key: KEYS[1] "\0a" (acq_commands, lock/rl_acquire.c,
--          for a caller-chosen token only): makes this the cleanup of one failed attempt
-- ARGV[1]  the token
-- ARGV[2]  the release's id (RL_RELEASE_ID_LEN hex, random per release, the same on every
--          node; its first byte marks a cleanup: rl.h RL_ID_CLEANUP, RL_ID_QUIET)
-- ARGV[3]  with KEYS[2]: the attempt's nonce; "" for a fair attempt's cleanup without one
-- ARGV[4]  (optional) a fair attempt's cleanup: the waiter's queue id (acq_fair_cmd), see
--          fair_wake in fragments.lua
-- Sent by rl_release (lock/rl_release.c, rl_release_cmd; a connection that could not send it
-- owes it and sends it later) and as a failed attempt's cleanup (acq_commands, acq_fair_cmd in
-- lock/rl_acquire.c); a key list takes release_all.lua or release_shared.lua instead (list_script).
-- Answers 1 when it deleted our key (or gave a promoted read lock back), 0 else.
--
-- A release tells the waiters (docs/api.md "Waiting", rl.h RL_WAKE_*): only when the key's
-- channel has subscribers (else one PUBSUB NUMSUB is all it costs), on one shard with
-- subscribers, chosen from the release's id so that every node picks the same; through
-- pcall, so that a user whose ACL refuses pub/sub still releases. The message carries that
-- id, never the token: a subscriber must not learn a token (a framework's is derived from
-- its owner), and a waiter tells two releases by the same owner apart.
-- The cleanup deletes only what its attempt set: the key only where the nonce key holds
-- that attempt's nonce, and where that attempt promoted our read lock (key "\0o" holds the
-- nonce and the read lock's expiry, see acquire.lua) it gives the read lock back as it was.
if redis.replicate_commands then redis.replicate_commands() end
if KEYS[2] then
    --@ cleanup_nonce
    local ok = KEYS[1] .. "\0o"
    local o = redis.call("get",ok)
    if o and string.sub(o, 1, #ARGV[3] + 1) == ARGV[3] .. ":" and redis.call("get",KEYS[1]) == ARGV[1] then
        --@ now
        local old = tonumber(string.sub(o, #ARGV[3] + 2))
        redis.call("del",ok)
        if old > now then
            -- the read lock back, with the expiry it had
            redis.call("zadd",KEYS[1] .. "\0r",old,ARGV[1])
            redis.call("pexpire",KEYS[1] .. "\0r",old - now)
            redis.call("set",KEYS[1],"\0s","PX",old - now)
            return 1
        end
    end
end
if redis.call("get",KEYS[1]) == ARGV[1] then
    local r = redis.call("del",KEYS[1])
    local c = "redlock:released:" .. KEYS[1]
    local s = redis.pcall("pubsub","numsub",c)
    if type(s) == "table" and s[2] and s[2] > 0 then
        local id = ARGV[2] or ""
        -- a fair waiter first, else one shard
        --@ fair_wake(k=KEYS[1], c=c, self=ARGV[4])
        if not fw then
            --@ id_hash
            --@ shard_tell(c=c)
        end
    end
    return r
else
    return 0
end
