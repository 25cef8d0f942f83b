// node:util's inspect where its layout is subtle, as code written for
// Node sees it in logs and messages: accessors ([Getter], [Setter],
// [Getter/Setter], with and without the getters option, a getter that
// throws), showHidden's hidden and prototype properties, a nested error's
// stack lines, and `compact: true` with narrow break lengths.
// tests/all/node_modules.rs compares the answer with workerd's (which is
// Node 20's, line for line).
import u from 'node:util';
export default { async fetch() {
const e=new Error('foo\nbar'); e.stack='Error: foo\nbar\n    at X (w:1:1)'; e.foo='bar';
class X { constructor() { this._y = 1; } get y() { return this._y; } set z(v) {} }
const cases = [[Object.assign(function f(){}, {a:1}), {compact:true, breakLength: Infinity}], [e, {compact:true, breakLength:5}], [new Map([[1,{a:1,b:2}],[2,3]]), {compact:true, breakLength:5}], [{a:{b:{c:1, d:2}}, e:[1,2]}, {compact:true, breakLength:10}], [[1,2,3,{a:1}], {compact:true, breakLength:5}], [{x: 1, y: 'two'}, {compact: true, breakLength: Infinity}],
 [{ get a() { return 1; }, set b(v) {}, get c() { return {d: 1}; }, set c(v) {} }, {}], [{ get a() { return 1; }, set b(v) {}, get c() { return {d: 1}; }, set c(v) {} }, {getters: true}], [{ get a() { throw new Error('no'); } }, {getters: true}], [new X(), {showHidden: true}], [new X(), {}], [Object.defineProperty({a: 1}, 'h', {value: 2}), {showHidden: true}],
 [{err: e, nested: {err: e}}, {}], [{err: e, nested: {err: e}}, {compact: true}], [{err: e, nested: {err: e}}, {compact: false}], [{a: [1, {b: [2, {c: 3}]}], s: new Set([1, 2]), m: new Map([['k', {v: 1}]])}, {compact: true, breakLength: 20}], [{a: 'x'.repeat(30), b: {c: 'y'.repeat(30)}}, {compact: true}], [{a: 'x'.repeat(30), b: {c: 'y'.repeat(30)}}, {}], [[{a: 1, b: 2}, {c: [1, 2, 3]}], {compact: true, breakLength: 12}]];


 return new Response(cases.map(([v, o]) => JSON.stringify(u.inspect(v, o))).join('\n') + '\n');
} };
