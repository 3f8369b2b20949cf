-- fence_raise.lua -- fencing's phase 2 on one node (docs/api.md "Fencing tokens"): raise
-- the counter to M if it is lower.
--
-- KEYS[1]  the fence counter's key (the fence_key option)
-- ARGV[1]  M: the largest of a quorum's INCR answers in phase 1 (decimal)
-- Sent by rl_fence_phases (lock/rl_fence.c). Answers the counter as it is afterwards (>= M
-- means "confirmed"). SET keeps the key without expiry: the counter must never expire.
-- Lua numbers are doubles, exact below 2^53: beyond that the node refuses (an error
-- reply, a node failure) rather than confirm a fence it cannot compare.
local m = tonumber(ARGV[1])
local v = tonumber(redis.call("get",KEYS[1]) or "0")
if v == nil or m == nil then return redis.error_reply("fence counter is not an integer") end
if v >= 9007199254740992 or m >= 9007199254740992 then
    return redis.error_reply("fence counter out of range (2^53)")
end
if v < m then
    redis.call("set",KEYS[1],ARGV[1])
    return m
end
return v
