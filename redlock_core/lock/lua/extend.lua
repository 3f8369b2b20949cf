-- extend.lua -- extend() of one key: the token-checked PEXPIRE of the spec.
--
-- KEYS[1]  the lock's key (prefix . resource)
-- ARGV[1]  the token
-- ARGV[2]  the new TTL in ms
-- ARGV[3]  (optional) the maxttl key, when the restart checks are on (docs/api.md
--          "Restarted nodes"; see maxttl in fragments.lua)
-- Sent by rl_extend (lock/rl_release.c; the watchdog's extensions too); a key list takes
-- extend_all.lua or extend_shared.lua instead (list_script). Answers 1 extended, 0 not
-- (another owner's key, or none); with ARGV[3] {r, m, a}: r 1 extended, 0 another
-- owner's key, -1 no key (a restarted node: repairable), m and a the maxttl key's.
if ARGV[3] and redis.replicate_commands then redis.replicate_commands() end
local v = redis.call("get",KEYS[1])
local r = 0
if v == ARGV[1] then
    r = redis.call("pexpire",KEYS[1],ARGV[2])
elseif not v then
    r = -1
end
--@ extend_answer
