-- fair_leave.lua -- a fair waiter leaves the queue of a key (docs/api.md "Fair waiting"):
-- it gave up, or won (where its entry is left: a node that set the key for it keeps the
-- entry until then, so that a win on a minority, released again, does not cost it its
-- place).
--
-- KEYS[1]  the lock's key (prefix . resource); its queue is KEYS[1] "\0q"
-- ARGV[1]  the waiter's queue id (RL_FAIR_ID_LEN hex, acquire.lua's ARGV[7])
-- ARGV[2]  an id as a release's (release.lua's ARGV[2]), for the message to the next
-- Sent by acq_fair_leave (lock/rl_acquire.c) at the end of a queued wait, not waited for.
-- Answers 1. When the waiter was the queue's first and the key is free, the next waiter
-- is told, as a release would tell it.
local fk = KEYS[1]
--@ fair_prune
local qk = KEYS[1] .. "\0q"
local hd = redis.call("zrange",qk,0,0)[1]
redis.call("zrem",qk,ARGV[1])
redis.call("zrem",qk .. "x",ARGV[1])
if hd == ARGV[1] and redis.call("exists",KEYS[1]) == 0 then
    local id = ARGV[2]
    local c = "redlock:released:" .. KEYS[1]
    --@ fair_wake(k=KEYS[1], c=c, self=nil)
end
return 1
