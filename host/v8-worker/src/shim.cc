// The C++ side of the V8 engine: a small C API over V8 (the V8 of the Node
// 26 binary that loads this addon) that `ffi.rs` declares and wraps in a
// safe Rust type.
//
// What it owns: one `ssr_v8` = one isolate with one context in which the
// web-API prelude and one tenant's bundle have been evaluated. Rust owns the
// `ssr_v8` pointer and frees it with `ssr_v8_free`.
//
// Invariants:
// - Every entry point takes the isolate's `v8::Locker`, so an instance may
//   move between threads, never be used by two at once, and sets the JS
//   stack limit from the calling thread's stack.
// - A render runs under the watchdog: past its deadline the watchdog calls
//   `TerminateExecution`; the render then reports a timeout and cancels the
//   termination. Near the heap limit the isolate gets headroom to unwind, is
//   terminated, and reports out-of-memory. Rust discards the instance after
//   either (the context may hold half-done state). A render still running
//   after its instance's `offer_core_after` (the server's `--demote-after`)
//   is interrupted every 1 ms to offer its core to the kernel
//   (`sched_yield`), the only way a V8 render can step aside mid-script. In
//   a V8 worker process (`ssr_v8_lower_when_contended`) such a render also
//   lowers its own thread, if it began while other renders were in flight
//   and has had less than 3/4 of a core since it started; the thread stays
//   lowered (`ssr_v8_thread_lowered`).
// - A render whose promise waits only for requests in flight answers
//   WAITING and keeps that promise, its timers and its requests in the
//   context, to go on in `ssr_v8_resume`; between the two, no JavaScript
//   runs and the thread is free. Every other outcome drops what the render
//   left scheduled.
// - Strings handed back (`ssr_v8_result`) stay valid until the next call on
//   the same instance.
// - The bundle cannot import anything: static imports fail to link and
//   `import()` rejects, both with a message saying to bundle.
// - Memory outside the V8 heap is capped too: every `ArrayBuffer` (and
//   typed array, `SharedArrayBuffer`) backing store comes from the
//   instance's `QuotaAllocator`, which refuses past the heap limit (V8 then
//   throws a `RangeError` in the script). V8's WebAssembly is off (its
//   global deleted, code generation refused): renderers do not need it,
//   and its memories would be one more kind of memory to account. The
//   prelude's `WebAssembly` (memories as buffers, no code) is in its place.

#include <node.h>
#include <v8.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <string>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;

// Node's platform, which runs V8's background work for every isolate
// (`ssr_v8_init`).
node::MultiIsolatePlatform* g_platform = nullptr;

// An isolate's foreground tasks (V8's own: finishing a garbage collection,
// a memory reducer, a compile's last step). Node's platform would run them
// on an event loop this process never turns, so each isolate is
// registered with its own runner, whose tasks its next call runs once they
// are due (`Enter`'s end), under that call's lock.
class Tasks : public v8::TaskRunner, public node::IsolatePlatformDelegate {
 public:
  bool IdleTasksEnabled() override { return false; }
  bool NonNestableTasksEnabled() const override { return true; }
  bool NonNestableDelayedTasksEnabled() const override { return true; }
  std::shared_ptr<v8::TaskRunner> GetForegroundTaskRunner() override { return self_.lock(); }

  static std::shared_ptr<Tasks> make() {
    auto tasks = std::make_shared<Tasks>();
    tasks->self_ = tasks;
    return tasks;
  }

  // Runs the tasks due now (not those they post: the next call runs them).
  void run_due() {
    std::deque<std::unique_ptr<v8::Task>> due;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (queue_.empty()) return;
      auto now = Clock::now();
      for (auto it = queue_.begin(); it != queue_.end();) {
        if (it->first <= now) {
          due.push_back(std::move(it->second));
          it = queue_.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (auto& task : due) task->Run();
  }

  // Drops what is left (the isolate is going).
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.clear();
  }

 protected:
  void PostTaskImpl(std::unique_ptr<v8::Task> task, const v8::SourceLocation&) override {
    post(std::move(task), 0);
  }
  void PostNonNestableTaskImpl(std::unique_ptr<v8::Task> task, const v8::SourceLocation&) override {
    post(std::move(task), 0);
  }
  void PostDelayedTaskImpl(std::unique_ptr<v8::Task> task, double seconds,
                           const v8::SourceLocation&) override {
    post(std::move(task), seconds);
  }
  void PostNonNestableDelayedTaskImpl(std::unique_ptr<v8::Task> task, double seconds,
                                      const v8::SourceLocation&) override {
    post(std::move(task), seconds);
  }

 private:
  void post(std::unique_ptr<v8::Task> task, double seconds) {
    auto due = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(seconds));
    std::lock_guard<std::mutex> lock(mu_);
    queue_.emplace_back(due, std::move(task));
  }

  std::weak_ptr<Tasks> self_;
  std::mutex mu_;
  std::deque<std::pair<Clock::time_point, std::unique_ptr<v8::Task>>> queue_;
};

// An ArrayBuffer allocator with a quota, over V8's default one. Buffers live
// outside the V8 heap, so its limit does not bound them: without a quota,
// five renders each keeping 512 MB of buffers grew the process by 2.6 GB
// against a 256 MiB cap. Allocations past the quota return null; V8 then
// throws a `RangeError` ("Array buffer allocation failed").
class QuotaAllocator : public v8::ArrayBuffer::Allocator {
 public:
  explicit QuotaAllocator(size_t quota)
      : quota_(quota), inner_(v8::ArrayBuffer::Allocator::NewDefaultAllocator()) {}
  ~QuotaAllocator() override { delete inner_; }

  void* Allocate(size_t n) override { return granted(n) ? kept(inner_->Allocate(n), n) : nullptr; }
  void* AllocateUninitialized(size_t n) override {
    return granted(n) ? kept(inner_->AllocateUninitialized(n), n) : nullptr;
  }
  void Free(void* data, size_t n) override {
    inner_->Free(data, n);
    used_.fetch_sub(n);
  }

  // Whether a buffer was refused since the last call (and forgets it).
  bool refused() { return refused_.exchange(false); }

 private:
  // Takes `n` bytes of the quota, or nothing when they do not fit.
  bool granted(size_t n) {
    size_t now = used_.load();
    do {
      if (n > quota_ || now > quota_ - n) {
        refused_.store(true);
        return false;
      }
    } while (!used_.compare_exchange_weak(now, now + n));
    return true;
  }
  // Gives the bytes back when the inner allocator failed.
  void* kept(void* data, size_t n) {
    if (data == nullptr) used_.fetch_sub(n);
    return data;
  }

  const size_t quota_;
  std::atomic<size_t> used_{0};
  std::atomic<bool> refused_{false};
  v8::ArrayBuffer::Allocator* inner_;
};

bool refuse_wasm_codegen(v8::Local<v8::Context>, v8::Local<v8::String>) { return false; }

}  // namespace

extern "C" {

typedef void (*ssr_v8_log_fn)(void* data, int32_t level, const char* msg, size_t len);

// What a host capability returned; the buffers are the host's, valid until
// its next call.
struct ssr_v8_reply {
  const char* value;
  size_t value_len;
  const uint8_t* data;
  size_t data_len;
};

// Calls the host capability `name` (the contract's `host.call`): returns 1
// with the reply in `out`, or 0 with the refusal's message in `out->value`.
typedef int32_t (*ssr_v8_call_fn)(void* data, const char* name, size_t name_len, const char* args,
                                  size_t args_len, const uint8_t* bytes, size_t bytes_len,
                                  ssr_v8_reply* out);

// Outcome codes, mirrored in ffi.rs.
enum {
  SSR_V8_OK = 0,         // `body` holds the body; `meta` the rest of the response as JSON
  SSR_V8_JS_ERROR = 1,   // `meta` holds describe()'s {kind, message, stack} as JSON
  SSR_V8_TIMEOUT = 2,
  SSR_V8_OOM = 3,
  // The render waits for requests in flight, at most `wait_ms` (-1: no
  // bound); `ssr_v8_resume` goes on with the host's `fetch-wait` reply.
  SSR_V8_WAITING = 4,
};

struct ssr_v8_result {
  int32_t outcome;
  const char* body;
  size_t body_len;
  const char* meta;
  size_t meta_len;
  int64_t wait_ms;
};

}  // extern "C"

struct ssr_v8;

namespace {

// One thread for every instance in the process: it sleeps until the earliest
// armed deadline and terminates that isolate's execution.
class Watchdog {
 public:
  static Watchdog& get() {
    static Watchdog* w = new Watchdog();  // never destroyed: threads may still use it at exit
    return *w;
  }

  // Arms `inst` until the calling thread has used `cpu` of CPU time, or
  // until `deadline`, whichever comes first; returns a ticket for `disarm`.
  uint64_t arm(ssr_v8* inst, Clock::duration cpu, Clock::time_point deadline);
  // Disarms; after it returns the watchdog no longer touches `inst`.
  void disarm(uint64_t ticket);

 private:
  Watchdog() { std::thread([this] { run(); }).detach(); }
  void run();

  struct Entry {
    ssr_v8* inst;
    // When to look next: at `hard`, or when the CPU time could be used up
    // (a thread uses at most one second of CPU per second).
    Clock::time_point deadline;
    // The wall-clock deadline, whatever the CPU time.
    Clock::time_point hard;
    // The calling thread's CPU clock, and its reading at which the CPU
    // time is used up (nanoseconds).
    clockid_t cpu_clock;
    int64_t cpu_end;
    // When the render next offers its core (max: never; see `offer_every`).
    Clock::time_point yield;
    // Terminated, and watched for `g_stuck_grace` more in a worker process.
    bool terminated = false;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, Entry> armed_;
  uint64_t next_ = 1;
  // When the watchdog thread wakes next (max: not until notified). Arming a
  // later deadline need not wake it: one wake-up per deadline period, not one
  // per render.
  Clock::time_point wake_ = Clock::time_point::max();
};

}  // namespace

struct ssr_v8 {
  v8::Isolate* isolate = nullptr;
  std::shared_ptr<Tasks> tasks;
  QuotaAllocator* allocator = nullptr;
  v8::Global<v8::Context> context;
  v8::Global<v8::Object> driver;   // the prelude's __ssr
  // The driver's functions a render calls, looked up once at load.
  v8::Global<v8::Function> call_fn, next_timer_fn, reset_fn, arrived_fn;
  // The promise of a render waiting for requests in flight (between
  // `ssr_v8_render` or `ssr_v8_resume` answering WAITING and the next
  // `ssr_v8_resume`), and how long it may wait.
  v8::Global<v8::Promise> pending;
  int64_t wait_ms = -1;
  // The host's side of `__ssr_log` and `__ssr_host`, and their data.
  ssr_v8_log_fn log = nullptr;
  ssr_v8_call_fn call = nullptr;
  void* host_data = nullptr;
  size_t stack_bytes = 0;
  // A call still running this long after it started offers its core every
  // `offer_every`; zero: never.
  Clock::duration offer_core_after{};
  Clock::duration offer_every{};
  // An offer was requested and has not run yet, and when the last one ended
  // (`Clock` ticks): the watchdog requests the next only once the render has
  // had `offer_every` back since.
  std::atomic<bool> offer_pending{false};
  std::atomic<Clock::rep> offer_ended{0};
  // When the call running now started, on the wall clock and on its
  // thread's CPU clock (ns): what an offer judges contention by.
  Clock::time_point call_started{};
  int64_t call_cpu_started = 0;
  // Whether the call running now may lower its thread: a render's or a
  // resume's, begun while other renders were in flight.
  bool call_may_lower = false;
  // Set by the watchdog (under its lock) and the heap callback.
  std::atomic<bool> timed_out{false};
  std::atomic<bool> out_of_memory{false};
  // Outputs of the last call.
  std::string body;
  std::string meta;
};

namespace {

// A call still running `offer_core_after` after it started offers its core
// to any waiting thread every `offer_every` (an interrupt that calls
// `sched_yield`): V8 cannot yield mid-script to our scheduler, but it can to
// the kernel's. Both come from the host's scheduling policy (`sched.rs`).

// Offers made in this process (`ssr_v8_core_offers`).
std::atomic<uint64_t> g_core_offers{0};

// In a V8 worker process (`ssr_v8_end_when_stuck`): how long a terminated
// call may go on, in CPU and in wall-clock time, before the process ends
// itself. `TerminateExecution` does not reach inside a C++ builtin (a 4 GB
// `fill`); in the server's own process nothing may end it (negative).
std::atomic<int64_t> g_stuck_grace_ns{-1};

// In a V8 worker process (`ssr_v8_lower_when_contended`): the nice value an
// offering render's thread goes to when it has been sharing its core; -1:
// never (in the server's own process, its watch lowers threads).
std::atomic<int> g_lower_to{-1};

// Whether this thread went to `g_lower_to`: only `CAP_SYS_NICE` could raise
// it again, so the worker replaces it after its call.
thread_local bool t_lowered = false;

void offer_core(v8::Isolate*, void* data);

// Asks `inst` to offer its core, unless an offer is still pending or the last
// one ended less than `offer_every` ago; returns when to look again.
Clock::time_point request_offer(ssr_v8* inst, Clock::time_point now) {
  const auto every = inst->offer_every;
  if (inst->offer_pending.load(std::memory_order_acquire)) return now + every;
  auto ended = Clock::time_point(Clock::duration(inst->offer_ended.load(std::memory_order_relaxed)));
  if (now < ended + every) return ended + every;
  inst->offer_pending.store(true, std::memory_order_relaxed);
  inst->isolate->RequestInterrupt(offer_core, inst);
  return now + every;
}

// Nanoseconds on `clock`, a thread's CPU clock.
int64_t cpu_now(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

uint64_t Watchdog::arm(ssr_v8* inst, Clock::duration cpu, Clock::time_point hard) {
  clockid_t clock;
  if (pthread_getcpuclockid(pthread_self(), &clock) != 0) clock = CLOCK_THREAD_CPUTIME_ID;
  inst->call_started = Clock::now();
  inst->call_cpu_started = cpu_now(clock);
  int64_t cpu_end = inst->call_cpu_started + std::chrono::duration_cast<std::chrono::nanoseconds>(cpu).count();
  auto deadline = std::min(hard, Clock::now() + cpu);
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t ticket = next_++;
  auto yield = inst->offer_core_after == Clock::duration::zero()
                   ? Clock::time_point::max()
                   : std::min(deadline, Clock::now() + inst->offer_core_after);
  armed_.emplace(ticket, Entry{inst, deadline, hard, clock, cpu_end, yield});
  auto first = std::min(deadline, yield);
  if (first < wake_) {
    wake_ = first;
    cv_.notify_one();
  }
  return ticket;
}

void Watchdog::disarm(uint64_t ticket) {
  std::lock_guard<std::mutex> lock(mu_);
  armed_.erase(ticket);
}

void Watchdog::run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (armed_.empty()) {
      wake_ = Clock::time_point::max();
      cv_.wait(lock);
      continue;
    }
    auto now = Clock::now();
    auto earliest = Clock::time_point::max();
    for (auto it = armed_.begin(); it != armed_.end();) {
      if (it->second.deadline <= now && it->second.hard > now) {
        // Its CPU time may be left: the thread waited for a core.
        int64_t left = it->second.cpu_end - cpu_now(it->second.cpu_clock);
        if (left > 0) it->second.deadline = std::min(it->second.hard, now + std::chrono::nanoseconds(left));
      }
      const int64_t grace = g_stuck_grace_ns.load(std::memory_order_relaxed);
      if (it->second.deadline <= now && it->second.terminated) {
        fprintf(stderr,
                "ssr v8-worker: a render went on %lld ms past its termination (inside a builtin); "
                "the process ends\n",
                (long long)(grace / 1000000));
        fflush(stderr);
        _exit(3);
      } else if (it->second.deadline <= now) {
        // Under the lock: `disarm` cannot return while this runs, so a
        // termination never reaches a later render of the instance.
        it->second.inst->timed_out = true;
        it->second.inst->isolate->TerminateExecution();
        if (grace < 0) {
          it = armed_.erase(it);
          continue;
        }
        // `grace` of its own CPU time, as the deadline counts it (a thread
        // waiting for a core is not stuck), and ten times that of wall-clock
        // time at most.
        auto more = std::chrono::nanoseconds(grace);
        it->second.terminated = true;
        it->second.cpu_end = cpu_now(it->second.cpu_clock) + grace;
        it->second.hard = now + 10 * more;
        it->second.deadline = now + more;
        it->second.yield = Clock::time_point::max();
        earliest = std::min(earliest, it->second.deadline);
        ++it;
      } else {
        // Under the lock, like the termination above.
        if (it->second.yield <= now) it->second.yield = request_offer(it->second.inst, now);
        earliest = std::min(earliest, std::min(it->second.deadline, it->second.yield));
        ++it;
      }
    }
    wake_ = earliest;
    if (earliest != Clock::time_point::max()) cv_.wait_until(lock, earliest);
  }
}

// V8 runs every interrupt queued before it returns to the script, so if a
// yield took longer than `offer_every` (it may, when other threads want the
// core) and the watchdog queued the next offer meanwhile, the render would
// never run again until its deadline: it did, under three busy loops. Hence
// one offer at a time, and `offer_every` of the render's own between offers.
//
// In a worker process, an offering render that began while other renders
// were in flight and whose thread had less than 3/4 of a core since the call
// started (they want the cores: alone, a long render keeps its priority)
// lowers its thread, as the server's watch lowers
// its own threads: the process's other lanes, the server and its other
// processes then get the cores first. Only to `g_lower_to` itself, which the
// worker's system-call filter allows and nothing else.
void offer_core(v8::Isolate*, void* data) {
  auto* inst = static_cast<ssr_v8*>(data);
  g_core_offers.fetch_add(1, std::memory_order_relaxed);
  const int to = g_lower_to.load(std::memory_order_relaxed);
  if (to >= 0 && inst->call_may_lower && !t_lowered) {
    const int64_t wall = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - inst->call_started).count();
    const int64_t cpu = cpu_now(CLOCK_THREAD_CPUTIME_ID) - inst->call_cpu_started;
    if (4 * cpu < 3 * wall && setpriority(PRIO_PROCESS, 0, to) == 0) t_lowered = true;
  }
  sched_yield();
  inst->offer_ended.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  inst->offer_pending.store(false, std::memory_order_release);
}

// Everything a call into the isolate needs, in the order V8 wants it.
struct Enter {
  explicit Enter(ssr_v8* inst)
      : locker(inst->isolate), isolate_scope(inst->isolate), handles(inst->isolate) {
    // V8 checks the JS stack against an absolute address: set it from this
    // thread's stack, which may not be the thread that made the isolate.
    char here;
    inst->isolate->SetStackLimit(reinterpret_cast<uintptr_t>(&here) - inst->stack_bytes);
  }
  v8::Locker locker;
  v8::Isolate::Scope isolate_scope;
  v8::HandleScope handles;
};

v8::Local<v8::String> str(v8::Isolate* iso, const char* s, size_t len) {
  return v8::String::NewFromUtf8(iso, s, v8::NewStringType::kNormal, static_cast<int>(len))
      .ToLocalChecked();
}

v8::Local<v8::String> str(v8::Isolate* iso, const char* s) { return str(iso, s, strlen(s)); }

// A property name: internalized, so a lookup compares it by address.
v8::Local<v8::String> key(v8::Isolate* iso, const char* name) {
  return v8::String::NewFromUtf8(iso, name, v8::NewStringType::kInternalized).ToLocalChecked();
}

// The driver's function `name`, or nothing (with an exception pending).
bool driver_fn(v8::Local<v8::Context> ctx, v8::Local<v8::Object> driver, const char* name,
               v8::Global<v8::Function>* out) {
  v8::Isolate* iso = v8::Isolate::GetCurrent();
  v8::Local<v8::Value> f;
  if (!driver->Get(ctx, key(iso, name)).ToLocal(&f) || !f->IsFunction()) return false;
  out->Reset(iso, f.As<v8::Function>());
  return true;
}

bool ascii(const std::string& s) {
  unsigned char any = 0;
  for (unsigned char c : s) any |= c;
  return any < 0x80;
}

void utf8(v8::Isolate* iso, v8::Local<v8::String> s, std::string* out) {
  // Most pages are ASCII, whose UTF-8 is their bytes, though V8 often holds
  // them as two-byte strings. Checking that, one copy straight from a
  // concatenation's pieces and a scan cost far less than V8 10.2's
  // Utf8Length (which first flattens the string into a new one) and then
  // WriteUtf8. (A two-byte string must be checked before WriteOneByte, which
  // would keep only each character's low byte.)
  if (s->IsOneByte() || s->ContainsOnlyOneByte()) {
    out->resize(s->Length());
    s->WriteOneByteV2(iso, 0, static_cast<uint32_t>(out->size()),
                      reinterpret_cast<uint8_t*>(out->data()));
    if (ascii(*out)) return;
  }
  out->resize(s->Utf8LengthV2(iso));
  s->WriteUtf8V2(iso, out->data(), out->size(), v8::String::WriteFlags::kReplaceInvalidUtf8);
}

void set_result(ssr_v8* inst, ssr_v8_result* out, int32_t outcome) {
  out->outcome = outcome;
  out->body = inst->body.data();
  out->body_len = inst->body.size();
  out->meta = inst->meta.data();
  out->meta_len = inst->meta.size();
  out->wait_ms = inst->wait_ms;
}

// JSON of {kind, message, stack} for a caught exception, through the prelude's
// `describe` when it exists.
void describe(ssr_v8* inst, v8::Local<v8::Context> ctx, v8::Local<v8::Value> reason) {
  v8::Isolate* iso = inst->isolate;
  v8::TryCatch inner(iso);
  if (!inst->driver.IsEmpty()) {
    v8::Local<v8::Object> driver = inst->driver.Get(iso);
    v8::Local<v8::Value> f;
    v8::Local<v8::Value> described;
    v8::Local<v8::String> json;
    if (driver->Get(ctx, str(iso, "describe")).ToLocal(&f) && f->IsFunction() &&
        f.As<v8::Function>()->Call(ctx, driver, 1, &reason).ToLocal(&described) &&
        v8::JSON::Stringify(ctx, described).ToLocal(&json)) {
      utf8(iso, json, &inst->meta);
      return;
    }
  }
  // Before the prelude exists: the exception's own text.
  v8::Local<v8::Object> o = v8::Object::New(iso);
  v8::Local<v8::String> text;
  if (!reason->ToString(ctx).ToLocal(&text)) text = str(iso, "an exception that cannot be shown");
  (void)o->Set(ctx, str(iso, "kind"), str(iso, "exception"));
  (void)o->Set(ctx, str(iso, "message"), text);
  v8::Local<v8::String> json;
  if (v8::JSON::Stringify(ctx, o).ToLocal(&json)) {
    utf8(iso, json, &inst->meta);
  } else {
    inst->meta = "{\"kind\":\"exception\",\"message\":\"unknown error\"}";
  }
}

void js_error(ssr_v8* inst, v8::Local<v8::Context> ctx, v8::TryCatch& tc, const char* fallback) {
  if (tc.HasCaught() && !tc.HasTerminated()) {
    describe(inst, ctx, tc.Exception());
  } else {
    describe(inst, ctx, v8::Exception::Error(str(inst->isolate, fallback)));
  }
}

// The outcome of an interrupted or failed call: a timeout or out-of-memory
// wins over the exception it caused.
int32_t failure(ssr_v8* inst, v8::Local<v8::Context> ctx, v8::TryCatch& tc, const char* fallback) {
  if (inst->out_of_memory) return SSR_V8_OOM;
  if (inst->timed_out || tc.HasTerminated()) return SSR_V8_TIMEOUT;
  js_error(inst, ctx, tc, fallback);
  return SSR_V8_JS_ERROR;
}

void log_callback(const v8::FunctionCallbackInfo<v8::Value>& args) {
  v8::Isolate* iso = args.GetIsolate();
  auto* inst = static_cast<ssr_v8*>(args.Data().As<v8::External>()->Value());
  int32_t level = args.Length() > 0 ? args[0]->Int32Value(iso->GetCurrentContext()).FromMaybe(1) : 1;
  std::string msg;
  v8::Local<v8::String> s;
  if (args.Length() > 1 && args[1]->ToString(iso->GetCurrentContext()).ToLocal(&s)) utf8(iso, s, &msg);
  if (inst->log) inst->log(inst->host_data, level, msg.data(), msg.size());
}

// `__ssr_promise_hooks(init, before, after)`: V8's promise hooks for this
// context, through which the prelude carries AsyncLocalStorage's frame
// across `await` (its "async context"; the Wasm engine's bundle has its
// async functions lowered instead).
void promise_hooks_callback(const v8::FunctionCallbackInfo<v8::Value>& args) {
  v8::Isolate* iso = args.GetIsolate();
  if (args.Length() < 3 || !args[0]->IsFunction() || !args[1]->IsFunction() || !args[2]->IsFunction()) {
    iso->ThrowException(v8::Exception::TypeError(str(iso, "__ssr_promise_hooks needs three functions")));
    return;
  }
  iso->GetCurrentContext()->SetPromiseHooks(args[0].As<v8::Function>(), args[1].As<v8::Function>(),
                                            args[2].As<v8::Function>(), v8::Local<v8::Function>());
}

void free_quota_bytes(void* data, size_t n, void* allocator) {
  static_cast<v8::ArrayBuffer::Allocator*>(allocator)->Free(data, n);
}

// A Uint8Array holding a copy of `len` bytes, taken from the tenant's
// buffer quota; empty with a RangeError thrown when the quota is spent (a
// failed `ArrayBuffer::New` would abort the process instead).
v8::MaybeLocal<v8::Uint8Array> bytes_in_quota(ssr_v8* inst, const uint8_t* bytes, size_t len) {
  v8::Isolate* iso = inst->isolate;
  void* data = len ? inst->allocator->AllocateUninitialized(len) : nullptr;
  if (len && data == nullptr) {
    iso->ThrowException(v8::Exception::RangeError(str(iso, "Array buffer allocation failed")));
    return {};
  }
  if (len) memcpy(data, bytes, len);
  std::shared_ptr<v8::BackingStore> store = v8::ArrayBuffer::NewBackingStore(data, len, free_quota_bytes, inst->allocator);
  v8::Local<v8::ArrayBuffer> buffer = v8::ArrayBuffer::New(iso, store);
  return v8::Uint8Array::New(buffer, 0, len);
}

// `__ssr_host(name, args, bytes?)`: `[true, value, Uint8Array]`, or
// `[false, message]` when the host refused. The reply's bytes are taken from
// the tenant's buffer quota; past it the call throws a `RangeError`, as
// `new Uint8Array(n)` would.
void host_callback(const v8::FunctionCallbackInfo<v8::Value>& args) {
  v8::Isolate* iso = args.GetIsolate();
  v8::Local<v8::Context> ctx = iso->GetCurrentContext();
  auto* inst = static_cast<ssr_v8*>(args.Data().As<v8::External>()->Value());
  std::string name, call_args, bytes;
  v8::Local<v8::String> s;
  if (args.Length() > 0 && args[0]->ToString(ctx).ToLocal(&s)) utf8(iso, s, &name);
  if (args.Length() > 1 && args[1]->ToString(ctx).ToLocal(&s)) utf8(iso, s, &call_args);
  if (args.Length() > 2 && args[2]->IsArrayBufferView()) {
    v8::Local<v8::ArrayBufferView> view = args[2].As<v8::ArrayBufferView>();
    bytes.resize(view->ByteLength());
    view->CopyContents(bytes.data(), bytes.size());
  }
  ssr_v8_reply reply{};
  int32_t ok = inst->call(inst->host_data, name.data(), name.size(), call_args.data(), call_args.size(),
                          reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &reply);
  v8::Local<v8::Array> out = v8::Array::New(iso);
  (void)out->Set(ctx, 0, v8::Boolean::New(iso, ok != 0));
  (void)out->Set(ctx, 1, str(iso, reply.value, reply.value_len));
  if (ok) {
    v8::Local<v8::Uint8Array> data;
    if (!bytes_in_quota(inst, reply.data, reply.data_len).ToLocal(&data)) return;
    (void)out->Set(ctx, 2, data);
  }
  args.GetReturnValue().Set(out);
}

v8::MaybeLocal<v8::Module> refuse_import(v8::Local<v8::Context> ctx, v8::Local<v8::String> specifier,
                                         v8::Local<v8::FixedArray>, v8::Local<v8::Module>) {
  v8::Isolate* iso = v8::Isolate::GetCurrent();
  v8::String::Utf8Value name(iso, specifier);
  std::string msg = std::string("cannot import \"") + (*name ? *name : "?") +
                    "\": a plugin is one self-contained bundle; build it with `ssr build`, which bundles imports with esbuild";
  iso->ThrowException(v8::Exception::Error(str(iso, msg.c_str())));
  return {};
}

v8::MaybeLocal<v8::Promise> refuse_dynamic_import(v8::Local<v8::Context> ctx, v8::Local<v8::Data>,
                                                  v8::Local<v8::Value>, v8::Local<v8::String> specifier,
                                                  v8::Local<v8::FixedArray>) {
  v8::Isolate* iso = v8::Isolate::GetCurrent();
  v8::String::Utf8Value name(iso, specifier);
  std::string msg = std::string("Cannot find module '") + (*name ? *name : "?") +
                    "': a plugin has no modules to import at run time";
  v8::Local<v8::Promise::Resolver> r;
  if (!v8::Promise::Resolver::New(ctx).ToLocal(&r)) return {};
  (void)r->Reject(ctx, v8::Exception::Error(str(iso, msg.c_str())));
  return r->GetPromise();
}

size_t near_heap_limit(void* data, size_t current, size_t) {
  auto* inst = static_cast<ssr_v8*>(data);
  // V8 14 also asks here when a buffer the quota refused could not be had
  // after a collection: that is a `RangeError` for the script (V8 throws
  // it when the limit stays), not the heap's end, unless the heap is near
  // its end too.
  if (inst->allocator->refused()) {
    v8::HeapStatistics stats;
    inst->isolate->GetHeapStatistics(&stats);
    if (stats.used_heap_size() < current / 4 * 3) return current;
  }
  inst->out_of_memory = true;
  inst->isolate->TerminateExecution();
  // Room to unwind the terminated script; the instance is then discarded.
  return current + current / 2 + (16u << 20);
}

// How `settle` ended.
enum class Settled { Yes, Failed, Never, Waiting };

// Drives microtasks and timers until `promise` settles, the way the Wasm
// runtime does: microtasks first, then the earliest virtual timer. Failed:
// an exception or termination is in `tc`. Waiting: only requests in flight
// are left, and `runNextTimer` said how long to wait (`inst->wait_ms`).
Settled settle(ssr_v8* inst, v8::Local<v8::Context> ctx, v8::Local<v8::Promise> promise, v8::TryCatch& tc) {
  v8::Isolate* iso = inst->isolate;
  v8::Local<v8::Object> driver = inst->driver.Get(iso);
  v8::Local<v8::Function> next_timer = inst->next_timer_fn.Get(iso);
  for (;;) {
    iso->PerformMicrotaskCheckpoint();
    if (tc.HasCaught() || iso->IsExecutionTerminating() || inst->timed_out || inst->out_of_memory) {
      return Settled::Failed;
    }
    if (promise->State() != v8::Promise::kPending) return Settled::Yes;
    v8::Local<v8::Value> fired;
    if (!next_timer->Call(ctx, driver, 0, nullptr).ToLocal(&fired)) return Settled::Failed;
    if (fired->IsNumber()) {
      inst->wait_ms = static_cast<int64_t>(fired.As<v8::Number>()->Value());
      return Settled::Waiting;
    }
    if (!fired->BooleanValue(iso)) return Settled::Never;
  }
}

void reset_timers(ssr_v8* inst, v8::Local<v8::Context> ctx) {
  v8::Isolate* iso = inst->isolate;
  if (inst->reset_fn.IsEmpty() || iso->IsExecutionTerminating()) return;
  v8::TryCatch tc(iso);
  (void)inst->reset_fn.Get(iso)->Call(ctx, inst->driver.Get(iso), 0, nullptr);
}

const char* NEVER_SETTLED =
    "{\"kind\":\"never-settled\",\"message\":\"the promise returned by render() can never settle: no job, "
    "timer or message is left that could settle it\"}";

// One call into the isolate: enters it, runs `body(iso, ctx, tc)` under the
// watchdog, turns a termination into a timeout or out-of-memory, drops the
// timers the call left, and fills `out`.
// `may_lower`: the call may lower its thread when it offers its core (a
// render begun while others were in flight, `ssr_v8_render` and
// `ssr_v8_resume`); making the isolate never does.
template <typename F>
int32_t call(ssr_v8* inst, uint32_t cpu_ms, uint32_t deadline_ms, ssr_v8_result* out, bool may_lower, F body) {
  inst->call_may_lower = may_lower;
  inst->body.clear();
  inst->meta.clear();
  Enter enter(inst);
  v8::Isolate* iso = inst->isolate;
  // V8's own tasks that came due since the last call, outside this one's
  // time.
  inst->tasks->run_due();
  v8::Local<v8::Context> ctx = inst->context.Get(iso);
  v8::Context::Scope scope(ctx);
  v8::TryCatch tc(iso);
  inst->timed_out = false;
  uint64_t ticket = Watchdog::get().arm(inst, std::chrono::milliseconds(cpu_ms),
                                        Clock::now() + std::chrono::milliseconds(deadline_ms));
  int32_t outcome = body(iso, ctx, tc);
  Watchdog::get().disarm(ticket);
  if (inst->timed_out || inst->out_of_memory || iso->IsExecutionTerminating()) {
    iso->CancelTerminateExecution();
    outcome = inst->out_of_memory ? SSR_V8_OOM : SSR_V8_TIMEOUT;
  }
  // Nothing scheduled by this render may run during the next one; a render
  // that waits keeps its timers and requests for `ssr_v8_resume`.
  if (outcome != SSR_V8_WAITING) {
    inst->pending.Reset();
    inst->wait_ms = -1;
    reset_timers(inst, ctx);
  }
  set_result(inst, out, outcome);
  return outcome;
}

int32_t finish(ssr_v8* inst, v8::Local<v8::Context> ctx, v8::TryCatch& tc, v8::Local<v8::Promise> p);

// Compiles and runs a classic script named `name`; false with the
// exception in the caller's TryCatch.
bool run_script(v8::Isolate* iso, v8::Local<v8::Context> ctx, const char* src, size_t len, const char* name) {
  v8::ScriptOrigin origin(str(iso, name));
  v8::Local<v8::Script> script;
  v8::Local<v8::Value> ignored;
  return v8::Script::Compile(ctx, str(iso, src, len), &origin).ToLocal(&script) && script->Run(ctx).ToLocal(&ignored);
}

}  // namespace

extern "C" {

// Once per process, on the thread that loaded the addon (Node's main
// thread, inside the addon's initializer) and before any other call: takes
// the platform Node made. V8's flags are Node's command line
// (`ssr::engine::v8::process`): V8 14 freezes them once it has started.
// Returns 0, or 1 when the V8 running is not the one the shim was built
// for (another Node major).
int32_t ssr_v8_init(void) {
  const char* running = v8::V8::GetVersion();
  char built[32];
  snprintf(built, sizeof built, "%d.%d.", V8_MAJOR_VERSION, V8_MINOR_VERSION);
  if (strncmp(running, built, strlen(built)) != 0) {
    fprintf(stderr, "ssr v8-worker: built for V8 %s*, running in V8 %s\n", built, running);
    return 1;
  }
  v8::Isolate* main = v8::Isolate::GetCurrent();
  node::Environment* env = main == nullptr ? nullptr : node::GetCurrentEnvironment(main->GetCurrentContext());
  g_platform = env == nullptr ? nullptr : node::GetMultiIsolatePlatform(env);
  if (g_platform == nullptr) {
    fprintf(stderr, "ssr v8-worker: not loaded by node as an addon (no Node platform)\n");
    return 1;
  }
  return 0;
}

// A new isolate and context with `__ssr_log`, `__ssr_host`,
// and `__ssr_promise_hooks` defined,
// calling `log` and `call` with `host_data`. Never null.
ssr_v8* ssr_v8_new(size_t heap_limit, size_t stack_bytes, uint32_t offer_core_after_ms,
                   uint32_t offer_every_us, ssr_v8_log_fn log, ssr_v8_call_fn call, void* host_data) {
  auto* inst = new ssr_v8();
  inst->log = log;
  inst->call = call;
  inst->host_data = host_data;
  inst->stack_bytes = stack_bytes;
  inst->offer_core_after = std::chrono::milliseconds(offer_core_after_ms);
  inst->offer_every = std::chrono::microseconds(offer_every_us);
  // Buffers may take as much again as the heap: the tenant's memory limit.
  inst->allocator = new QuotaAllocator(heap_limit);
  v8::Isolate::CreateParams params;
  params.array_buffer_allocator = inst->allocator;
  // Only the old generation is capped; the young generation keeps V8's
  // default size (a smaller one, as ConfigureDefaultsFromHeapSize picks for
  // small caps, means more scavenges per render).
  params.constraints.set_max_old_generation_size_in_bytes(heap_limit);
  // V8 14 reserves 512 MiB of address space per isolate for its code by
  // default (768 MiB in all per isolate): 128 MiB, V8 10.2's, leaves 394
  // MiB, so that a worker's address-space cap holds as many isolates as it
  // should (`--v8-process-memory-mib`). A reservation, not memory: a
  // render's compiled code is a few MiB.
  params.constraints.set_code_range_size_in_bytes(size_t(128) << 20);
  // As Node's own `NewIsolate`: registered between allocation and start.
  inst->tasks = Tasks::make();
  inst->isolate = v8::Isolate::Allocate();
  g_platform->RegisterIsolate(inst->isolate, inst->tasks.get());
  v8::Isolate::Initialize(inst->isolate, params);
  inst->isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
  inst->isolate->SetHostImportModuleDynamicallyCallback(refuse_dynamic_import);
  inst->isolate->AddNearHeapLimitCallback(near_heap_limit, inst);
  inst->isolate->SetAllowWasmCodeGenerationCallback(refuse_wasm_codegen);
  {
    Enter enter(inst);
    v8::Isolate* iso = inst->isolate;
    v8::Local<v8::Context> ctx = v8::Context::New(iso);
    v8::Context::Scope scope(ctx);
    v8::Local<v8::Function> log =
        v8::Function::New(ctx, log_callback, v8::External::New(iso, inst)).ToLocalChecked();
    (void)ctx->Global()->Set(ctx, str(iso, "__ssr_log"), log);
    v8::Local<v8::Function> host =
        v8::Function::New(ctx, host_callback, v8::External::New(iso, inst)).ToLocalChecked();
    (void)ctx->Global()->Set(ctx, str(iso, "__ssr_host"), host);
    v8::Local<v8::Function> hooks = v8::Function::New(ctx, promise_hooks_callback).ToLocalChecked();
    (void)ctx->Global()->Set(ctx, str(iso, "__ssr_promise_hooks"), hooks);
    // No `WebAssembly` of V8's (see the invariants): the global goes before
    // any script runs, and code generation is refused besides.
    (void)ctx->Global()->Delete(ctx, str(iso, "WebAssembly"));
    inst->context.Reset(iso, ctx);
  }
  return inst;
}

// Evaluates the prelude (a classic script) and the bundle (an ES module named
// `name`), settles the module's top level and picks its render function.
int32_t ssr_v8_load(ssr_v8* inst, const char* prelude, size_t prelude_len, const char* prelude_name,
                    const char* name, size_t name_len, const char* bundle, size_t bundle_len,
                    uint32_t deadline_ms, ssr_v8_result* out) {
  return call(inst, deadline_ms, deadline_ms, out, false, [&](v8::Isolate* iso, v8::Local<v8::Context> ctx, v8::TryCatch& tc) -> int32_t {
    if (!run_script(iso, ctx, prelude, prelude_len, prelude_name)) {
      return failure(inst, ctx, tc, "the prelude failed");
    }
    v8::Local<v8::Value> driver;
    if (!ctx->Global()->Get(ctx, str(iso, "__ssr")).ToLocal(&driver) || !driver->IsObject() ||
        !driver_fn(ctx, driver.As<v8::Object>(), "call", &inst->call_fn) ||
        !driver_fn(ctx, driver.As<v8::Object>(), "runNextTimer", &inst->next_timer_fn) ||
        !driver_fn(ctx, driver.As<v8::Object>(), "reset", &inst->reset_fn) ||
        !driver_fn(ctx, driver.As<v8::Object>(), "arrived", &inst->arrived_fn)) {
      return failure(inst, ctx, tc, "the prelude did not define __ssr");
    }
    inst->driver.Reset(iso, driver.As<v8::Object>());

    v8::ScriptOrigin origin(str(iso, name, name_len), 0, 0, false, -1, v8::Local<v8::Value>(), false,
                            false, true);
    v8::ScriptCompiler::Source source(str(iso, bundle, bundle_len), origin);
    v8::Local<v8::Module> module;
    v8::Local<v8::Value> evaluated;
    if (!v8::ScriptCompiler::CompileModule(iso, &source).ToLocal(&module) ||
        !module->InstantiateModule(ctx, refuse_import).FromMaybe(false) ||
        !module->Evaluate(ctx).ToLocal(&evaluated)) {
      return failure(inst, ctx, tc, "the bundle failed to load");
    }
    // The top level cannot fetch (the host's capabilities are not there
    // yet), so it never waits.
    Settled settled = evaluated->IsPromise() ? settle(inst, ctx, evaluated.As<v8::Promise>(), tc) : Settled::Yes;
    if (settled == Settled::Never || settled == Settled::Waiting) {
      inst->meta = NEVER_SETTLED;
      return SSR_V8_JS_ERROR;
    }
    if (settled == Settled::Failed) return failure(inst, ctx, tc, "the bundle's top level failed");
    if (evaluated->IsPromise() && evaluated.As<v8::Promise>()->State() == v8::Promise::kRejected) {
      describe(inst, ctx, evaluated.As<v8::Promise>()->Result());
      return SSR_V8_JS_ERROR;
    }
    if (module->GetStatus() == v8::Module::kErrored) {
      describe(inst, ctx, module->GetException());
      return SSR_V8_JS_ERROR;
    }
    v8::Local<v8::Value> ns = module->GetModuleNamespace();
    v8::Local<v8::Object> d = driver.As<v8::Object>();
    v8::Local<v8::Value> resolve;
    if (!d->Get(ctx, str(iso, "resolve")).ToLocal(&resolve) || !resolve->IsFunction() ||
        resolve.As<v8::Function>()->Call(ctx, d, 1, &ns).IsEmpty()) {
      return failure(inst, ctx, tc, "the bundle exports no render function");
    }
    return SSR_V8_OK;
  });
}

// Renders one request, given as the prelude's raw request in JSON (the
// contract's `Request` in its serde form) and its body (`body_len` bytes,
// set as the raw request's `body`, a Uint8Array, when not empty), within
// `cpu_ms` of this thread's CPU time and `deadline_ms`.
int32_t ssr_v8_render(ssr_v8* inst, const char* request, size_t request_len, const uint8_t* body,
                      size_t body_len, uint32_t cpu_ms, uint32_t deadline_ms, bool may_lower, ssr_v8_result* out) {
  return call(inst, cpu_ms, deadline_ms, out, may_lower, [&](v8::Isolate* iso, v8::Local<v8::Context> ctx, v8::TryCatch& tc) -> int32_t {
    if (inst->call_fn.IsEmpty()) {
      inst->meta = "{\"kind\":\"not-initialized\",\"message\":\"the bundle was not loaded\"}";
      return SSR_V8_JS_ERROR;
    }
    // A render left waiting and never resumed: nothing of it may run now.
    if (!inst->pending.IsEmpty()) {
      inst->pending.Reset();
      reset_timers(inst, ctx);
    }
    v8::Local<v8::Value> req;
    v8::Local<v8::Value> promise;
    v8::Local<v8::Uint8Array> bytes;
    if (!v8::JSON::Parse(ctx, str(iso, request, request_len)).ToLocal(&req) || !req->IsObject() ||
        (body_len && (!bytes_in_quota(inst, body, body_len).ToLocal(&bytes) ||
                      req.As<v8::Object>()->Set(ctx, key(iso, "body"), bytes).IsNothing())) ||
        !inst->call_fn.Get(iso)->Call(ctx, inst->driver.Get(iso), 1, &req).ToLocal(&promise) ||
        !promise->IsPromise()) {
      return failure(inst, ctx, tc, "render could not be called");
    }
    return finish(inst, ctx, tc, promise.As<v8::Promise>());
  });
}

// Goes on with a render that answered WAITING: hands the host's
// `fetch-wait` reply (`value`, JSON, and its bytes) to the prelude's
// `arrived`, then drives the render on as `ssr_v8_render` does, within
// `cpu_ms` and `deadline_ms` (what is left of the render's CPU time and
// deadline).
int32_t ssr_v8_resume(ssr_v8* inst, const char* value, size_t value_len, const uint8_t* data,
                      size_t data_len, uint32_t cpu_ms, uint32_t deadline_ms, bool may_lower, ssr_v8_result* out) {
  return call(inst, cpu_ms, deadline_ms, out, may_lower, [&](v8::Isolate* iso, v8::Local<v8::Context> ctx, v8::TryCatch& tc) -> int32_t {
    if (inst->pending.IsEmpty()) {
      inst->meta = "{\"kind\":\"exception\",\"message\":\"no render is waiting\"}";
      return SSR_V8_JS_ERROR;
    }
    v8::Local<v8::Promise> p = inst->pending.Get(iso);
    inst->pending.Reset();
    v8::Local<v8::Value> args[2];
    args[0] = str(iso, value, value_len);
    v8::Local<v8::Uint8Array> bytes;
    if (!bytes_in_quota(inst, data, data_len).ToLocal(&bytes)) {
      return failure(inst, ctx, tc, "a fetched response could not be delivered");
    }
    args[1] = bytes;
    if (inst->arrived_fn.Get(iso)->Call(ctx, inst->driver.Get(iso), 2, args).IsEmpty()) {
      return failure(inst, ctx, tc, "a fetched response could not be delivered");
    }
    return finish(inst, ctx, tc, p);
  });
}

}  // extern "C"

namespace {

// The rest of a render once its promise is made: settles it (or answers
// WAITING, keeping it in `inst->pending`), then copies the response out.
int32_t finish(ssr_v8* inst, v8::Local<v8::Context> ctx, v8::TryCatch& tc, v8::Local<v8::Promise> p) {
  v8::Isolate* iso = inst->isolate;
  switch (settle(inst, ctx, p, tc)) {
    case Settled::Waiting:
      inst->pending.Reset(iso, p);
      return SSR_V8_WAITING;
    case Settled::Never:
      inst->meta = NEVER_SETTLED;
      return SSR_V8_JS_ERROR;
    case Settled::Failed:
      return failure(inst, ctx, tc, "render failed");
    case Settled::Yes:
      break;
  }
  {
    if (p->State() == v8::Promise::kRejected) {
      describe(inst, ctx, p->Result());
      return SSR_V8_JS_ERROR;
    }
    // The prelude's normalized response, {status, headers, body, ttl, vary}:
    // the body (a string, or a Uint8Array) travels as its bytes, the rest
    // as the JSON array [status, headers,
    // ttl, vary], the contract's `Response` in serde's sequence form. An
    // array of the values already made is cheap to stringify; copying them
    // into a new object cost 2 us a render (`ssr render --engine v8
    // --repeat 50000`, a one-line page).
    v8::Local<v8::Object> res = p->Result().As<v8::Object>();
    v8::Local<v8::Value> body;
    v8::Local<v8::Value> rest[4];
    const char* names[4] = {"status", "headers", "ttl", "vary"};
    bool read = res->Get(ctx, key(iso, "body")).ToLocal(&body) && (body->IsString() || body->IsArrayBufferView());
    for (int i = 0; read && i < 4; i++) read = res->Get(ctx, key(iso, names[i])).ToLocal(&rest[i]);
    v8::Local<v8::String> meta;
    if (!read || !v8::JSON::Stringify(ctx, v8::Array::New(iso, rest, 4)).ToLocal(&meta)) {
      return failure(inst, ctx, tc, "render returned an unreadable response");
    }
    utf8(iso, meta, &inst->meta);
    if (body->IsString()) {
      utf8(iso, body.As<v8::String>(), &inst->body);
    } else {
      v8::Local<v8::ArrayBufferView> view = body.As<v8::ArrayBufferView>();
      inst->body.resize(view->ByteLength());
      view->CopyContents(inst->body.data(), inst->body.size());
    }
    return SSR_V8_OK;
  }
}

}  // namespace

extern "C" {

// Bytes of V8 heap in use.
size_t ssr_v8_heap_used(ssr_v8* inst) {
  v8::Locker locker(inst->isolate);
  v8::HeapStatistics stats;
  inst->isolate->GetHeapStatistics(&stats);
  return stats.used_heap_size();
}

// A service isolate (no prelude, no bundle; `web/intl.rs`): evaluates
// `script`, a classic script of the host's own, that defines global
// functions for `ssr_v8_invoke`.
int32_t ssr_v8_script(ssr_v8* inst, const char* script, size_t script_len, const char* name,
                      uint32_t deadline_ms, ssr_v8_result* out) {
  return call(inst, deadline_ms, deadline_ms, out, false, [&](v8::Isolate* iso, v8::Local<v8::Context> ctx, v8::TryCatch& tc) -> int32_t {
    if (!run_script(iso, ctx, script, script_len, name)) {
      return failure(inst, ctx, tc, "the script failed");
    }
    return SSR_V8_OK;
  });
}

// Calls the global function `fn` with the string `arg`; its result, as a
// string, is the body.
int32_t ssr_v8_invoke(ssr_v8* inst, const char* fn, const char* arg, size_t arg_len, uint32_t cpu_ms,
                      ssr_v8_result* out) {
  return call(inst, cpu_ms, cpu_ms, out, false, [&](v8::Isolate* iso, v8::Local<v8::Context> ctx, v8::TryCatch& tc) -> int32_t {
    v8::Local<v8::Value> f;
    v8::Local<v8::Value> argument = str(iso, arg, arg_len);
    v8::Local<v8::Value> result;
    v8::Local<v8::String> text;
    if (!ctx->Global()->Get(ctx, str(iso, fn)).ToLocal(&f) || !f->IsFunction() ||
        !f.As<v8::Function>()->Call(ctx, v8::Undefined(iso), 1, &argument).ToLocal(&result) ||
        !result->ToString(ctx).ToLocal(&text)) {
      return failure(inst, ctx, tc, "the call failed");
    }
    utf8(iso, text, &inst->body);
    return SSR_V8_OK;
  });
}

// Times a call in this process offered its core.
uint64_t ssr_v8_core_offers(void) { return g_core_offers.load(std::memory_order_relaxed); }

void ssr_v8_end_when_stuck(uint32_t grace_ms) {
  g_stuck_grace_ns.store(int64_t(grace_ms) * 1000000, std::memory_order_relaxed);
}

void ssr_v8_lower_when_contended(int32_t nice) { g_lower_to.store(nice, std::memory_order_relaxed); }

bool ssr_v8_thread_lowered(void) { return t_lowered; }

void ssr_v8_free(ssr_v8* inst) {
  {
    v8::Locker locker(inst->isolate);
    v8::Isolate::Scope scope(inst->isolate);
    inst->driver.Reset();
    inst->call_fn.Reset();
    inst->next_timer_fn.Reset();
    inst->reset_fn.Reset();
    inst->arrived_fn.Reset();
    inst->pending.Reset();
    inst->context.Reset();
  }
  inst->tasks->clear();
  g_platform->DisposeIsolate(inst->isolate);
  delete inst->allocator;
  delete inst;
}

}  // extern "C"
