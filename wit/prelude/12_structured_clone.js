//! `structuredClone`, by the HTML standard's serialize and deserialize steps.
//!
//! Defines: structuredClone
//! Host calls: none
//! Rust: none
//! WPT: html/webappapis/structured-clone
//! Test plugin: tests/plugins/web-platform.js
  // -------------------------------------------------------- structuredClone
  // The HTML standard's StructuredSerialize and StructuredDeserialize in
  // one pass (checked by WPT's html/webappapis/structured-clone/). It walks
  // with a stack of its own, not by recursion, so a chain of a million
  // objects clones as a short one does; properties are read in the
  // standard's order (depth first, own enumerable string keys, getters run
  // once). What cannot be serialized throws a `DataCloneError`.
  const ERRORS = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  const UNCLONEABLE = [WeakMap, WeakSet, Promise].concat(typeof WeakRef === 'function' ? [WeakRef] : []);
  function cloneError(what) {
    return new DOMExceptionImpl(`${what} could not be cloned.`, 'DataCloneError');
  }
  function cloneBuffer(buffer) {
    if (buffer.byteLength === 0 && buffer.detached === true) throw cloneError('A detached ArrayBuffer');
    return buffer.slice(0);
  }
  function structuredCloneImpl(value, transfer = []) {
    const memory = new Map();
    // The objects whose members are still to copy: a stack of frames, each
    // a source, its copy, the member keys (or Map/Set entries) and how far.
    const froms = [];
    const tos = [];
    const keys = [];
    const nexts = [];
    // The copy of one value, shallow: an object's members are filled in
    // from the stack.
    function shallow(v) {
      if (v === null || (typeof v !== 'object' && typeof v !== 'function')) {
        if (typeof v === 'symbol') throw cloneError(String(v));
        return v;
      }
      const known = memory.get(v);
      if (known !== undefined) return known;
      if (typeof v === 'function') throw cloneError(`function ${v.name || '(anonymous)'}`);
      let out;
      let members = null;
      const proto = Object.getPrototypeOf(v);
      if (proto === Object.prototype || proto === null) {
        out = {};
        members = Object.keys(v);
      } else if (Array.isArray(v)) {
        out = new Array(v.length);
        members = Object.keys(v);
      } else {
        [out, members] = special(v);
      }
      memory.set(v, out);
      if (members !== null && members.length > 0) {
        froms.push(v);
        tos.push(out);
        keys.push(members);
        nexts.push(0);
      }
      return out;
    }
    // Everything but plain objects and arrays: [copy, members or null].
    function special(v) {
      const tag = Object.prototype.toString.call(v);
      if (v instanceof Boolean || tag === '[object Boolean]') return [Object(Boolean.prototype.valueOf.call(v)), null];
      if (v instanceof Number || tag === '[object Number]') return [Object(Number.prototype.valueOf.call(v)), null];
      if (v instanceof BigInt || tag === '[object BigInt]') return [Object(BigInt.prototype.valueOf.call(v)), null];
      if (v instanceof String || tag === '[object String]') return [Object(String.prototype.valueOf.call(v)), null];
      if (v instanceof Date) return [new Date(v.getTime()), null];
      if (v instanceof RegExp) return [new RegExp(v.source, v.flags), null];
      if (v instanceof ArrayBuffer) return [cloneBuffer(v), null];
      if (ArrayBuffer.isView(v)) {
        let buffer = memory.get(v.buffer);
        if (buffer === undefined) {
          buffer = cloneBuffer(v.buffer);
          memory.set(v.buffer, buffer);
        }
        return [v instanceof DataView ? new DataView(buffer, v.byteOffset, v.byteLength) : new g[tag.slice(8, -1)](buffer, v.byteOffset, v.length), null];
      }
      if (v instanceof Map) return [new Map(), Array.from(v)];
      if (v instanceof Set) return [new Set(), Array.from(v)];
      if (v instanceof DOMExceptionImpl) return [new DOMExceptionImpl(v.message, v.name), null];
      if (v instanceof Error) {
        const name = v.name;
        const C = Object.prototype.hasOwnProperty.call(ERRORS, name) ? ERRORS[name] : Error;
        const message = Object.getOwnPropertyDescriptor(v, 'message');
        const out = message !== undefined && 'value' in message ? new C(String(message.value)) : new C();
        if (!Object.prototype.hasOwnProperty.call(v, 'cause')) return [out, null];
        Object.defineProperty(out, 'cause', { value: undefined, writable: true, configurable: true });
        return [out, ['cause']];
      }
      if (v instanceof FileImpl) return [new FileImpl([v], v.name, { type: v.type, lastModified: v.lastModified }), null];
      if (v instanceof BlobImpl) return [new BlobImpl([v], { type: v.type }), null];
      if (UNCLONEABLE.some((C) => v instanceof C) || isPlatform(v)) throw cloneError(tag.slice(8, -1));
      return [{}, Object.keys(v)];
    }
    const moved = new Set();
    for (const t of transfer) {
      if (!(t instanceof ArrayBuffer)) throw cloneError(`${Object.prototype.toString.call(t).slice(8, -1)} in the transfer list`);
      if (moved.has(t)) throw cloneError('An ArrayBuffer listed twice in the transfer list');
      moved.add(t);
    }
    const root = shallow(value);
    let top;
    while ((top = froms.length - 1) >= 0) {
      const members = keys[top];
      const at = nexts[top];
      if (at >= members.length) {
        froms.pop();
        tos.pop();
        keys.pop();
        nexts.pop();
        continue;
      }
      nexts[top] = at + 1;
      const m = members[at];
      const to = tos[top];
      if (to instanceof Map) to.set(shallow(m[0]), shallow(m[1]));
      else if (to instanceof Set) to.add(shallow(m));
      else if (Object.prototype.hasOwnProperty.call(froms[top], m)) to[m] = shallow(froms[top][m]);
    }
    // A transferred buffer was copied like the others; the original is
    // then detached, where the engine can (ES2024's `transfer`).
    for (const t of moved) {
      if (typeof t.transfer === 'function') t.transfer();
    }
    return root;
  }
  // The prelude's classes that are not serializable (the standard's
  // platform objects), whose state a copy of their properties would lose.
  let platform = null;
  function isPlatform(v) {
    platform = platform || [RequestImpl, ResponseImpl, HeadersImpl, ReadableStreamImpl, WritableStreamImpl, EventTargetImpl, MessagePort, URLImpl, URLSearchParamsImpl];
    return platform.some((C) => v instanceof C);
  }
  defineMissing('structuredClone', function structuredClone(value, options) {
    if (arguments.length === 0) throw new TypeError("Failed to execute 'structuredClone': 1 argument required, but only 0 present.");
    const transfer = options === undefined || options === null ? [] : options.transfer;
    return structuredCloneImpl(value, transfer === undefined ? [] : Array.from(transfer));
  });

