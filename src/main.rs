//! The `tsa` binary: everything lives in the `tsa-cli` library.

fn main() -> std::process::ExitCode {
    tsa_cli::run()
}
