-- extend_all.lua -- extend() of a key list (docs/api.md "Several resources"), and of a
-- semaphore's permit (its slots, see permit.lua).
--
-- KEYS[1]  the key list (rl.h rl_key_is_list), or a permit's slots: r "\0p" i each
-- ARGV[1..3] as extend.lua's: the token, the new TTL in ms, (optional) the maxttl key
-- Sent for a key list where extend.lua would be (list_script, lock/rl_cmd.c).
-- Answers 1 every key ours (each extended), -1 no key at all (a restarted node:
-- repairable), 0 else (ours extended all the same); with ARGV[3] {r, m, a}. A permit's
-- slot also keeps the semaphore's stored limit (r "\0pL") alive at least as long.
if ARGV[3] and redis.replicate_commands then redis.replicate_commands() end
--@ split
local ok, miss = 0, 0
for i = 1, #ks do
    local v = redis.call("get",ks[i])
    if v == ARGV[1] then
        redis.call("pexpire",ks[i],ARGV[2])
        ok = ok + 1
        local sp = string.match(ks[i], "^(.*%zp)%d+$")
        if sp and redis.call("pttl",sp .. "L") < tonumber(ARGV[2]) then
            redis.call("pexpire",sp .. "L",ARGV[2])
        end
    elseif not v then
        miss = miss + 1
    end
end
--@ extend_list_answer
