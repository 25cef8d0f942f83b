// Loads on QuickJS, throws at the top level on V8 (which has `Intl`;
// QuickJS has not): registering it for V8 must fail with this message, at
// registration.
if (typeof Intl === 'object') {
  throw new Error('this bundle refuses V8');
}
export function render() {
  return 'quickjs';
}
