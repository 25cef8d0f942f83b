// Loads on QuickJS, throws at the top level on V8 (which has WebAssembly):
// registering it for V8 must fail with this message, at registration.
if (typeof WebAssembly === 'object') {
  throw new Error('this bundle refuses engines that have WebAssembly');
}
export function render() {
  return 'quickjs';
}
