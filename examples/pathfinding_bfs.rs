//! The `pathfinding` crate's plain breadth-first search over slidesolve's own successor function:
//! the contender of `scripts/bench_blockspeed.sh`, timed as a whole process like `slidesolve`.
//!
//! ```text
//! cargo run --release --example pathfinding_bfs -- FILE [--metric M] [--enumerate | --expand N]
//! ```
//!
//! Loads the puzzle as `slidesolve solve` does (format by extension, `--metric` overrides the
//! file's), compiles it with the same domain, then runs `pathfinding::prelude::bfs` to the first
//! goal state, or with `--enumerate` `bfs_reach` over every reachable state. Prints one JSON
//! object: `states` (reached, for `--enumerate`), `moves` (for a solve), `wall_s` (the search).
//! `--expand N` times the successor function alone: it lists the reachable states, then generates
//! the successors of all of them N times over (`wall_s` and `children` are those passes').

use slidesolve::domain::{Domain, DomainTask, with_domain};
use slidesolve::format::{self, ParseOptions};
use slidesolve::puzzle::Metric;
use std::cell::RefCell;
use std::path::Path;
use std::time::Instant;

struct Run {
    enumerate: bool,
    expand: usize,
}

impl DomainTask for Run {
    type Output = (Option<usize>, Option<usize>, f64);
    fn run<D: Domain>(self, domain: &D) -> Self::Output {
        if self.expand > 0 {
            let mut scratch = domain.scratch();
            let mut successors = |key: &D::Key| {
                let mut out = Vec::with_capacity(8);
                domain.for_each_successor(key, &mut scratch, |child| out.push(child));
                out
            };
            let states: Vec<D::Key> = pathfinding::prelude::bfs_reach(domain.start(), &mut successors).collect();
            let clock = Instant::now();
            let mut children = 0;
            for _ in 0..self.expand {
                for key in &states {
                    domain.for_each_successor(key, &mut scratch, |_| children += 1);
                }
            }
            return (Some(states.len()), Some(children), clock.elapsed().as_secs_f64());
        }
        let scratch = RefCell::new(domain.scratch());
        let successors = |key: &D::Key| {
            let mut out = Vec::with_capacity(8);
            domain.for_each_successor(key, &mut scratch.borrow_mut(), |child| out.push(child));
            out
        };
        let clock = Instant::now();
        let (states, moves) = if self.enumerate {
            (Some(pathfinding::prelude::bfs_reach(domain.start(), successors).count()), None)
        } else {
            let path = pathfinding::prelude::bfs(&domain.start(), successors, |k| domain.is_goal(k));
            (None, path.map(|p| p.len() - 1))
        };
        (states, moves, clock.elapsed().as_secs_f64())
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: pathfinding_bfs FILE [--metric unit|straight|free] [--enumerate | --expand N]";
    let file = args.first().ok_or_else(|| anyhow::anyhow!(usage))?;
    let mut metric: Option<Metric> = None;
    let mut enumerate = false;
    let mut expand = 0;
    let mut rest = args[1..].iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--enumerate" => enumerate = true,
            "--expand" => expand = rest.next().and_then(|n| n.parse().ok()).ok_or_else(|| anyhow::anyhow!(usage))?,
            "--metric" => {
                let name = rest.next().ok_or_else(|| anyhow::anyhow!(usage))?;
                metric = Some(name.parse().map_err(anyhow::Error::msg)?);
            }
            other => anyhow::bail!("unknown argument '{other}'; {usage}"),
        }
    }
    let text = std::fs::read_to_string(file)?;
    let options = ParseOptions::default();
    let mut parsed = format::parse(format::detect(Some(Path::new(file)), &text), &text, &options)?;
    if let Some(m) = metric {
        parsed.puzzle.metric = m;
    }
    let (states, moves, wall_s) = with_domain(&parsed.puzzle, options.memory_limit(), Run { enumerate, expand })?;
    let json = |v: Option<usize>| v.map_or("null".to_string(), |n| n.to_string());
    println!(r#"{{"states":{},"moves":{},"wall_s":{wall_s}}}"#, json(states), json(moves));
    Ok(())
}
