// Imports an npm package but has no bundler next to it: `ssr build` must say
// how to bundle it.
import leftPad from 'left-pad';
export function render() { return leftPad('x', 3); }
