-- held_shared.lua -- isHeld() of a read lock (docs/api.md "Read locks").
--
-- KEYS[1]  the read lock's key list (first entry empty, rl_key_is_shared)
-- ARGV[1]  the token
-- Sent by ask_nodes (lock/rl_release.c) for a read lock. Answers our token when we read every
-- key (our entry not expired), else nil.
--@ split_s
--@ now
for _, k in ipairs(ks) do
    if redis.call("get",k) ~= "\0s" then return false end
    local sc = redis.call("zscore",k .. "\0r",ARGV[1])
    if not sc or tonumber(sc) <= now then return false end
end
return ARGV[1]
