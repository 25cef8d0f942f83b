// Each render leaves about `mib` MiB of garbage in reference cycles (pairs of
// objects that point at each other), which only the cycle collector frees.
export function render(request) {
  const mib = Number(request.query.mib ?? 8);
  for (let i = 0; i < mib * 1024; i++) {
    const a = { pad: new Array(100).fill(i) };
    a.self = { a };
  }
  return 'ok';
}
