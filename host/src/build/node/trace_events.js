// `node:trace_events`, as `workerd` has it at today's date: a Worker has
// no trace log, so a `Tracing` may be made, enabled and disabled, and
// records nothing; no category is ever enabled. The options are checked
// as Node checks them, with its errors.
import { codedError, invalidArgType } from './_errors.js';

const state = new WeakMap();

class Tracing {
  constructor(categories) {
    state.set(this, { categories: categories.join(','), enabled: false });
  }

  get enabled() {
    return state.get(this).enabled;
  }

  get categories() {
    return state.get(this).categories;
  }

  enable() {
    state.get(this).enabled = true;
  }

  disable() {
    state.get(this).enabled = false;
  }
}

export function createTracing(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidArgType('options', 'of type object', options);
  }
  const { categories } = options;
  if (!Array.isArray(categories)) throw invalidArgType('options.categories', 'an instance of Array', categories);
  categories.forEach((c, i) => {
    if (typeof c !== 'string') throw invalidArgType(`options.categories[${i}]`, 'of type string', c);
  });
  if (categories.length === 0) throw codedError(TypeError, 'ERR_TRACE_EVENTS_CATEGORY_REQUIRED', 'At least one category is required');
  return new Tracing(categories);
}

export function getEnabledCategories() {
  return undefined;
}

export default { createTracing, getEnabledCategories };
