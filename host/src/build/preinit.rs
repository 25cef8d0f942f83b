//! Step 2 of a build: pre-initialization with Wizer.
//!
//! The guest runtime is a core wasm32-wasip1 module exporting
//! `wizer-initialize`. It runs here with the module name and the bundle on
//! stdin, evaluates the bundle (so its top level runs now, never per
//! request), and Wizer snapshots the resulting memory into a new module.
//!
//! Invariants:
//! - The WASI context given to the guest has only stdin, stdout and stderr
//!   (in memory): no files, environment, arguments or network, so no handle
//!   or host state is baked into the snapshot.
//! - `console.*` during initialization goes to this process's log
//!   (`ssr::build` target), through the same `log` import a render uses.
//! - Of the host's capabilities, only `crypto` answers here (it is pure:
//!   what it returns at build time is what it would return in any
//!   instance); the prelude refuses the others at the top level.
//! - A JavaScript failure comes back as `BuildError::Javascript`, read from
//!   the `kind\x1fmessage\x1fstack` frame the guest writes before exiting.

use contract::{LogLevel, VERSION as CONTRACT_VERSION};
use wasmtime::{Caller, Extern, Linker, Store};
use wasmtime_wasi::WasiCtxBuilder;
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p2::pipe::{MemoryInputPipe, MemoryOutputPipe};
use wasmtime_wizer::Wizer;

use super::BuildError;

struct InitState {
    wasi: WasiP1Ctx,
}

/// Runs `guest` with `bundle` under Wizer. `code_cache`: Wasmtime's
/// compiled-code cache (`--code-cache`), so that compiling the guest
/// runtime, most of this step's time, happens once per machine.
pub fn preinitialize(
    guest: &[u8],
    name: &str,
    bundle: &str,
    code_cache: Option<&std::path::Path>,
) -> Result<Vec<u8>, BuildError> {
    // One instance, once: copying the data segments costs less than a
    // copy-on-write image, which on Linux is a sealed memfd that the kernel
    // now and then refuses to seal (`engine::wasm::make_memory_images`).
    let mut config = wasmtime::Config::new();
    config.memory_init_cow(false);
    if let Some(dir) = code_cache {
        crate::engine::wasm::use_code_cache(&mut config, dir)
            .map_err(|e| BuildError::Preinit(format!("{e:#}")))?;
    }
    let engine =
        wasmtime::Engine::new(&config).map_err(|e| BuildError::Preinit(format!("{e:#}")))?;
    let stdout = MemoryOutputPipe::new(1 << 20);
    let stderr = MemoryOutputPipe::new(1 << 20);
    let wasi = WasiCtxBuilder::new()
        .stdin(MemoryInputPipe::new(format!("{name}\n{bundle}")))
        .stdout(stdout.clone())
        .stderr(stderr.clone())
        .build_p1();
    let mut store = Store::new(&engine, InitState { wasi });
    let mut linker: Linker<InitState> = Linker::new(&engine);
    let mut setup = || -> wasmtime::Result<()> {
        wasmtime_wasi::p1::add_to_linker_async(&mut linker, |s| &mut s.wasi)?;
        linker.func_wrap(
            &format!("ssr:plugin/log@{CONTRACT_VERSION}"),
            "write",
            log_during_init,
        )?;
        linker.func_wrap_async(
            &format!("ssr:plugin/host@{CONTRACT_VERSION}"),
            "call",
            |caller: Caller<'_, InitState>, args: (i32, i32, i32, i32, i32, i32, i32)| {
                Box::new(call_during_init(caller, args))
            },
        )?;
        Ok(())
    };
    setup().map_err(|e| BuildError::Preinit(format!("{e:#}")))?;

    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| BuildError::Preinit(e.to_string()))?;
    let result = rt.block_on(Wizer::new().run(&mut store, guest, async |store, module| {
        // Any other import of the contract: a bundle's top level that calls
        // one fails with a trap that names it, instead of linking failing.
        linker.define_unknown_imports_as_traps(module)?;
        linker.instantiate_async(store, module).await
    }));
    match result {
        Ok(snapshot) => Ok(snapshot),
        Err(e) => {
            let out = stdout.contents();
            let frame = String::from_utf8_lossy(&out);
            let mut parts = frame.splitn(3, '\x1f');
            match (parts.next(), parts.next(), parts.next()) {
                (Some(kind), Some(message), stack) => Err(BuildError::Javascript {
                    message: match kind {
                        "exception" => format!("evaluating {name} failed: {message}"),
                        _ => format!("{name}: {message}"),
                    },
                    stack: stack.filter(|s| !s.is_empty()).map(str::to_string),
                }),
                _ => {
                    let err = String::from_utf8_lossy(&stderr.contents()).into_owned();
                    Err(BuildError::Preinit(
                        format!("{e:#}\n{err}").trim_end().to_string(),
                    ))
                }
            }
        }
    }
}

/// The guest's bytes at `ptr..ptr + len`, or a trap.
fn guest_bytes(
    caller: &mut Caller<'_, InitState>,
    ptr: i32,
    len: i32,
) -> wasmtime::Result<Vec<u8>> {
    let Some(Extern::Memory(mem)) = caller.get_export("memory") else {
        wasmtime::bail!("the guest exports no memory");
    };
    let (start, len) = (ptr as u32 as usize, len as u32 as usize);
    let data = mem.data(&caller);
    start
        .checked_add(len)
        .and_then(|end| data.get(start..end))
        .map(<[u8]>::to_vec)
        .ok_or_else(|| {
            wasmtime::format_err!("a host call's argument lies outside the guest's memory")
        })
}

/// The `ssr:plugin/host.call` import, as the core module sees it (the
/// canonical ABI, lowered by hand): name, args and data as pointer and
/// length, then where to write the `result<reply, string>`: a tag byte, and
/// at offset 4 either the reply's value and data (pointer, length each) or
/// the error's text. The reply's bytes go in memory the guest allocates
/// (`cabi_realloc`).
async fn call_during_init(
    mut caller: Caller<'_, InitState>,
    (name, name_len, args, args_len, data, data_len, ret): (i32, i32, i32, i32, i32, i32, i32),
) -> wasmtime::Result<()> {
    let name = String::from_utf8(guest_bytes(&mut caller, name, name_len)?)?;
    let args = String::from_utf8(guest_bytes(&mut caller, args, args_len)?)?;
    let data = guest_bytes(&mut caller, data, data_len)?;
    let reply = crate::web::at_build(&name, &args, &data);
    let Some(Extern::Func(realloc)) = caller.get_export("cabi_realloc") else {
        wasmtime::bail!("the guest exports no cabi_realloc");
    };
    let realloc = realloc.typed::<(i32, i32, i32, i32), i32>(&caller)?;
    let Some(Extern::Memory(mem)) = caller.get_export("memory") else {
        wasmtime::bail!("the guest exports no memory");
    };
    let mut words = Vec::new();
    for bytes in match &reply {
        Ok(r) => vec![r.value.as_bytes(), r.data.as_slice()],
        Err(e) => vec![e.as_bytes()],
    } {
        let len = i32::try_from(bytes.len())?;
        let ptr = realloc.call_async(&mut caller, (0, 0, 1, len)).await?;
        mem.write(&mut caller, ptr as u32 as usize, bytes)?;
        words.extend([ptr, len]);
    }
    let mut out = vec![u8::from(reply.is_err()), 0, 0, 0];
    out.extend(words.iter().flat_map(|w| w.to_le_bytes()));
    mem.write(&mut caller, ret as u32 as usize, &out)?;
    Ok(())
}

/// The `ssr:plugin/log.write` import, as seen by the core module.
fn log_during_init(mut caller: Caller<'_, InitState>, level: i32, ptr: i32, len: i32) {
    let Ok(bytes) = guest_bytes(&mut caller, ptr, len) else {
        return;
    };
    let message = String::from_utf8_lossy(&bytes);
    match LogLevel::from_code(level) {
        LogLevel::Debug => tracing::debug!(target: "ssr::build", "console: {message}"),
        LogLevel::Info => tracing::info!(target: "ssr::build", "console: {message}"),
        LogLevel::Warn => tracing::warn!(target: "ssr::build", "console: {message}"),
        LogLevel::Error => tracing::error!(target: "ssr::build", "console: {message}"),
    }
}
