-- wrk script: a new query string on every request, so that every request
-- misses the cache and renders (benches/load.sh, run.sh, attack.sh, soak.sh).
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, wrk.path .. "?miss=" .. n .. "-" .. math.random(1000000000))
end
