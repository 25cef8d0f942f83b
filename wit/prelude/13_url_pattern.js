//! `URLPattern`: the URL Pattern Standard, as `workerd` has it. The host
//! parses a pattern (Deno's `urlpattern` crate) into each component's
//! pattern string, regular expression and group names, and canonicalizes
//! an input into its components; the expressions run here, as `RegExp`s,
//! as browsers and Deno run them.
//!
//! Defines: URLPattern
//! Host calls: url-pattern
//! Rust: host/src/web/url_pattern.rs
//! WPT: urlpattern
//! Test plugin: tests/plugins/url-pattern.js
  // ------------------------------------------------------- URLPattern
  const URL_PATTERN_COMPONENTS = ['protocol', 'username', 'password', 'hostname', 'port', 'pathname', 'search', 'hash'];
  // The host's answer (pure: a pattern at a module's top level is made
  // at build time), or a TypeError saying what it refused.
  function urlPatternCall(args) {
    const [ok, text] = hostCall('url-pattern', JSON.stringify(args));
    if (ok) return JSON.parse(text);
    throw new TypeError(`Failed to construct 'URLPattern': ${text}`);
  }
  // An input as WebIDL reads `URLPatternInput`: a string, or an init
  // whose members are strings.
  function urlPatternInput(input) {
    if (input === undefined || input === null) return {};
    if (typeof input !== 'object' && typeof input !== 'function') return usv(input);
    const init = {};
    for (const key of [...URL_PATTERN_COMPONENTS, 'baseURL']) {
      if (input[key] !== undefined) init[key] = usv(input[key]);
    }
    return init;
  }
  const urlPatternState = new WeakMap();
  class URLPattern {
    constructor(input = {}, baseURL = undefined, options = undefined) {
      // (input, options) as well as (input, baseURL, options).
      if (baseURL !== undefined && baseURL !== null && typeof baseURL === 'object') {
        options = baseURL;
        baseURL = undefined;
      }
      const ignoreCase = options !== undefined && options !== null && Boolean(options.ignoreCase);
      const args = { op: 'parse', input: urlPatternInput(input), ignoreCase };
      if (baseURL !== undefined) args.baseURL = usv(baseURL);
      const parsed = urlPatternCall(args);
      const components = {};
      for (const name of URL_PATTERN_COMPONENTS) {
        const c = parsed[name];
        let regexp;
        try {
          regexp = new RegExp(c.regexpString, ignoreCase ? 'ui' : 'u');
        } catch (e) {
          throw new TypeError(`Failed to construct 'URLPattern': the ${name} pattern's regular expression is not valid: ${e.message}`);
        }
        components[name] = { pattern: c.patternString, regexp, groups: c.groupNameList };
      }
      urlPatternState.set(this, { components, hasRegExpGroups: parsed.hasRegexpGroups });
    }
    test(input = {}, baseURL = undefined) {
      return urlPatternMatch(this, input, baseURL) !== null;
    }
    exec(input = {}, baseURL = undefined) {
      return urlPatternMatch(this, input, baseURL);
    }
    get hasRegExpGroups() { return urlPatternOwn(this).hasRegExpGroups; }
    get [Symbol.toStringTag]() { return 'URLPattern'; }
  }
  for (const name of URL_PATTERN_COMPONENTS) {
    Object.defineProperty(URLPattern.prototype, name, {
      get() { return urlPatternOwn(this).components[name].pattern; },
      enumerable: true,
      configurable: true,
    });
  }
  function urlPatternOwn(p) {
    const s = urlPatternState.get(p);
    if (s === undefined) throw new TypeError('Illegal invocation');
    return s;
  }
  // The standard's "match": the result `exec` gives, or null.
  function urlPatternMatch(pattern, input, baseURL) {
    const { components } = urlPatternOwn(pattern);
    const given = urlPatternInput(input);
    // An init's search loses a leading `?` twice, as `workerd` and Node
    // (ada's URLPattern) read it: a `URL` whose search is `??` matches an
    // empty search there (workerd's url-nodejs-test), `?` by the standard.
    const sent = typeof given === 'object' && typeof given.search === 'string' && given.search.startsWith('?')
      ? Object.assign({}, given, { search: given.search.slice(1) }) : given;
    const args = { op: 'match', input: sent };
    // The input as WebIDL converted it: a string, or a new init of its
    // members (a `URL` given is read as one), in `workerd`'s order.
    const inputs = [given];
    if (baseURL !== undefined) {
      args.baseURL = usv(baseURL);
      inputs.push(args.baseURL);
    }
    const values = urlPatternCall(args);
    if (values === null) return null;
    const result = { inputs };
    for (const name of URL_PATTERN_COMPONENTS) {
      const c = components[name];
      const m = c.regexp.exec(values[name]);
      if (m === null) return null;
      const groups = {};
      c.groups.forEach((g, i) => { groups[g] = m[i + 1]; });
      result[name] = { input: values[name], groups };
    }
    return result;
  }
  defineMissing('URLPattern', URLPattern);
