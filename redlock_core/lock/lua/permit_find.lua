-- permit_find.lua -- restore() of a permit (docs/api.md "Restore"): the slots that hold
-- our token.
--
-- KEYS[1]  the slots' prefix sp: the semaphore's key r "\0p"
-- ARGV[1]  the token
-- ARGV[2]  the limit (the client's: 1..1024)
-- Sent by rl_find_permit (lock/rl_permit.c). Answers those slots below the limit as permit.lua's
-- bitmap; nil none.
local lim = tonumber(ARGV[2])
local got = {}
for i = 0, lim - 1 do
    if redis.call("get",KEYS[1] .. i) == ARGV[1] then got[#got + 1] = i end
end
if #got == 0 then return false end
--@ bitmap(set=got, lim=lim)
return string.char(unpack(b))
