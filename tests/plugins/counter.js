// A test renderer that counts the renders its instance has served: state
// that survives between requests only in reuse mode.
let renders = 0;
export function render() {
  renders += 1;
  return { body: String(renders), cache: 'no-store' };
}
