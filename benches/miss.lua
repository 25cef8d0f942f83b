-- wrk script: a new query string on every request, so that every request
-- misses the cache and renders (benches/load.sh, run.sh, attack.sh, soak.sh).
local n = 0
-- Seeded per run: unseeded, every wrk run draws the same numbers, and a
-- later run's URLs would hit pages an earlier one cached.
math.randomseed(os.time() * 1000 + math.floor(os.clock() * 1000000))
-- A path with a query of its own keeps it, the miss added after `&`.
local sep = wrk.path:find("?", 1, true) and "&" or "?"
request = function()
  n = n + 1
  return wrk.format(nil, wrk.path .. sep .. "miss=" .. n .. "-" .. math.random(1000000000))
end
