//! The `skelnorm` command: parses flags, runs the library, prints, and sets the exit code
//! (0 ok, 1 an input could not be processed, 2 usage or configuration error).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the binary is the only code that prints (house style: library code never prints)"
)]

mod cli;

fn main() {
    std::process::exit(cli::run());
}
