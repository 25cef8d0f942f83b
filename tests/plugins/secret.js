// The tenants of the isolation test (tests/all/density.rs), made from this
// one file with NAME and SECRET replaced: each keeps a secret made at build
// time, so it lives only in its own heap snapshot, and each render looks
// for any other tenant's.
const name = 'NAME';
// Built from pieces, so the whole string is in the snapshot's heap only.
const mine = ['SECRET', name, 'SECRET'.length].join(':');
globalThis[`secret_${name}`] = mine;
let renders = 0;
export function render() {
  renders += 1;
  const seen = Object.keys(globalThis)
    .filter((k) => k.startsWith('secret_'))
    .map((k) => globalThis[k]);
  return {
    body: JSON.stringify({ name, mine, seen, renders }),
    headers: { 'content-type': 'application/json' },
    cache: 'no-store',
  };
}
