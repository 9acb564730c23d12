//! slidesolve: a parallel solver for sliding-block puzzles.
//!
//! Data flows one way:
//!
//! ```text
//! text ──format──▶ Puzzle ──compile──▶ Domain (packed keys) ──search──▶ states
//!                    ▲                                                  │
//!                    └────── verify (replay on the Puzzle) ◀── moves ◀──┘
//! ```
//!
//! - [`puzzle`]: the user-level model ([`puzzle::Puzzle`], [`puzzle::Piece`], [`puzzle::Goal`]).
//! - [`format`](mod@format): parsers and printers for the grid, CS 351, tiles and Rush Hour formats.
//! - [`domain`]: compiled search domains over packed `u64`/`u128`/wide keys.
//! - [`search`]: search algorithms generic over a domain; [`enumerate`]: whole state spaces;
//!   [`heuristic`]: tile heuristics and pattern databases.
//! - [`family`]: every layout of a family of piece sets, its components and distances.
//! - [`distributed`]: ranks, ownership and exchanges when work spans processes (MPI).
//! - [`solve`]: one puzzle end to end; [`verify`]: the independent replay checker.

pub mod batch;
pub mod distributed;
pub mod domain;
pub mod enumerate;
pub mod family;
pub mod format;
pub mod generate;
pub mod heuristic;
pub mod memory;
pub mod parity;
pub mod plot;
pub mod plural;
pub mod puzzle;
pub mod render;
pub mod reserve;
pub mod rounds;
pub mod search;
pub mod solution;
pub mod solve;
pub mod trace;
pub mod verify;
