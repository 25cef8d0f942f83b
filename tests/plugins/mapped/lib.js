// A module of the `mapped` test site (tests/all/render.rs): its error's
// stack must name this file and the line of the `throw` below.

export function explode(what) {
  if (what === 'boom') {
    throw new Error(`exploded on ${what}`);
  }
  return what;
}
