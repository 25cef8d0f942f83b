//! D1: `env.X` of each database the app's wrangler config binds
//! (`d1_databases`), a `D1Database` whose statements the host runs on the
//! tenant's own SQLite database, through the engine's wait like a request.
//!
//! Defines: none
//! Host calls: d1
//! Rust: host/src/bindings/d1.rs
//! WPT: none
//! Test plugin: tests/plugins/d1.js
  // ---------------------------------------------------------------- D1
  // Values are bound as D1 binds them (numbers as reals, booleans as 1 and
  // 0, buffers as blobs), refused as D1 refuses them; rows come back as
  // objects (`all`, `first`, `run`) or arrays (`raw`), blobs as arrays of
  // their bytes. The host checks every limit and words SQLite's errors as
  // D1 does (`D1_ERROR: ...: SQLITE_ERROR`).
  const makeD1 = Symbol('d1');
  function d1Param(v) {
    if (v === null) return null;
    switch (typeof v) {
      case 'number':
      case 'string':
        return v;
      case 'boolean':
        return v ? 1 : 0;
      default:
        if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) {
          const bytes = v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
          let text = '';
          for (let i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
          return { blob: g.btoa(text) };
        }
        throw new Error(`D1_TYPE_ERROR: Type '${typeof v}' not supported for value '${String(v)}'`);
    }
  }
  function d1Rows(a) {
    return a.rows.map((row) => {
      const o = {};
      a.columns.forEach((c, i) => {
        o[c] = row[i];
      });
      return o;
    });
  }
  const d1Result = (a) => ({ success: true, meta: a.meta, results: d1Rows(a) });
  // Where a statement runs: its database, or a session of it, which keeps
  // the bookmark of what it last saw.
  async function d1Query(runner, statements, batch) {
    const [answers] = await hostOp('d1', {
      op: 'query',
      binding: runner._binding,
      statements: statements.map((s) => ({ sql: s.statement, params: s._bound })),
      batch,
    });
    if (answers.length > 0) runner._bookmark = answers[answers.length - 1].bookmark;
    return answers;
  }
  class D1PreparedStatement {
    #runner;
    constructor(token, runner, sql, params, bound) {
      if (token !== makeD1) throw new TypeError('Illegal constructor');
      this.#runner = runner;
      this.statement = sql;
      this.params = params;
      Object.defineProperty(this, '_bound', { value: bound });
    }
    bind(...values) {
      return new D1PreparedStatement(makeD1, this.#runner, this.statement, values, values.map(d1Param));
    }
    async #one() {
      return (await d1Query(this.#runner, [this], false))[0];
    }
    async first(column) {
      const a = await this.#one();
      if (a.rows.length === 0) return null;
      const row = d1Rows(a)[0];
      if (column === undefined) return row;
      if (!a.columns.includes(column)) throw new Error(`D1_COLUMN_NOTFOUND: Column not found (${column})`);
      return row[column];
    }
    async all() {
      return d1Result(await this.#one());
    }
    async run() {
      return d1Result(await this.#one());
    }
    async raw(options) {
      const a = await this.#one();
      return options && options.columnNames ? [a.columns, ...a.rows] : a.rows;
    }
  }
  // What a database and its sessions share: statements and batches.
  class D1Runner {
    constructor(binding) {
      Object.defineProperty(this, '_binding', { value: binding });
      Object.defineProperty(this, '_bookmark', { value: null, writable: true });
    }
    prepare(sql) {
      return new D1PreparedStatement(makeD1, this, String(sql), [], []);
    }
    async batch(statements) {
      return (await d1Query(this, Array.from(statements), true)).map(d1Result);
    }
  }
  class D1DatabaseSession extends D1Runner {
    getBookmark() {
      return this._bookmark;
    }
  }
  class D1Database extends D1Runner {
    constructor(token, binding) {
      if (token !== makeD1) throw new TypeError('Illegal constructor');
      super(binding);
    }
    async exec(sql) {
      const [answer] = await hostOp('d1', { op: 'exec', binding: this._binding, sql: String(sql) });
      return answer;
    }
    // A session's reads see at least what its bookmark saw: on one
    // server every read sees every write, so any constraint holds.
    withSession(constraintOrBookmark) {
      const session = new D1DatabaseSession(this._binding);
      if (typeof constraintOrBookmark === 'string' && !constraintOrBookmark.startsWith('first-')) session._bookmark = constraintOrBookmark;
      return session;
    }
    dump() {
      return Promise.reject(new Error('D1_DUMP_ERROR: Database dumps are not supported; use `ssr d1 export`'));
    }
  }
  for (const C of [D1PreparedStatement, D1Database, D1DatabaseSession]) {
    Object.defineProperty(C.prototype, Symbol.toStringTag, { value: C.name, configurable: true });
  }
  const d1Database = (name) => new D1Database(makeD1, name);

