//! `ssr`: parse the command line, dispatch to a subcommand in `cli/`, and
//! turn an error into a message (with its cause chain) and a non-zero exit.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::parse();
    cli::init_logging();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
