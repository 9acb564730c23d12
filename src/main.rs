//! The `slidesolve` command line: thin glue over the library.

use mimalloc::MiMalloc;
use slidesolve::reserve::{self, WithReserve};

#[global_allocator]
static GLOBAL: WithReserve<MiMalloc> = WithReserve(MiMalloc);

mod cli;

fn main() {
    // Each thread's first call into glibc's malloc (Rust's own thread start makes one) would
    // reserve an arena of 64 MiB of address space for it; under a tight `ulimit -v` two of them
    // left no room for the searches (`results/hardening/2026-11-28-stop52-batch-entries.md`).
    // Everything but such calls goes through mimalloc, so glibc keeps one arena for all threads.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: sets a glibc tunable before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
    // Joins the MPI world when started by mpirun/srun with several ranks (feature `mpi`); MPI is
    // finalised before exiting, which `process::exit` would skip.
    // Held for the small allocations a run makes after its memory ran out, and given back then.
    reserve::rearm();
    let code = {
        let _session = slidesolve::distributed::init();
        cli::run()
    };
    std::process::exit(code);
}
