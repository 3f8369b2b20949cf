-- extend_shared.lua -- extend() of a read lock (docs/api.md "Read locks").
--
-- KEYS[1]  the read lock's key list (first entry empty, rl_key_is_shared)
-- ARGV[1..3] as extend.lua's: the token, the new TTL in ms, (optional) the maxttl key
-- Sent for a read lock where extend.lua would be (list_script, lock/rl_cmd.c).
-- Answers 1 every key read by us (each entry extended), -1 no key at all (a restarted
-- node: repairable), 0 else (ours extended all the same); with ARGV[3] {r, m, a}.
if redis.replicate_commands then redis.replicate_commands() end
--@ split_s
--@ now
local ok, miss = 0, 0
for _, k in ipairs(ks) do
    local v = redis.call("get",k)
    local rk = k .. "\0r"
    if v == "\0s" then
        redis.call("zremrangebyscore",rk,"-inf",now)
        if redis.call("zscore",rk,ARGV[1]) then
            redis.call("zadd",rk,"XX",now + tonumber(ARGV[2]),ARGV[1])
            --@ maxexp(rk=rk)
            redis.call("pexpire",k,mx - now)
            redis.call("pexpire",rk,mx - now)
            ok = ok + 1
        end
    elseif not v then
        miss = miss + 1
    end
end
--@ extend_list_answer
