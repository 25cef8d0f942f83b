//! Service bindings: `env.X` of each service the app's wrangler config
//! binds (`services`), whose `fetch` the host renders as that service's
//! own request, without leaving the host (`calls::SERVICE`, which
//! `25_fetch.js` calls: the response answers as a fetch's).
//!
//! Defines: none
//! Host calls: none
//! Rust: host/src/bindings/service.rs
//! WPT: none
//! Test plugin: tests/plugins/services.js
  // ---------------------------------------------------------- services
  // How deep the render in progress is in a chain of service calls (its
  // request's `x-ssr-service-depth`, which only the host sets): the host
  // refuses a call past its bound.
  let serviceDepth = 0;
  class Fetcher {
    #name;
    constructor(token, name) {
      if (token !== makeService) throw new TypeError('Illegal constructor');
      this.#name = name;
    }
    fetch(input, init) {
      return fetchThrough(this.#name, input, init);
    }
  }
  const makeService = Symbol('service');
  Object.defineProperty(Fetcher.prototype, Symbol.toStringTag, { value: 'Fetcher', configurable: true });
  const serviceBinding = (name) => new Fetcher(makeService, name);
