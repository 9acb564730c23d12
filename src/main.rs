//! The `slidesolve` command line: thin glue over the library.

use mimalloc::MiMalloc;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

mod cli;

fn main() {
    std::process::exit(cli::run());
}
