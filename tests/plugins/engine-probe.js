// Loads on QuickJS, throws at the top level on V8 (whose stacks start with
// the error's name and message; QuickJS's hold the frames alone):
// registering it for V8 must fail with this message, at registration.
if (new Error('probe').stack.startsWith('Error: probe')) {
  throw new Error('this bundle refuses V8');
}
export function render() {
  return 'quickjs';
}
