//! Layer counting by breadth-first search over several ranks, for any [`Domain`]: every key has
//! one owner rank (by its hash), each rank expands the frontier keys it owns, the children go to
//! their owners in an all-to-all exchange (in bounded rounds), and each owner deduplicates its own
//! against the previous, current and next layers. Layer sizes are summed over the ranks, so the
//! table is the same for any number of ranks (and equal to the one-process frontier engine's).

use super::{Comm, exchange, hash_owner};
use crate::domain::{Domain, Key};
use crate::search::{LimitHit, Limits};
use hashbrown::HashSet;
use rayon::prelude::*;

/// Frontier keys a rank expands between two exchanges.
pub const ROUND_KEYS: usize = 1 << 16;

/// The layer table of a state space counted over all ranks.
#[derive(Clone, Debug)]
pub struct Layers<K> {
    /// `layers[d]`: states at distance `d` from the start, over all ranks.
    pub layers: Vec<u64>,
    /// Up to the requested number of states of the last layer: the smallest keys over all ranks.
    pub farthest: Vec<K>,
    /// States expanded, over all ranks.
    pub expanded: u64,
    /// Successors generated, over all ranks.
    pub generated: u64,
    /// Words (8 bytes each) sent from one rank to another while expanding each layer, all ranks
    /// together.
    pub exchanged: Vec<u64>,
    /// This rank's largest footprint: its three layers' sets and one round's buffers, in bytes.
    pub peak_bytes: u64,
    /// The limit that stopped the count early (the table is then partial).
    pub stopped: Option<LimitHit>,
}

/// Bytes a hash set entry of key `K` costs (the key and hashbrown's control byte, at its load
/// factor of 7/8).
fn entry_bytes<K: Key>() -> u64 {
    (std::mem::size_of::<K>() as u64 + 1) * 8 / 7
}

/// The keys as words, `K::WORDS` a key.
fn encode<K: Key>(key: &K, out: &mut Vec<u64>) {
    out.extend((0..K::WORDS).map(|i| key.word(i)));
}

/// Keys back from their words.
fn decode<K: Key>(words: &[u64]) -> impl Iterator<Item = K> + '_ {
    words.chunks_exact(K::WORDS).map(|w| {
        let mut key = K::zero();
        for (i, &word) in w.iter().enumerate() {
            key.set_word(i, word);
        }
        key
    })
}

/// Counts the layers of everything reachable from `domain.start()` over the ranks of `comm`;
/// `on_layer(depth, states)` is called (on every rank) as each layer is complete. The limits are
/// checked after every round with the totals of all ranks, so all ranks stop together.
pub fn layers<D: Domain>(
    domain: &D,
    comm: &dyn Comm,
    limits: &Limits,
    farthest: usize,
    on_layer: &mut dyn FnMut(usize, u64),
) -> Layers<D::Key> {
    let (rank, ranks) = (comm.rank(), comm.size());
    let owner = |key: &D::Key| hash_owner(key.mix(), ranks);
    let start = domain.start();
    let mut previous: HashSet<D::Key> = HashSet::new();
    let mut current: HashSet<D::Key> = HashSet::new();
    if owner(&start) == rank {
        current.insert(start);
    }
    let mut result = Layers {
        layers: vec![1],
        farthest: Vec::new(),
        expanded: 0,
        generated: 0,
        exchanged: Vec::new(),
        peak_bytes: 0,
        stopped: None,
    };
    on_layer(0, 1);
    loop {
        let frontier: Vec<D::Key> = current.iter().copied().collect();
        let mut rounds = [frontier.len().div_ceil(ROUND_KEYS) as u64];
        comm.max(&mut rounds);
        let mut next: HashSet<D::Key> = HashSet::new();
        // [expanded, generated, words sent to other ranks]
        let mut totals = [0u64; 3];
        for round in 0..rounds[0] as usize {
            let part = frontier.get(round * ROUND_KEYS..).map_or(&[][..], |rest| &rest[..rest.len().min(ROUND_KEYS)]);
            let outgoing = part
                .par_chunks(1024)
                .map_init(
                    || domain.scratch(),
                    |scratch, keys| {
                        let mut out = vec![Vec::new(); ranks];
                        let mut generated = 0u64;
                        for key in keys {
                            domain.for_each_successor(key, scratch, |child| {
                                generated += 1;
                                encode(&child, &mut out[owner(&child)]);
                            });
                        }
                        (out, generated)
                    },
                )
                .reduce(
                    || (vec![Vec::new(); ranks], 0),
                    |(mut a, x), (b, y)| {
                        for (into, from) in a.iter_mut().zip(b) {
                            into.extend(from);
                        }
                        (a, x + y)
                    },
                );
            let (outgoing, generated) = outgoing;
            totals[0] += part.len() as u64;
            totals[1] += generated;
            let held: u64 = outgoing.iter().map(|v| v.len() as u64).sum();
            let mut largest = 0;
            let sent = exchange(comm, &outgoing, |received| {
                largest = largest.max(received.len() as u64);
                for child in decode::<D::Key>(received) {
                    if !previous.contains(&child) && !current.contains(&child) {
                        next.insert(child);
                    }
                }
            });
            drop(outgoing);
            totals[2] += sent;
            let sets = (previous.capacity() + current.capacity() + next.capacity()) as u64 * entry_bytes::<D::Key>();
            let bytes = sets + 8 * (held + largest + frontier.len() as u64 * D::Key::WORDS as u64);
            result.peak_bytes = result.peak_bytes.max(bytes);
            // [states stored, largest rank's bytes, timed out]
            let mut check = [next.len() as u64, 0, 0];
            comm.sum(&mut check[..1]);
            let mut local = [bytes, limits.timed_out() as u64];
            comm.max(&mut local);
            let stored = result.layers.iter().sum::<u64>() + check[0];
            check[1..].copy_from_slice(&local);
            let hit = limits.over(stored, check[1]);
            let hit = hit.or((check[2] != 0).then_some(LimitHit::Time));
            if hit.is_some() {
                result.stopped = hit;
                break;
            }
        }
        comm.sum(&mut totals);
        result.expanded += totals[0];
        result.generated += totals[1];
        result.exchanged.push(totals[2]);
        if result.stopped.is_some() {
            break;
        }
        let mut size = [next.len() as u64];
        comm.sum(&mut size);
        if size[0] == 0 {
            break;
        }
        on_layer(result.layers.len(), size[0]);
        result.layers.push(size[0]);
        previous = std::mem::replace(&mut current, next);
    }
    result.farthest = smallest(comm, &current, farthest);
    result
}

/// The `k` smallest keys of `set` over all ranks.
fn smallest<K: Key>(comm: &dyn Comm, set: &HashSet<K>, k: usize) -> Vec<K> {
    let mut mine: Vec<K> = set.iter().copied().collect();
    mine.sort_unstable();
    mine.truncate(k);
    let mut words = Vec::with_capacity(mine.len() * K::WORDS);
    for key in &mine {
        encode(key, &mut words);
    }
    let mut all: Vec<K> = decode(&comm.all_gather(&words)).collect();
    all.sort_unstable();
    all.truncate(k);
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distributed::Local;
    use crate::domain::{DomainTask, with_domain};
    use crate::search::frontier::EngineOptions;

    struct Compare;
    impl DomainTask for Compare {
        type Output = (Vec<u64>, Vec<u64>, u64, usize);
        fn run<D: Domain>(self, domain: &D) -> Self::Output {
            let limits = Limits::default();
            let one = crate::enumerate::enumerate(domain, &limits, EngineOptions::default(), &mut |_, _| {});
            let mut seen = Vec::new();
            let here = layers(domain, &Local, &limits, 3, &mut |d, n| seen.push((d, n)));
            assert_eq!(seen, here.layers.iter().copied().enumerate().collect::<Vec<_>>());
            let mut far = one.farthest.clone();
            far.sort_unstable();
            far.truncate(3);
            assert_eq!(far, here.farthest);
            (one.layers, here.layers, here.expanded, here.exchanged.iter().sum::<u64>() as usize)
        }
    }

    fn check(format: crate::format::Format, text: &str) {
        let options = crate::format::ParseOptions::default();
        let puzzle = crate::format::parse(format, text, &options).expect("a valid puzzle").puzzle;
        let (one, here, expanded, exchanged) = with_domain(&puzzle, 1 << 30, Compare).expect("compiles");
        assert_eq!(one, here);
        assert_eq!(expanded, here.iter().sum::<u64>());
        assert_eq!(exchanged, 0, "one process sends nothing");
    }

    #[test]
    fn one_rank_counts_the_layers_of_the_frontier_engine() {
        use crate::format::Format;
        check(Format::Grid, include_str!("../../corpora/klotski/classic.grid"));
        check(Format::Rush, include_str!("../../corpora/rush/hardest51.rush"));
        check(Format::Tiles, "1 2 3\n4 5 6\n7 8 0\n");
    }
}
