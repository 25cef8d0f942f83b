//! Web Crypto's random half: `crypto.getRandomValues()` and
//! `crypto.randomUUID()`.
//!
//! Defines: crypto, Crypto
//! Host calls: random
//! Rust: host/src/web/mod.rs
//! WPT: WebCryptoAPI
//! Test plugin: tests/plugins/crypto.js
  // ----------------------------------------------------------------- crypto
  // Web Crypto's random half, from the host's generator (`calls::RANDOM`).
  const integerArrays = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
    'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array'];
  // A method of `crypto` alone, as on workerd and in browsers: taken off
  // it (`const { getRandomValues } = crypto`), it throws.
  let cryptoObject;
  function getRandomValues(array) {
    if (this !== cryptoObject) throw new TypeError('Illegal invocation: call getRandomValues on crypto (crypto.getRandomValues(array))');
    const type = ArrayBuffer.isView(array) && Object.prototype.toString.call(array).slice(8, -1);
    if (!integerArrays.includes(type)) {
      throw new DOMEx('The data argument must be an integer-type TypedArray', 'TypeMismatchError');
    }
    if (array.byteLength > 65536) {
      throw new DOMEx(`The ArrayBufferView's byte length (${array.byteLength}) exceeds the number of bytes of entropy available via this API (65536)`, 'QuotaExceededError');
    }
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(host('random', array.byteLength).data);
    return array;
  }
  // Bytes as lower-case hex (also R2's checksums, `31_r2.js`).
  const hexOf = (bytes) => Array.from(bytes, (x) => x.toString(16).padStart(2, '0')).join('');
  function randomUUID() {
    const b = host('random', 16).data;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const hex = hexOf(b);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  // Web Crypto's interface object, as `workerd` has it: `crypto` is its
  // one instance (`crypto instanceof Crypto`), and it cannot be made.
  function Crypto() { throw new TypeError('Illegal constructor'); }
  Object.defineProperties(Crypto.prototype, {
    getRandomValues: { value: getRandomValues, writable: true, configurable: true, enumerable: true },
    randomUUID: { value: randomUUID, writable: true, configurable: true, enumerable: true },
    [Symbol.toStringTag]: { value: 'Crypto', configurable: true },
  });
  cryptoObject = Object.create(Crypto.prototype);
  defineMissing('crypto', cryptoObject);
  defineMissing('Crypto', Crypto);

