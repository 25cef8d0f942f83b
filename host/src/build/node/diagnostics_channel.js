// `node:diagnostics_channel`: named channels that publish messages to
// their subscribers, synchronously, and tracing channels (start, end,
// asyncStart, asyncEnd, error) around a function's run. Channels live in
// the instance, for as long as a subscriber or a reference holds them.
const channels = new Map();

function checkName(name) {
  if (typeof name !== 'string' && typeof name !== 'symbol') {
    const e = new TypeError(`The "channel" argument must be one of type string or symbol. Received ${name === null ? 'null' : typeof name}`);
    e.code = 'ERR_INVALID_ARG_TYPE';
    throw e;
  }
}

function checkFunction(fn, what) {
  if (typeof fn !== 'function') {
    const e = new TypeError(`The "${what}" argument must be of type function. Received ${fn === null ? 'null' : typeof fn}`);
    e.code = 'ERR_INVALID_ARG_TYPE';
    throw e;
  }
}

function subscribed(channel) {
  return channel._subscribers.length > 0 || channel._stores.size > 0;
}

function tracingSubscribed(tracing) {
  return EVENTS.some((event) => subscribed(tracing[event]));
}

export class Channel {
  constructor(name) {
    checkName(name);
    this.name = name;
    this._subscribers = [];
    this._stores = new Map();
  }

  get hasSubscribers() {
    return subscribed(this);
  }

  subscribe(subscription) {
    checkFunction(subscription, 'subscription');
    this._subscribers = [...this._subscribers, subscription];
  }

  unsubscribe(subscription) {
    const i = this._subscribers.indexOf(subscription);
    if (i === -1) return false;
    this._subscribers = [...this._subscribers.slice(0, i), ...this._subscribers.slice(i + 1)];
    return true;
  }

  // A subscriber that throws is reported, as an uncaught error, and the
  // others still get the message.
  publish(data) {
    for (const subscriber of this._subscribers) {
      try {
        subscriber(data, this.name);
      } catch (e) {
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }

  bindStore(store, transform) {
    this._stores.set(store, transform);
  }

  unbindStore(store) {
    return this._stores.delete(store);
  }

  // Runs `fn` with each bound store set to its transform of `data`,
  // publishing `data` first.
  runStores(data, fn, thisArg, ...args) {
    let run = () => {
      this.publish(data);
      return Reflect.apply(fn, thisArg, args);
    };
    for (const [store, transform] of this._stores) {
      const inner = run;
      run = () => store.run(transform === undefined ? data : transform(data), inner);
    }
    return run();
  }
}

export function channel(name) {
  checkName(name);
  let c = channels.get(name);
  if (c === undefined) {
    c = new Channel(name);
    channels.set(name, c);
  }
  return c;
}

export function hasSubscribers(name) {
  checkName(name);
  const c = channels.get(name);
  return c !== undefined && subscribed(c);
}

export function subscribe(name, subscription) {
  channel(name).subscribe(subscription);
}

export function unsubscribe(name, subscription) {
  const c = channels.get(name);
  return c !== undefined && c.unsubscribe(subscription);
}

const EVENTS = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'];

export class TracingChannel {
  constructor(nameOrChannels) {
    for (const event of EVENTS) {
      this[event] = typeof nameOrChannels === 'string'
        ? channel(`tracing:${nameOrChannels}:${event}`)
        : nameOrChannels[event];
    }
  }

  get hasSubscribers() {
    return tracingSubscribed(this);
  }

  subscribe(handlers) {
    for (const event of EVENTS) if (handlers[event]) this[event].subscribe(handlers[event]);
  }

  unsubscribe(handlers) {
    let done = true;
    for (const event of EVENTS) if (handlers[event] && !this[event].unsubscribe(handlers[event])) done = false;
    return done;
  }

  // Runs `body` between the start and end events, its error an error
  // event.
  _traced(context, body) {
    return this.start.runStores(context, () => {
      try {
        return body();
      } catch (e) {
        context.error = e;
        this.error.publish(context);
        throw e;
      } finally {
        this.end.publish(context);
      }
    });
  }

  traceSync(fn, context = {}, thisArg, ...args) {
    if (!tracingSubscribed(this)) return Reflect.apply(fn, thisArg, args);
    return this._traced(context, () => {
      context.result = Reflect.apply(fn, thisArg, args);
      return context.result;
    });
  }

  tracePromise(fn, context = {}, thisArg, ...args) {
    if (!tracingSubscribed(this)) return Reflect.apply(fn, thisArg, args);
    const rejected = (e) => {
      context.error = e;
      this.error.publish(context);
      this.asyncStart.publish(context);
      this.asyncEnd.publish(context);
      return Promise.reject(e);
    };
    const resolved = (result) => {
      context.result = result;
      this.asyncStart.publish(context);
      this.asyncEnd.publish(context);
      return result;
    };
    return this._traced(context, () => Promise.resolve(Reflect.apply(fn, thisArg, args)).then(resolved, rejected));
  }

  traceCallback(fn, position = -1, context = {}, thisArg, ...args) {
    if (!tracingSubscribed(this)) return Reflect.apply(fn, thisArg, args);
    const at = position < 0 ? args.length + position : position;
    const callback = args[at];
    checkFunction(callback, 'callback');
    const tracing = this;
    args[at] = function (err, result) {
      if (err) {
        context.error = err;
        tracing.error.publish(context);
      } else {
        context.result = result;
      }
      return tracing.asyncStart.runStores(context, () => {
        try {
          return Reflect.apply(callback, this, arguments);
        } finally {
          tracing.asyncEnd.publish(context);
        }
      });
    };
    return this.traceSync(fn, context, thisArg, ...args);
  }
}

export function tracingChannel(nameOrChannels) {
  return new TracingChannel(nameOrChannels);
}

// `hasSubscribers` is a getter, as `workerd` has it since 2026-05-19, or
// a method for an app whose compatibility date is older or that sets
// `no_diagnostics_channel_has_subscribers_getter` (`ssr build` defines
// `__SSR_COMPAT__` from the app's config: build/wrangler.rs).
if (typeof __SSR_COMPAT__ !== 'undefined' && __SSR_COMPAT__.diagnostics_channel_has_subscribers_getter === false) {
  for (const [Class, has] of [[Channel, subscribed], [TracingChannel, tracingSubscribed]]) {
    Object.defineProperty(Class.prototype, 'hasSubscribers', {
      value: { hasSubscribers() { return has(this); } }.hasSubscribers,
      writable: true,
      configurable: true,
    });
  }
}

export default { Channel, channel, hasSubscribers, subscribe, tracingChannel, unsubscribe };
