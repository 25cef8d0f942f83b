//! The worker's main loop (started only by the server's supervisor,
//! `ssr::engine::v8::process`): V8 isolates for the server, in a process
//! of their own, confined by the operating system (`confine.rs`).
//!
//! Its standard input is the control socket: first the lanes' sockets
//! arrive on it (`SCM_RIGHTS`), then [`ToWorker::Free`] for isolates no
//! longer needed; its end (the server closed it, or died) ends the process,
//! whatever its lanes are doing. (Not `PR_SET_PDEATHSIG`: that follows the
//! thread that started the process, and the server's threads come and go.)
//! Each lane is served by a thread of its own, one exchange at a time
//! (`wire.rs`), so the server's V8 threads render in this process as many at
//! once as they would in theirs; a thread that a long render lowered
//! (`crate::sched`) hands its lane to a new one after the render. An
//! isolate is in one lane's hands for an
//! exchange and back in the table between them; it may move between lanes
//! (its `v8::Locker`, `ffi.rs`).
//!
//! A renderer's host calls go back to the server on the lane they came from
//! ([`Forward`]), but for those that need nothing of the server: random
//! bytes, Web Crypto and URL parsing are answered here
//! (`web::answered_alone`). A lane also answers the Wasm engine's `Intl`
//! calls ([`ToWorker::Intl`]), with a service isolate of its thread's
//! (`service.rs`).
//!
//! Invariant: anything unexpected on a channel (a frame that does not
//! parse, a message out of place, the server gone) ends the process; the
//! supervisor then fails what was in flight here and starts another.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::io::IoSliceMut;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

use contract::{LogLevel, Reply};
use rustix::net::{RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags};

use ssr::engine::v8::Params;
use ssr::engine::v8::process::wire::{self, FromWorker, Lane, MAX_LANES, ToWorker};
use ssr::sched::{self, thread_cpu_time};
use ssr::sync::lock;
use ssr::web;

use crate::ffi::{self, HostCalls, Isolate, Outcome, exit};
use crate::{confine, service};

/// The largest frame the server sends: a bundle (the admin API takes
/// plugins of up to `--max-plugin-mib`, 64 MiB by default) or a request.
const FROM_SERVER_LIMIT: usize = 1 << 30;

/// Each lane thread's stack: as the pool's threads (JavaScript gets
/// `STACK_BYTES` of it).
const LANE_STACK_BYTES: usize = 8 << 20;

type Table = Arc<Mutex<HashMap<u64, Isolate<Forward>>>>;

/// The core offers already reported to the server, of `ffi::core_offers`.
static REPORTED: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The lane this thread serves.
    static LANE: RefCell<Option<Lane>> = const { RefCell::new(None) };
    /// Whether the exchange on it streams its body (`ToWorker::Render`).
    static STREAMS: Cell<bool> = const { Cell::new(false) };
    /// Chunks told since the render began on this lane.
    static WRITES: Cell<u32> = const { Cell::new(0) };
}

/// One chunk in this many is sent as a call that waits for its answer, so
/// that a refusal (the client left, the body passed its limit) stops the
/// render's stream within this many chunks; the others are told
/// (`FromWorker::Tell`): each answer waited for was a round trip to the
/// server, three of them for a streamed page of one chunk.
const CHECK_EVERY: u32 = 16;

/// The largest frame the server reads from this process: a host call
/// that would not fit is refused here, with a JavaScript error, instead of
/// breaking the channel (which the server takes for a crash).
static FRAME_LIMIT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// What a frame holds besides a call's name, arguments and bytes.
const FRAME_OVERHEAD: usize = 4 << 10;

/// Refuses a host call that would not fit one frame to the server.
fn fits(name: &str, args: &str, data: &[u8]) -> Result<(), String> {
    let limit = FRAME_LIMIT.get().copied().unwrap_or(usize::MAX);
    let size = name.len() + args.len() + data.len() + FRAME_OVERHEAD;
    if size <= limit {
        return Ok(());
    }
    Err(format!(
        "{name}: {} bytes in one call, over the {} this engine passes to the host at once; pass them in smaller pieces",
        args.len() + data.len(),
        limit.saturating_sub(FRAME_OVERHEAD)
    ))
}

/// JavaScript may use this much of the stack of the thread rendering
/// (V8's own default is 984 KiB; the lanes have 8 MiB stacks).
const STACK_BYTES: usize = 1 << 20;

/// The module name the bundle has in stack traces.
const BUNDLE_NAME: &str = "bundle.js";

/// Runs the worker until the server closes the control socket; its
/// settings are the process's arguments ([`Settings`]).
pub fn run() -> ! {
    let settings = Settings::of_args().unwrap_or_else(|e| fail(&e));
    let _ = FRAME_LIMIT.set(settings.frame_limit);
    // First, on the thread Node loaded the addon on.
    if !ffi::init() {
        fail("V8 did not start (see the line above)");
    }
    let control = std::io::stdin().as_fd().try_clone_to_owned();
    let control = match control {
        Ok(fd) => UnixStream::from(fd),
        Err(e) => fail(&format!("no control socket on standard input: {e}")),
    };
    if let Err(e) = confine::before_start(settings.address_space) {
        fail(&format!("confining the process: {e}"));
    }
    // A builtin that ignores its termination (a 4 GB `fill`) ends this
    // process soon after, not the supervisor's patience.
    ffi::end_when_stuck(ssr::engine::v8::process::GRACE);
    let lanes = match receive_lanes(&control) {
        Ok(lanes) => lanes,
        Err(e) => fail(&format!("receiving the lanes: {e}")),
    };
    if let Err(e) = confine::seccomp() {
        fail(&format!("installing the system-call filter: {e}"));
    }
    ffi::lower_when_contended(sched::LOWERED_V8_NICE);
    let table: Table = Arc::default();
    // A new thread has its creator's priority: the lane of a lowered
    // thread goes to this thread, at normal priority, which starts another
    // for it.
    let (handed, lowered) = std::sync::mpsc::channel::<Lane>();
    for lane in lanes {
        start_lane(Lane::new(lane), table.clone(), handed.clone());
    }
    let tables = table.clone();
    let spawner = std::thread::Builder::new()
        .name("ssr-v8-spawner".into())
        .spawn(move || {
            for lane in lowered {
                start_lane(lane, tables.clone(), handed.clone());
            }
        });
    if let Err(e) = spawner {
        fail(&format!("starting a thread: {e}"));
    }
    let mut control = control;
    loop {
        match wire::receive::<ToWorker>(&mut control, FROM_SERVER_LIMIT) {
            Ok(ToWorker::Free { id }) => {
                let freed = lock(&table).remove(&id);
                drop(freed);
            }
            Ok(other) => fail(&format!("a {} on the control socket", kind(&other))),
            // The server closed it, or is gone.
            Err(_) => exit(0),
        }
    }
}

/// The lanes, sent as one message's `SCM_RIGHTS`.
fn receive_lanes(control: &UnixStream) -> std::io::Result<Vec<UnixStream>> {
    let mut space = vec![MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(MAX_LANES))];
    let mut ancillary = RecvAncillaryBuffer::new(&mut space);
    let mut byte = [0u8; 1];
    rustix::net::recvmsg(
        control,
        &mut [IoSliceMut::new(&mut byte)],
        &mut ancillary,
        RecvFlags::CMSG_CLOEXEC,
    )?;
    let mut lanes = Vec::new();
    for message in ancillary.drain() {
        if let RecvAncillaryMessage::ScmRights(fds) = message {
            lanes.extend(fds.map(|fd: OwnedFd| UnixStream::from(fd)));
        }
    }
    if lanes.is_empty() {
        return Err(std::io::Error::other("no lane came"));
    }
    Ok(lanes)
}

/// Starts a thread that serves `lane`.
fn start_lane(lane: Lane, table: Table, handed: Sender<Lane>) {
    let spawned = std::thread::Builder::new()
        .name("ssr-v8-lane".into())
        .stack_size(LANE_STACK_BYTES)
        .spawn(move || serve(lane, table, handed));
    if let Err(e) = spawned {
        fail(&format!("starting a lane thread: {e}"));
    }
}

/// One lane: exchanges until the server closes it, or until a render
/// lowered this thread (`crate::sched`): only `CAP_SYS_NICE` could raise it
/// again, so it hands the lane to the spawner (`handed`), whose new thread
/// at normal priority goes on with it.
fn serve(lane: Lane, table: Table, handed: Sender<Lane>) {
    LANE.with(|l| *l.borrow_mut() = Some(lane));
    loop {
        let message = match with_lane(|lane| lane.receive::<ToWorker>(FROM_SERVER_LIMIT)) {
            Ok(m) => m,
            Err(_) => exit(0),
        };
        let started = thread_cpu_time();
        let (outcome, heap_used) = match message {
            ToWorker::New { id, params, bundle } => {
                let (isolate, outcome) = load(params, &bundle);
                let heap = isolate.heap_used();
                if matches!(outcome, Outcome::Ok { .. }) {
                    lock(&table).insert(id, isolate);
                }
                (outcome, heap)
            }
            ToWorker::Intl { args } => (service::intl(&args), 0),
            ToWorker::Render {
                id,
                request,
                body,
                cpu_ms,
                deadline_ms,
                streams,
                others,
            } => {
                STREAMS.set(streams);
                WRITES.set(0);
                on(&table, id, |i| {
                    i.render(&request, &body, cpu_ms, deadline_ms, others)
                })
            }
            ToWorker::Resume {
                id,
                value,
                data,
                cpu_ms,
                deadline_ms,
                streams,
                others,
            } => {
                STREAMS.set(streams);
                on(&table, id, |i| {
                    i.resume(&value, &data, cpu_ms, deadline_ms, others)
                })
            }
            other => fail(&format!("a {} on a lane", kind(&other))),
        };
        let offers = ffi::core_offers();
        let lowered = ffi::thread_lowered();
        let done = FromWorker::Done {
            outcome,
            heap_used: heap_used as u64,
            cpu_us: thread_cpu_time().saturating_sub(started).as_micros() as u64,
            offers: offers.saturating_sub(REPORTED.swap(offers, Ordering::Relaxed)),
            lowered,
        };
        send(&done);
        if lowered {
            let lane = LANE.with(|l| l.borrow_mut().take()).expect("a lane thread");
            if handed.send(lane).is_err() {
                fail("the spawner thread is gone");
            }
            return;
        }
    }
}

/// Runs `call` on isolate `id`, out of the table meanwhile.
fn on(
    table: &Table,
    id: u64,
    call: impl FnOnce(&mut Isolate<Forward>) -> Outcome,
) -> (Outcome, usize) {
    let Some(mut isolate) = lock(table).remove(&id) else {
        return (
            Outcome::JsError(format!(
                r#"{{"kind":"exception","message":"the worker process has no isolate {id}"}}"#
            )),
            0,
        );
    };
    let outcome = call(&mut isolate);
    let heap = isolate.heap_used();
    lock(table).insert(id, isolate);
    (outcome, heap)
}

/// Sends `message` on this thread's lane; a lane that is gone ends the
/// process.
fn send(message: &FromWorker) {
    if with_lane(|lane| lane.send(message)).is_err() {
        exit(0);
    }
}

/// Writes `bytes` on this thread's lane as they are (tests only: a broken
/// worker's channel).
fn raw_write(bytes: &[u8]) {
    let _ = with_lane(|lane| lane.raw(bytes));
}

/// Runs `f` on this thread's lane (a lane thread's only).
fn with_lane<T>(f: impl FnOnce(&mut Lane) -> T) -> T {
    LANE.with(|l| f(l.borrow_mut().as_mut().expect("a lane thread")))
}

/// An isolate's way out, in a worker process: the lane of the exchange
/// running it.
struct Forward;

impl HostCalls for Forward {
    fn log(&self, level: LogLevel, message: &str) {
        if ssr::TEST_HOOKS
            && let Some(hook) = message.strip_prefix(confine::HOOK_PREFIX)
        {
            confine::hook(hook, raw_write);
        }
        // The console keeps far less of one render than a frame holds.
        let limit = FRAME_LIMIT.get().copied().unwrap_or(usize::MAX) / 2;
        let mut cut = message.len().min(limit);
        while !message.is_char_boundary(cut) {
            cut -= 1;
        }
        send(&FromWorker::Log {
            level: level as i32,
            message: message[..cut].to_string(),
        });
    }

    fn call_now(&mut self, name: &str, args: &str, data: &[u8]) -> Result<Reply, String> {
        if let Some(reply) = web::answered_alone(name, args, data) {
            return reply;
        }
        fits(name, args, data)?;
        if let Some(reply) = told(name, args) {
            send(&FromWorker::Tell {
                name: name.to_string(),
                args: args.to_string(),
                data: data.to_vec(),
            });
            return Ok(reply);
        }
        send(&FromWorker::Call {
            name: name.to_string(),
            args: args.to_string(),
            data: data.to_vec(),
        });
        match with_lane(|lane| lane.receive::<ToWorker>(FROM_SERVER_LIMIT)) {
            Ok(ToWorker::Reply(reply)) => reply,
            Ok(other) => fail(&format!("a {} where a reply was due", kind(&other))),
            Err(_) => exit(0),
        }
    }
}

/// The answer to `name` when it is told, not called (`wire::TOLD`): a
/// streamed body's head (which the server takes, as `streams` says), its
/// chunks but one in [`CHECK_EVERY`], and its end. The first is
/// `response-head`'s `true`; the rest answer nothing.
fn told(name: &str, args: &str) -> Option<Reply> {
    if !STREAMS.get() || !wire::may_tell(name, args) {
        return None;
    }
    if name == contract::calls::RESPONSE_WRITE {
        let n = WRITES.get() + 1;
        WRITES.set(n);
        if n.is_multiple_of(CHECK_EVERY) {
            return None;
        }
    }
    if name == contract::calls::RESPONSE_END {
        STREAMS.set(false);
    }
    Some(match name {
        contract::calls::RESPONSE_HEAD => Reply {
            value: "true".into(),
            data: Vec::new(),
        },
        _ => Reply::default(),
    })
}

fn kind(message: &ToWorker) -> &'static str {
    match message {
        ToWorker::New { .. } => "New",
        ToWorker::Render { .. } => "Render",
        ToWorker::Resume { .. } => "Resume",
        ToWorker::Reply(_) => "Reply",
        ToWorker::Free { .. } => "Free",
        ToWorker::Intl { .. } => "Intl",
    }
}

/// A new isolate of `params` reaching the server, with the prelude and
/// `bundle` evaluated within `INSTANTIATE_DEADLINE`.
fn load(params: Params, bundle: &str) -> (Isolate<Forward>, Outcome) {
    let mut isolate = Isolate::new(
        params.heap_limit,
        STACK_BYTES,
        params.offer_after_ms,
        params.offer_every_us,
        Forward,
    );
    let deadline = ssr::engine::INSTANTIATE_DEADLINE.as_millis() as u32;
    let outcome = isolate.load(
        contract::PRELUDE,
        contract::PRELUDE_NAME,
        BUNDLE_NAME,
        bundle,
        deadline,
    );
    (isolate, outcome)
}

/// What the supervisor starts a worker with, after the addon's path on
/// Node's command line: `--address-space BYTES` (the process's virtual
/// memory) and `--frame-limit BYTES` (the largest frame the server reads
/// from it).
struct Settings {
    address_space: u64,
    frame_limit: usize,
}

impl Settings {
    fn of_args() -> Result<Settings, String> {
        let args: Vec<String> = std::env::args().collect();
        let value = |name: &str| -> Result<u64, String> {
            let at = args
                .iter()
                .position(|a| a == name)
                .ok_or_else(|| format!("no {name} among the arguments {args:?}"))?;
            args.get(at + 1)
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number of bytes"))
        };
        Ok(Settings {
            address_space: value("--address-space")?,
            frame_limit: usize::try_from(value("--frame-limit")?).unwrap_or(usize::MAX),
        })
    }
}

/// Ends the process with `why` on standard error (the server's log).
fn fail(why: &str) -> ! {
    eprintln!("ssr v8-worker {}: {why}", std::process::id());
    exit(2)
}
