//! A deploy's novel code compiled first in a process of its own, bounded in
//! CPU time and memory (`--compile-cpu-secs`, `--compile-memory-mib`).
//! Cranelift cannot be stopped once it compiles, and a crafted component
//! within the code bounds (`artifact::check_before_compiling`) can still
//! cost tens of seconds of a core and hundreds of MiB: in the server that
//! would be the server's, here the kernel ends the process at its limits
//! (`RLIMIT_CPU`, `RLIMIT_AS`) and the deploy is refused, naming the limit.
//!
//! Only code this server has not compiled goes through it: a plugin `ssr
//! build` makes shares its runtime's code, compiled once per server
//! (`split.rs`, `shared.rs`), and brings none of its own, so its deploy
//! starts no process. The check compiles the whole component; the server
//! then compiles it again, as it would have, once the check passed.
//!
//! Lifetime: one process per check, started by the registration that needs
//! it and reaped before it returns.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::engine::EngineError;

/// Where and within what a check runs.
#[derive(Clone, Debug)]
pub struct CompileGuard {
    /// The `ssr` binary, run as `ssr compile-check`.
    pub exe: PathBuf,
    /// CPU time the compile may use, all its threads together.
    pub cpu: Duration,
    /// Address space of the process.
    pub memory: usize,
    /// Wasmtime's cache (`--code-cache`) for the check's own compiles: the
    /// same novel plugin registered again (on another server of the same
    /// machine, a test run's) is checked from it. Only compiles that passed
    /// are kept in it.
    pub code_cache: Option<PathBuf>,
}

/// How much longer than its CPU time a check may take on the clock (a
/// loaded machine), before it is killed all the same.
const WALL_FACTOR: u32 = 4;

impl CompileGuard {
    /// Compiles `bytes` in a child process within the limits; an error
    /// says which one it passed, or why the code does not compile.
    pub fn check(&self, bytes: &[u8]) -> Result<(), EngineError> {
        let refused = |why: String| EngineError::Compile(why.into());
        let mut command = Command::new(&self.exe);
        command
            .arg("compile-check")
            .arg("--cpu-secs")
            .arg(self.cpu.as_secs().max(1).to_string())
            .arg("--memory-bytes")
            .arg(self.memory.to_string());
        if let Some(dir) = &self.code_cache {
            command.arg("--code-cache").arg(dir);
        }
        let mut child = command
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| refused(format!("starting the compile check failed: {e}")))?;
        let mut stdin = child.stdin.take().expect("piped");
        let written = stdin.write_all(bytes);
        drop(stdin);
        let wall = self.cpu * WALL_FACTOR + Duration::from_secs(5);
        let ends = Instant::now() + wall;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < ends => std::thread::sleep(Duration::from_millis(5)),
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(refused(format!(
                        "compiling the plugin took longer than {wall:?} on the clock; it is refused"
                    )));
                }
            }
        };
        let mut said = String::new();
        if let Some(mut err) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut err, &mut said);
        }
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (Some(0), _) if written.is_ok() => Ok(()),
            // SIGXCPU at the soft limit, SIGKILL at the hard one.
            (_, Some(24 | 9)) => Err(refused(format!(
                "compiling the plugin used more than {} s of CPU (--compile-cpu-secs); it is refused",
                self.cpu.as_secs()
            ))),
            // An allocation refused at the address-space limit aborts.
            (_, Some(6)) | (Some(MEMORY), _) => Err(refused(format!(
                "compiling the plugin needed more than {} MiB (--compile-memory-mib); it is refused",
                self.memory >> 20
            ))),
            _ => Err(refused(format!(
                "the plugin does not compile: {}",
                said.trim().lines().last().unwrap_or("no reason given")
            ))),
        }
    }
}

/// The exit code of a check whose compile ran out of memory.
const MEMORY: i32 = 3;

/// The check's side (`ssr compile-check`): limits itself, compiles the
/// component on standard input with the engine's code settings, and exits
/// 0 when it compiled.
pub fn child(cpu_secs: u64, memory_bytes: u64, code_cache: Option<&std::path::Path>) -> ! {
    use rustix::process::{Resource, Rlimit, setrlimit};
    let limit = |resource, soft: u64, hard: u64| {
        setrlimit(
            resource,
            Rlimit {
                current: Some(soft),
                maximum: Some(hard),
            },
        )
    };
    let limited = limit(Resource::Cpu, cpu_secs, cpu_secs + 1)
        .and_then(|()| limit(Resource::As, memory_bytes, memory_bytes))
        .and_then(|()| limit(Resource::Core, 0, 0));
    if let Err(e) = limited {
        eprintln!("ssr compile-check: setting its limits failed: {e}");
        std::process::exit(2);
    }
    let mut bytes = Vec::new();
    if let Err(e) = std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes) {
        eprintln!("ssr compile-check: reading the plugin failed: {e}");
        let memory = e.kind() == std::io::ErrorKind::OutOfMemory;
        std::process::exit(if memory { MEMORY } else { 2 });
    }
    let mut config = wasmtime::Config::new();
    let codegen = super::Codegen::default();
    config.cranelift_opt_level(codegen.opt_level);
    let cached = code_cache.map_or(Ok(()), |dir| super::use_code_cache(&mut config, dir));
    let compiled = cached
        .and_then(|()| wasmtime::Engine::new(&config))
        .and_then(|engine| wasmtime::component::Component::new(&engine, &bytes));
    match compiled {
        Ok(_) => std::process::exit(0),
        Err(e) => {
            let said = format!("{e:#}");
            eprintln!("{said}");
            let memory = said.contains("memory") || said.contains("allocat");
            std::process::exit(if memory { MEMORY } else { 1 })
        }
    }
}

impl CompileGuard {
    /// Where and within what a deploy's novel code is compiled first.
    pub fn of(config: &Config) -> CompileGuard {
        CompileGuard {
            exe: config.helper_exe.clone().unwrap_or_else(|| {
                std::env::current_exe().unwrap_or_else(|_| PathBuf::from("ssr"))
            }),
            cpu: config.compile_cpu_secs.duration(),
            memory: config.compile_memory_mib.bytes(),
            code_cache: config.code_cache.clone(),
        }
    }
}
