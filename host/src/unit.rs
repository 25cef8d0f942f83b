//! The library's unit tests, run by `tests/unit.rs` (with `test-hooks`).
//!
//! A module's tests sit in its `tests` module, as anywhere in Rust, and
//! each is a plain `fn()` that panics to fail; the module's last line,
//! `crate::unit_tests!(a, b, c)`, enters them here. The library is then not
//! built a second time as its own test harness (`[lib] test = false`): that
//! second build of the whole crate was about a tenth of a cold CI run's CPU
//! (docs/development.md, "CI time").
//!
//! Invariant: every test function is entered, or it is dead code, which
//! `cargo clippy` (`-D warnings`) and the build warn of; a name that is
//! not a function of the module does not compile.

/// One unit test: its path below the crate (`cache::tests::a_hit_...`) and
/// the function that panics to fail.
pub struct Unit {
    pub name: &'static str,
    pub run: fn(),
}

/// Every unit test of the library, in no particular order. (linkme gathers
/// the entries through one linker section: the `link_section` attribute is
/// why `unsafe_code` is allowed here and in the entries; nothing else.)
#[allow(unsafe_code)]
#[linkme::distributed_slice]
pub static UNITS: [Unit];

/// Enters the named functions of the calling `tests` module into [`UNITS`];
/// those after `async` are `async fn`s, each run to its end on a
/// current-thread Tokio runtime of its own, as `#[tokio::test]` runs them.
#[macro_export]
macro_rules! unit_tests {
    ($($name:ident),* $(,)? $(; async $($task:ident),+ $(,)?)?) => {
        $($crate::unit_tests!(@enter $name, $name);)*
        $($($crate::unit_tests!(@enter $task, || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a Tokio runtime for a unit test")
                .block_on($task())
        });)+)?
    };
    (@enter $name:ident, $run:expr) => {
        const _: () = {
            #[allow(unsafe_code)]
            #[linkme::distributed_slice($crate::unit::UNITS)]
            static UNIT: $crate::unit::Unit = $crate::unit::Unit {
                name: concat!(module_path!(), "::", stringify!($name)),
                run: $run,
            };
        };
    };
}
