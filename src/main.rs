//! The `skelnorm` command: parses flags, runs the library, prints, and sets the exit code
//! (0 ok, 1 an input could not be processed, 2 usage or configuration error).

mod cli;

fn main() {
    std::process::exit(cli::run());
}
