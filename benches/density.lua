-- wrk script for benches/density.sh: each request goes to a random one of
-- TENANTS tenants (d-1 .. d-N, by /t/ path), with a query of its own so that
-- every request renders (no cache hit).
local n = tonumber(os.getenv("TENANTS") or "1")
math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)
request = function()
  local id = math.random(1, n)
  return wrk.format("GET", "/t/d-" .. id .. "/?q=" .. math.random(1, 1000000000))
end
