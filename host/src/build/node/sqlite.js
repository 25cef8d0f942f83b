// `node:sqlite`, as on `workerd`: the classes exist and cannot be made
// (`new` throws `TypeError: Illegal constructor`, as there: a Worker opens
// no database file); `backup` and `constants` come from workerd's data
// (node.rs).
export class DatabaseSync {
  constructor() {
    throw new TypeError('Illegal constructor');
  }
}

export class StatementSync {
  constructor() {
    throw new TypeError('Illegal constructor');
  }
}

export default { DatabaseSync, StatementSync };
