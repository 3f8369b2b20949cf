-- held_all.lua -- isHeld() of a key list (docs/api.md "Several resources").
--
-- KEYS[1]  the key list (rl.h rl_key_is_list)
-- ARGV[1]  the token
-- Sent by ask_nodes (lock/rl_release.c) for a key list. Answers our token (as GET would) when
-- every key holds it, else nil.
--@ split
for i = 1, #ks do
    if redis.call("get",ks[i]) ~= ARGV[1] then return false end
end
return ARGV[1]
