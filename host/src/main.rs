//! `txlab`: tests how database systems implement transactions and isolation levels.

fn main() -> std::process::ExitCode {
    txlab_host::cli::main()
}
