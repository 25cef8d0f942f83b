//! `WebAssembly` without code, as on Workers: memories, globals, tables and
//! validation.
//!
//! Defines: WebAssembly
//! Host calls: none
//! Rust: none
//! WPT: none
//! Test plugin: tests/plugins/buffers.js
  // ------------------------------------------------------------ WebAssembly
  // As on Workers, without code: memories, globals and tables, and every
  // way to compile bytes refused as workerd refuses it (code generation is
  // the embedder's to allow, and ssr runs no WebAssembly a site brings:
  // docs/security.md). Neither engine has its own (QuickJS has none; V8
  // runs with --no-expose-wasm). A memory is an ArrayBuffer (or, shared, a
  // SharedArrayBuffer), counted against the tenant's memory like any other.
  if (typeof g.WebAssembly === 'undefined') {
    const PAGE = 65536;
    const MAX_PAGES = 65536;
    const errorClass = (name) => {
      const E = class extends Error {};
      Object.defineProperty(E, 'name', { value: name });
      Object.defineProperty(E.prototype, 'name', { value: name, writable: true, configurable: true });
      return E;
    };
    const CompileError = errorClass('CompileError');
    const LinkError = errorClass('LinkError');
    const RuntimeError = errorClass('RuntimeError');
    const noCode = (what) => {
      throw new CompileError(`WebAssembly.${what}(): Wasm code generation disallowed by embedder (ssr runs no WebAssembly a site brings)`);
    };
    const descriptorOf = (d, what) => {
      if (d === null || (typeof d !== 'object' && typeof d !== 'function')) {
        throw new TypeError(`WebAssembly.${what}(): Argument 0 must be a ${what.toLowerCase()} descriptor`);
      }
      return d;
    };
    // The JS API's [EnforceRange] unsigned long, at most `max`.
    const unsignedLong = (v, name, what, max) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0 || n > 0xffffffff) throw new TypeError(`WebAssembly.${what}(): Property '${name}': value ${v} is not a valid unsigned integer`);
      const t = Math.trunc(n);
      if (t > max) throw new RangeError(`WebAssembly.${what}(): Property '${name}': value ${t} is above the upper bound ${max}`);
      return t;
    };
    const limits = (d, what, max) => {
      const given = d.initial !== undefined ? d.initial : d.minimum;
      if (given === undefined) throw new TypeError(`WebAssembly.${what}(): Property 'initial' is required`);
      const initial = unsignedLong(given, 'initial', what, max);
      const maximum = d.maximum === undefined ? undefined : unsignedLong(d.maximum, 'maximum', what, max);
      if (maximum !== undefined && maximum < initial) throw new RangeError(`WebAssembly.${what}(): Property 'maximum': value ${maximum} is below the lower bound ${initial}`);
      return { initial, maximum };
    };
    const receiver = (brand, o, what) => branded(brand, o, `Receiver is not a WebAssembly.${what}`);

    const memories = new WeakMap();
    class Memory {
      constructor(descriptor) {
        if (new.target === undefined) throw new TypeError("WebAssembly.Memory must be invoked with 'new'");
        const d = descriptorOf(descriptor, 'Memory');
        const { initial, maximum } = limits(d, 'Memory', MAX_PAGES);
        const shared = !!d.shared;
        if (shared && maximum === undefined) throw new TypeError('WebAssembly.Memory(): If shared is true, maximum property should be defined.');
        const buffer = shared ? new SharedArrayBuffer(initial * PAGE) : new ArrayBuffer(initial * PAGE);
        memories.set(this, { buffer, shared, maximum: maximum === undefined ? MAX_PAGES : maximum });
      }
      get buffer() { return receiver(memories, this, 'Memory').buffer; }
      // A memory's old buffer is detached (its bytes move to the new one);
      // a shared one's old buffer keeps its length, and its bytes as they
      // were (with no threads, nothing else holds it while it grows).
      grow(delta) {
        const m = receiver(memories, this, 'Memory');
        const old = m.buffer.byteLength / PAGE;
        const n = unsignedLong(delta, 'delta', 'Memory.grow', MAX_PAGES);
        if (old + n > m.maximum) throw new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
        if (m.shared) {
          const next = new SharedArrayBuffer((old + n) * PAGE);
          new Uint8Array(next).set(new Uint8Array(m.buffer));
          m.buffer = next;
        } else {
          m.buffer = m.buffer.transfer((old + n) * PAGE);
        }
        return old;
      }
    }

    // A value of a WebAssembly type, as the JS API's ToWebAssemblyValue
    // makes it.
    const VALUE_TYPES = ['i32', 'i64', 'f32', 'f64', 'externref', 'anyref', 'funcref'];
    const coerce = (type, v) => {
      switch (type) {
        case 'i32': return Number(v) | 0;
        case 'i64': return BigInt.asIntN(64, BigInt(v));
        case 'f32': return Math.fround(Number(v));
        case 'f64': return Number(v);
        case 'funcref':
          if (v !== null) throw new TypeError('WebAssembly: a funcref is null or a function exported by WebAssembly, and there is none here');
          return v;
        default: return v;
      }
    };
    const zero = (type) => (type === 'i64' ? 0n : type === 'externref' ? undefined : type.endsWith('ref') ? null : 0);
    const valueType = (t, what) => {
      const type = `${t}`;
      if (!VALUE_TYPES.includes(type)) throw new TypeError(`WebAssembly.${what}(): Descriptor property 'value' must be a WebAssembly type`);
      return type;
    };

    const globals = new WeakMap();
    class Global {
      constructor(descriptor, v) {
        if (new.target === undefined) throw new TypeError("WebAssembly.Global must be invoked with 'new'");
        const d = descriptorOf(descriptor, 'Global');
        const mutable = !!d.mutable;
        const type = valueType(d.value, 'Global');
        globals.set(this, { type, mutable, value: v === undefined ? zero(type) : coerce(type, v) });
      }
      get value() { return receiver(globals, this, 'Global').value; }
      set value(v) {
        const s = receiver(globals, this, 'Global');
        if (!s.mutable) throw new TypeError("WebAssembly.Global.value: Can't set the value of an immutable global.");
        s.value = coerce(s.type, v);
      }
      valueOf() { return receiver(globals, this, 'Global').value; }
    }
    Object.defineProperty(Global.prototype, Symbol.toStringTag, { value: 'WebAssembly.Global', configurable: true });

    const tables = new WeakMap();
    class Table {
      constructor(descriptor, v) {
        if (new.target === undefined) throw new TypeError("WebAssembly.Table must be invoked with 'new'");
        const d = descriptorOf(descriptor, 'Table');
        const type = `${d.element}`;
        if (!['externref', 'anyref', 'funcref'].includes(type)) throw new TypeError("WebAssembly.Table(): Descriptor property 'element' must be a WebAssembly reference type");
        const { initial, maximum } = limits(d, 'Table', 10000000);
        const fill = v === undefined ? zero(type) : coerce(type, v);
        tables.set(this, { type, maximum: maximum === undefined ? 0xffffffff : maximum, items: new Array(initial).fill(fill) });
      }
      get length() { return receiver(tables, this, 'Table').items.length; }
      get(index) {
        const t = receiver(tables, this, 'Table');
        const i = unsignedLong(index, 'index', 'Table.get', 0xffffffff);
        if (i >= t.items.length) throw new RangeError(`WebAssembly.Table.get(): invalid address ${i} in ${t.type} table of size ${t.items.length}`);
        return t.items[i];
      }
      set(index, v) {
        const t = receiver(tables, this, 'Table');
        const i = unsignedLong(index, 'index', 'Table.set', 0xffffffff);
        if (i >= t.items.length) throw new RangeError(`WebAssembly.Table.set(): invalid address ${i} in ${t.type} table of size ${t.items.length}`);
        t.items[i] = arguments.length < 2 ? zero(t.type) : coerce(t.type, v);
      }
      grow(delta, v) {
        const t = receiver(tables, this, 'Table');
        const n = unsignedLong(delta, 'delta', 'Table.grow', 0xffffffff);
        const old = t.items.length;
        if (old + n > t.maximum) throw new RangeError('WebAssembly.Table.grow(): failed to grow table');
        const fill = v === undefined ? zero(t.type) : coerce(t.type, v);
        for (let k = 0; k < n; k++) t.items.push(fill);
        return old;
      }
    }

    class Module {
      constructor() {
        if (new.target === undefined) throw new TypeError("WebAssembly.Module must be invoked with 'new'");
        noCode('Module');
      }
    }
    class Instance {
      constructor() {
        if (new.target === undefined) throw new TypeError("WebAssembly.Instance must be invoked with 'new'");
        noCode('Instance');
      }
    }
    const refusing = (what) => ({ [what]() { return Promise.reject(new CompileError(`WebAssembly.${what}(): Wasm code generation disallowed by embedder (ssr runs no WebAssembly a site brings)`)); } })[what];
    const namespace = {
      Memory, Global, Table, Module, Instance, CompileError, LinkError, RuntimeError,
      validate() { noCode('validate'); },
      compile: refusing('compile'),
      instantiate: refusing('instantiate'),
      compileStreaming: refusing('compileStreaming'),
      instantiateStreaming: refusing('instantiateStreaming'),
    };
    for (const [name, C] of Object.entries({ Memory, Table, Module, Instance })) {
      Object.defineProperty(C, 'name', { value: name });
      Object.defineProperty(C.prototype, Symbol.toStringTag, { value: `WebAssembly.${name}`, configurable: true });
    }
    Object.defineProperty(Global, 'name', { value: 'Global' });
    const wasm = {};
    for (const [name, value] of Object.entries(namespace)) {
      Object.defineProperty(wasm, name, { value, writable: true, configurable: true, enumerable: false });
    }
    Object.defineProperty(wasm, Symbol.toStringTag, { value: 'WebAssembly', configurable: true });
    defineMissing('WebAssembly', wasm);
  }

