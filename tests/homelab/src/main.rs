//! `homelab`: serve on 127.0.0.1:5555 with the store in ./portos-data, or
//! dump a document with a `--dump-*` flag. `homelab --help` lists every flag.

fn main() -> std::process::ExitCode {
    portos_server::cli::main::<homelab_server::Homelab>()
}
