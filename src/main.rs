//! The `tmuxwire` binary; everything lives in the library's `cli` module.

fn main() -> std::process::ExitCode {
    tmuxwire::cli::main()
}
