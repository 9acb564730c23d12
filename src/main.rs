//! The `slidesolve` command line: thin glue over the library.

use mimalloc::MiMalloc;

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

mod cli;

fn main() {
    // Joins the MPI world when started by mpirun/srun with several ranks (feature `mpi`); MPI is
    // finalised before exiting, which `process::exit` would skip.
    let code = {
        let _session = slidesolve::distributed::init();
        cli::run()
    };
    std::process::exit(code);
}
