//! The `skelnorm` command: parses flags, runs the library, prints, and sets the exit code
//! (0 done, 1 a file could not be read or written, 2 usage, 3 not a humanoid or refused, 4
//! nothing to do; the table is `cli::EXIT_*`, in `--help` and README.md).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "the binary is the only code that prints (house style: library code never prints)"
)]

mod cli;

fn main() {
    std::process::exit(cli::run());
}
