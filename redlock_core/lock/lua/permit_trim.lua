-- permit_trim.lua -- the cleanup of a permit attempt on a node whose answer the client
-- did not keep (it decided without it, or kept other slots).
--
-- KEYS[1]  the slots' prefix sp: the semaphore's key r "\0p"
-- ARGV[1]  the token
-- ARGV[2]  the slots kept, as ranges ("a-b,c"; "" none)
-- Sent by permit_trim (lock/rl_permit.c), queued behind the attempt on the same connection, so
-- it always finds what the attempt set; a command of the same size whatever the limit.
-- Answers how many slots it deleted: those the attempt set there, which permit.lua
-- remembered in sp "T" token, but for the kept ones.
local sp = KEYS[1]
local tk = sp .. "T" .. ARGV[1]
local t = redis.call("get",tk)
if not t then return 0 end
redis.call("del",tk)
local keep = {}
for a, b in string.gmatch(ARGV[2] .. ",", "(%d+)-?(%d*),") do
    for s = tonumber(a), tonumber(b ~= "" and b or a) do keep[s] = true end
end
local n = 0
for a, b in string.gmatch(t .. ",", "(%d+)-?(%d*),") do
    for s = tonumber(a), tonumber(b ~= "" and b or a) do
        if not keep[s] and redis.call("get",sp .. s) == ARGV[1] then
            redis.call("del",sp .. s)
            n = n + 1
        end
    end
end
return n
