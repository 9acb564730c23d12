//! The `slidesolve` command line: thin glue over the library.

use mimalloc::MiMalloc;
use slidesolve::reserve::{self, WithReserve};

#[global_allocator]
static GLOBAL: WithReserve<MiMalloc> = WithReserve(MiMalloc);

mod cli;

fn main() {
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
