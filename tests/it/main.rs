//! The integration tests, one crate with a module per thing they prove: one test binary links
//! once instead of ten (linking dominated a fresh clone's `cargo test --release`).

mod batch;
mod bench_corpus;
mod bounded_alloc;
mod cli_hardening;
mod cli_solve_verify;
mod common;
mod cs351_samples;
mod dense_visited;
mod determinism;
mod families;
mod fuzz;
mod goal_bound;
mod known_optima;
mod limits;
mod malformed_inputs;
mod moves_are_legal;
#[cfg(feature = "mpi")]
mod mpi;
mod oversized_inputs;
mod peak_bytes;
mod pictures;
mod readme;
mod tile_algorithms_agree;
mod tiles_layer_counts;
mod whole_outputs;

#[global_allocator]
static ALLOCATOR: bounded_alloc::Bounded = bounded_alloc::Bounded;
