//! Additive disjoint pattern databases for sliding-tile puzzles.
//!
//! The tiles are split into disjoint groups (6-6-3 for the 15-puzzle, 6-6-6-6 for the 24-puzzle,
//! one exact group for the 8-puzzle). A group's table gives, for every placement of its tiles, the
//! fewest moves *of those tiles* that bring them home with the other tiles treated as
//! indistinguishable; because each table counts only its own tiles' moves, the sum over groups is
//! admissible. Tables are built by a parallel 0-1 BFS from the goal over (placement, blank cell)
//! — a move of a pattern tile costs 1, any other move 0 — and stored as the minimum over blank
//! cells, one byte per placement. Built tables are saved in a cache directory with a header and
//! an FNV-1a checksum and memory-mapped on later runs.

use crate::memory::{self, TooLarge};
use crate::search::{LimitHit, Limits};
use memmap2::Mmap;
use rayon::prelude::*;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::Instant;

/// Why pattern databases could not be had.
#[derive(Debug, thiserror::Error)]
pub enum PdbError {
    /// Reading or writing the cache failed, or the board or partition does not suit.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// A table does not fit in the memory budget.
    #[error(transparent)]
    TooLarge(#[from] TooLarge),
    /// A limit stopped a build: the deadline, or memory the process could not have.
    #[error("{0} while building the pattern database")]
    Limit(LimitHit),
}

/// Where pattern databases are cached and how they are built.
#[derive(Clone, Debug)]
pub struct PdbOptions {
    /// Cache directory (default: `$SLIDESOLVE_CACHE`, else `$XDG_CACHE_HOME/slidesolve`, else
    /// `~/.cache/slidesolve`).
    pub cache_dir: Option<PathBuf>,
    /// Print build progress to standard error.
    pub progress: bool,
    /// How the tiles are split into groups.
    pub partition: Partition,
    /// Also look up the mirror image of each position (square boards whose goal is symmetric).
    pub reflect: bool,
}

impl Default for PdbOptions {
    fn default() -> Self {
        PdbOptions { cache_dir: None, progress: false, partition: Partition::Default, reflect: true }
    }
}

impl PdbOptions {
    /// The cache directory in effect.
    pub fn cache_dir(&self) -> PathBuf {
        if let Some(d) = &self.cache_dir {
            return d.clone();
        }
        if let Some(d) = std::env::var_os("SLIDESOLVE_CACHE") {
            return PathBuf::from(d);
        }
        if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
            return PathBuf::from(d).join("slidesolve");
        }
        match std::env::var_os("HOME") {
            Some(h) => PathBuf::from(h).join(".cache").join("slidesolve"),
            None => PathBuf::from(".slidesolve-cache"),
        }
    }
}

const MAGIC: &[u8; 8] = b"SLSPDB01";
const EXPANDED: u8 = 0x80;
/// States per scanned chunk of the build (log 2).
const CHUNK_BITS: usize = 12;
/// Distance of a state not reached yet.
const UNSEEN: u8 = 0x7f;

/// A state's byte as the build stores it, and back: the distance bits inverted and the `EXPANDED`
/// flag kept, so that an unseen state is stored as 0 and the array starts as zeroed memory.
#[inline]
fn stored(v: u8) -> u8 {
    v ^ UNSEEN
}

/// The default partition: goal cells in reading order (blank skipped) cut into groups of six, the
/// last group taking the remainder; boards with at most 8 tiles get one exact group.
pub fn default_partition(goal: &[u8]) -> Vec<Vec<u8>> {
    let tiles: Vec<u8> = goal.iter().copied().filter(|&t| t != 0).collect();
    if tiles.len() <= 8 {
        return vec![tiles];
    }
    tiles.chunks(6).map(<[u8]>::to_vec).collect()
}

/// How the tiles are split into the disjoint groups of an additive pattern database.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Partition {
    /// [`default_partition`]: groups of six in goal reading order; one exact group for ≤ 8 tiles.
    #[default]
    Default,
    /// Consecutive groups of these sizes in goal reading order (`7-8`, `6-6-3`, `5-5-5`).
    Sizes(Vec<usize>),
    /// Explicit groups of tiles (`1,2,3,4,5,6,7/8,9,10,11,12,13,14,15`).
    Tiles(Vec<Vec<u8>>),
}

impl std::str::FromStr for Partition {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("default") {
            return Ok(Partition::Default);
        }
        let bad = || format!("'{s}': expected group sizes such as 7-8 or 6-6-3, or tile groups such as 1,2,3/4,5,6");
        if s.contains('/') || s.contains(',') {
            let groups = s
                .split('/')
                .map(|g| g.split(',').map(|t| t.trim().parse::<u8>().map_err(|_| bad())).collect())
                .collect::<Result<Vec<Vec<u8>>, _>>()?;
            return Ok(Partition::Tiles(groups));
        }
        let sizes =
            s.split('-').map(|n| n.trim().parse::<usize>().map_err(|_| bad())).collect::<Result<Vec<_>, _>>()?;
        if sizes.contains(&0) {
            return Err(format!("'{s}': a pattern group holds at least one tile"));
        }
        Ok(Partition::Sizes(sizes))
    }
}

/// The form `--pdb-partition` takes: `default`, `7-8` or `1,2,3/4,5,6`.
impl std::fmt::Display for Partition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = match self {
            Partition::Default => "default".to_string(),
            Partition::Sizes(sizes) => sizes.iter().map(usize::to_string).collect::<Vec<_>>().join("-"),
            Partition::Tiles(groups) => groups
                .iter()
                .map(|g| g.iter().map(u8::to_string).collect::<Vec<_>>().join(","))
                .collect::<Vec<_>>()
                .join("/"),
        };
        f.write_str(&text)
    }
}

impl Partition {
    /// The groups for a goal layout; an error when sizes do not add up to the number of tiles or
    /// groups name a tile twice or a tile the board does not have.
    pub fn groups(&self, goal: &[u8]) -> Result<Vec<Vec<u8>>, String> {
        let tiles: Vec<u8> = goal.iter().copied().filter(|&t| t != 0).collect();
        let groups = match self {
            Partition::Default => return Ok(default_partition(goal)),
            Partition::Sizes(sizes) => {
                let total = sizes.iter().try_fold(0usize, |sum, &k| sum.checked_add(k));
                if total != Some(tiles.len()) || sizes.contains(&0) {
                    return Err(format!(
                        "pattern groups of sizes {sizes:?} do not add up to the puzzle's {} tiles",
                        tiles.len()
                    ));
                }
                let mut rest = &tiles[..];
                sizes
                    .iter()
                    .map(|&k| {
                        let (group, tail) = rest.split_at(k);
                        rest = tail;
                        group.to_vec()
                    })
                    .collect()
            }
            Partition::Tiles(groups) => groups.clone(),
        };
        let mut seen = vec![false; goal.len()];
        for &t in groups.iter().flatten() {
            if t == 0 || t as usize >= goal.len() || std::mem::replace(&mut seen[t as usize], true) {
                return Err(format!(
                    "pattern groups {groups:?}: tile {t} is not a tile of the puzzle or appears twice"
                ));
            }
        }
        Ok(groups)
    }
}

/// Number of placements of `k` distinct tiles on `n` cells: n!/(n-k)!.
fn placements(n: usize, k: usize) -> u64 {
    (0..k).map(|i| (n - i) as u64).product()
}

/// Index of a placement (cells `pos`, all distinct, `n ≤ 64`) in `0..placements(n, k)`.
#[inline]
fn rank(pos: &[u8], n: usize) -> u64 {
    let mut used = 0u64;
    let mut index = 0u64;
    for (i, &p) in pos.iter().enumerate() {
        let smaller_used = (used & ((1u64 << p) - 1)).count_ones() as u64;
        index = index * (n - i) as u64 + (p as u64 - smaller_used);
        used |= 1u64 << p;
    }
    index
}

/// The placement with index `index` (inverse of [`rank`]).
fn unrank(mut index: u64, n: usize, out: &mut [u8]) {
    let k = out.len();
    let mut digits = [0u8; 64];
    for i in (0..k).rev() {
        let radix = (n - i) as u64;
        digits[i] = (index % radix) as u8;
        index /= radix;
    }
    let mut used = 0u64;
    for i in 0..k {
        let mut r = digits[i];
        let mut cell = 0u8;
        loop {
            if used >> cell & 1 == 0 {
                if r == 0 {
                    break;
                }
                r -= 1;
            }
            cell += 1;
        }
        out[i] = cell;
        used |= 1u64 << cell;
    }
}

/// Cells adjacent to each cell, as bit masks.
fn neighbour_masks(rows: usize, cols: usize) -> Vec<u64> {
    (0..rows * cols)
        .map(|c| {
            let (r, col) = (c / cols, c % cols);
            let mut m = 0u64;
            if r > 0 {
                m |= 1 << (c - cols);
            }
            if r + 1 < rows {
                m |= 1 << (c + cols);
            }
            if col > 0 {
                m |= 1 << (c - 1);
            }
            if col + 1 < cols {
                m |= 1 << (c + 1);
            }
            m
        })
        .collect()
}

/// One group's table.
pub struct PatternDb {
    tiles: Vec<u8>,
    n: usize,
    table: Table,
}

enum Table {
    Owned(Vec<u8>),
    Mapped(Mmap, usize),
}

impl PatternDb {
    fn values(&self) -> &[u8] {
        match &self.table {
            Table::Owned(v) => v,
            Table::Mapped(m, offset) => &m[*offset..],
        }
    }

    /// The tiles of this group.
    pub fn tiles(&self) -> &[u8] {
        &self.tiles
    }

    /// Size of the table in bytes.
    pub fn len(&self) -> usize {
        self.values().len()
    }

    /// Whether the table is empty (never, for a built table).
    pub fn is_empty(&self) -> bool {
        self.values().is_empty()
    }

    /// Builds the table for `tiles` on a `rows × cols` board with the given goal.
    ///
    /// A 0-1 breadth-first search over (placement of the group, blank cell) from the goal: moving
    /// a group tile costs 1, moving any other tile costs 0 (the blank's whole region is flooded at
    /// once). Each cost layer is found by scanning the one-byte-per-state array in parallel, so the
    /// only memory is that array: 8.3 GB for the 8-tile group of the 7-8 partition of the
    /// 15-puzzle, 92 MB for a 6-tile group. A build that would not fit in `limits`' memory
    /// budget is refused before anything is allocated; the deadline is checked as the arrays are set
    /// up (every 2 MiB) and every chunk of 4096 states of the search and of the final table, and
    /// stops the build.
    pub fn build(
        rows: usize,
        cols: usize,
        goal: &[u8],
        tiles: &[u8],
        progress: bool,
        limits: &Limits,
    ) -> Result<PatternDb, PdbError> {
        let n = rows * cols;
        let k = tiles.len();
        let count = placements(n, k);
        // The state array, its pending bits (8 bytes per chunk) and the final table.
        let states = memory::product(&[n], count);
        let bytes = states.and_then(|s| s.checked_add(s.div_ceil(1 << CHUNK_BITS) * 8)?.checked_add(count));
        let what = || format!("the pattern database for tiles {tiles:?}");
        memory::check(what, bytes, limits.memory())?;
        let neighbours = neighbour_masks(rows, cols);
        let clock = Instant::now();
        let stopped = AtomicBool::new(false);
        // Each array is allocated zeroed (every state unseen, see `stored`) and set up between
        // looks at the clock: memory the process cannot have, below the budget, stops the build
        // instead of aborting, and so does the deadline.
        let dist: Vec<AtomicU8> = zeroed(count * n as u64, limits)?;
        let goal_pos: Vec<u8> =
            tiles.iter().map(|&t| goal.iter().position(|&g| g == t).expect("tile in goal") as u8).collect();
        let blank = goal.iter().position(|&g| g == 0).expect("blank in goal") as u64;
        let start = rank(&goal_pos, n) * n as u64 + blank;
        dist[start as usize].store(stored(0), Ordering::Relaxed);
        // Bit `c % 64` of `pending[i]`: chunk `i` holds states of cost `c` still to expand, so a
        // layer scans only the chunks it touches.
        let pending: Vec<AtomicU64> = zeroed(dist.len().div_ceil(1 << CHUNK_BITS) as u64, limits)?;
        pending[start as usize >> CHUNK_BITS].store(1, Ordering::Relaxed);
        let mut cost = 0u8;
        let mut layer = 1u64;
        while layer > 0 {
            if progress {
                crate::traceln!(
                    "pdb {tiles:?}: cost {cost:>3}: {layer:>12} states found ({:.1} s)",
                    clock.elapsed().as_secs_f64()
                );
            }
            let bit = 1u64 << (cost % 64);
            layer = pending
                .par_iter()
                .enumerate()
                .filter(|(_, p)| p.fetch_and(!bit, Ordering::Relaxed) & bit != 0)
                .map(|(chunk, _)| {
                    if stopped.load(Ordering::Relaxed) || limits.timed_out() {
                        stopped.store(true, Ordering::Relaxed);
                        return 0;
                    }
                    let states = chunk << CHUNK_BITS..((chunk + 1) << CHUNK_BITS).min(dist.len());
                    let mut found = 0;
                    for s in states {
                        if stored(dist[s].load(Ordering::Relaxed)) == cost {
                            found += expand(s as u64, cost, n, k, &neighbours, &dist, &pending);
                        }
                    }
                    found
                })
                .sum();
            if stopped.load(Ordering::Relaxed) {
                return Err(PdbError::Limit(LimitHit::Time));
            }
            cost += 1;
        }
        // The table, each placement the least over its blank cells, filled a chunk at a time
        // between looks at the clock.
        let mut table: Vec<u8> = zeroed(count, limits)?;
        table.par_chunks_mut(1 << CHUNK_BITS).enumerate().try_for_each(|(chunk, values)| {
            if limits.timed_out() {
                return Err(PdbError::Limit(LimitHit::Time));
            }
            for (i, value) in values.iter_mut().enumerate() {
                let p = (chunk << CHUNK_BITS) + i;
                let costs = dist[p * n..(p + 1) * n].iter().map(|d| stored(d.load(Ordering::Relaxed)) & !EXPANDED);
                *value = costs.min().unwrap_or(0);
            }
            Ok(())
        })?;
        if progress {
            crate::traceln!("pdb {tiles:?}: {count} entries built in {:.1} s", clock.elapsed().as_secs_f64());
        }
        Ok(PatternDb { tiles: tiles.to_vec(), n, table: Table::Owned(table) })
    }

    /// The fewest moves of this group's tiles from their cells in `position` (cell of every tile).
    #[inline]
    pub fn lookup(&self, position: &[u8]) -> u8 {
        let mut pos = [0u8; 64];
        for (i, &t) in self.tiles.iter().enumerate() {
            pos[i] = position[t as usize];
        }
        self.values()[rank(&pos[..self.tiles.len()], self.n) as usize]
    }

    /// The value for the mirror image of `position`: this group's `i`-th tile stands where tile
    /// `sources[i]` stands in `position`, with cells mapped through `cells`.
    #[inline]
    fn lookup_mirrored(&self, position: &[u8], sources: &[u8], cells: &[u8]) -> u8 {
        let mut pos = [0u8; 64];
        for (i, &t) in sources.iter().enumerate() {
            pos[i] = cells[position[t as usize] as usize];
        }
        self.values()[rank(&pos[..sources.len()], self.n) as usize]
    }
}

/// An array of `len` zeros set up within the deadline of `limits` ([`memory::try_zeroed`]).
fn zeroed<T: memory::Zeroable>(len: u64, limits: &Limits) -> Result<Vec<T>, PdbError> {
    let len = usize::try_from(len).map_err(|_| PdbError::Limit(LimitHit::Memory))?;
    memory::try_zeroed(len, limits.deadline).map_err(PdbError::Limit)
}

/// The reflection of a square board about its main diagonal, which maps the goal onto itself when
/// the blank's goal cell is on the diagonal (blank first or blank last): the mirror image of any
/// position is then a position of the same puzzle at the same distance, so every table also
/// bounds the mirror image ("reflected lookups", Korf and Felner 2002).
struct Mirror {
    /// Cell `c` maps to `cells[c]`.
    cells: Vec<u8>,
    /// For table `g`: the tile whose mirror image is the table's `i`-th tile.
    sources: Vec<Vec<u8>>,
    /// For each tile: the table whose mirrored lookup reads it.
    table_of: Vec<u8>,
}

impl Mirror {
    fn new(rows: usize, cols: usize, goal: &[u8], dbs: &[PatternDb]) -> Option<Mirror> {
        if rows != cols {
            return None;
        }
        let n = rows * cols;
        let cells: Vec<u8> = (0..n).map(|c| ((c % cols) * cols + c / cols) as u8).collect();
        let mut goal_cell = vec![0usize; n];
        for (c, &t) in goal.iter().enumerate() {
            goal_cell[t as usize] = c;
        }
        let image = |t: u8| goal[cells[goal_cell[t as usize]] as usize];
        if image(0) != 0 {
            return None;
        }
        let sources: Vec<Vec<u8>> = dbs.iter().map(|db| db.tiles.iter().map(|&t| image(t)).collect()).collect();
        let mut table_of = vec![0u8; n];
        for (g, src) in sources.iter().enumerate() {
            for &t in src {
                table_of[t as usize] = g as u8;
            }
        }
        Some(Mirror { cells, sources, table_of })
    }
}

/// Processes one state at `cost`: floods the blank's zero-cost region (claiming it with the
/// `EXPANDED` flag so no other thread floods it again) and lowers every state one pattern move
/// away to `cost + 1`; returns how many it lowered.
fn expand(
    state: u64,
    cost: u8,
    n: usize,
    k: usize,
    neighbours: &[u64],
    dist: &[AtomicU8],
    pending: &[AtomicU64],
) -> u64 {
    let previous = stored(dist[state as usize].fetch_or(EXPANDED, Ordering::Relaxed));
    if previous & EXPANDED != 0 || previous & !EXPANDED < cost {
        return 0;
    }
    let mut found = 0;
    let (p, blank) = (state / n as u64, (state % n as u64) as usize);
    let mut pos = [0u8; 64];
    unrank(p, n, &mut pos[..k]);
    let occupied: u64 = pos[..k].iter().fold(0, |m, &c| m | 1 << c);
    let mut region = 1u64 << blank;
    let mut grown = region;
    loop {
        let mut reach = region;
        let mut bits = grown;
        while bits != 0 {
            let c = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            reach |= neighbours[c] & !occupied;
        }
        grown = reach & !region;
        if grown == 0 {
            break;
        }
        region = reach;
    }
    let mut bits = region;
    while bits != 0 {
        let b = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let s = (p * n as u64) as usize + b;
        let _ = dist[s].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
            let v = stored(v);
            ((v & !EXPANDED) >= cost && v != cost | EXPANDED).then_some(stored(cost | EXPANDED))
        });
        let mut movers = neighbours[b] & occupied;
        while movers != 0 {
            let from = movers.trailing_zeros() as u8;
            movers &= movers - 1;
            let i = pos[..k].iter().position(|&c| c == from).expect("occupied cell holds a pattern tile");
            let mut moved = pos;
            moved[i] = b as u8;
            let target = rank(&moved[..k], n) * n as u64 + from as u64;
            let slot = &dist[target as usize];
            if slot
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
                    ((stored(v) & !EXPANDED) > cost + 1).then_some(stored(cost + 1))
                })
                .is_ok()
            {
                pending[target as usize >> CHUNK_BITS].fetch_or(1 << ((cost + 1) % 64), Ordering::Relaxed);
                found += 1;
            }
        }
    }
    found
}

/// The sum of several disjoint pattern databases, and the same sum over the mirror image of the
/// position where the board allows it; the estimate is the larger of the two.
pub struct AdditivePdb {
    dbs: Vec<PatternDb>,
    /// For each tile: the table that holds it.
    table_of: Vec<u8>,
    mirror: Option<Mirror>,
}

/// Most tables an incremental [`PdbState`] tracks (more fall back to full lookups).
pub const MAX_TABLES: usize = 16;

/// The per-table values of one position, carried along a search path so that a move re-reads only
/// the tables of the tile that moved.
#[derive(Clone, Copy, Debug)]
pub struct PdbState {
    normal: [u8; MAX_TABLES],
    mirrored: [u8; MAX_TABLES],
    /// The estimate: the larger of the two sums.
    pub h: u32,
}

impl AdditivePdb {
    /// Loads the tables for this board and goal from the cache, building (and saving) any missing
    /// within `limits`.
    pub fn load_or_build(
        rows: usize,
        cols: usize,
        goal: &[u8],
        options: &PdbOptions,
        limits: &Limits,
    ) -> Result<Self, PdbError> {
        let n = rows * cols;
        if n > 64 {
            return Err(io::Error::other("pattern databases support boards of at most 64 cells").into());
        }
        let partition = options.partition.groups(goal).map_err(io::Error::other)?;
        let dir = options.cache_dir();
        let mut dbs = Vec::new();
        for tiles in partition {
            let path = dir.join(cache_name(rows, cols, goal, &tiles));
            let db = match load(&path, rows, cols, goal, &tiles)? {
                Some(db) => db,
                None => {
                    let db = PatternDb::build(rows, cols, goal, &tiles, options.progress, limits)?;
                    // A cache that cannot be written costs the next run the build, not this one
                    // the table.
                    if let Err(e) = save(&path, rows, cols, goal, &db) {
                        crate::traceln!("warning: pattern database not kept: cannot write {}: {e}", path.display());
                    }
                    db
                }
            };
            dbs.push(db);
        }
        let mut table_of = vec![0u8; n];
        for (g, db) in dbs.iter().enumerate() {
            for &t in &db.tiles {
                table_of[t as usize] = g as u8;
            }
        }
        let mirror = if options.reflect { Mirror::new(rows, cols, goal, &dbs) } else { None };
        Ok(AdditivePdb { dbs, table_of, mirror })
    }

    /// Whether mirrored lookups are in use.
    pub fn reflects(&self) -> bool {
        self.mirror.is_some()
    }

    /// The table values of a position given as the cell of every tile.
    pub fn state(&self, position: &[u8]) -> PdbState {
        let mut state = PdbState { normal: [0; MAX_TABLES], mirrored: [0; MAX_TABLES], h: 0 };
        for (g, db) in self.dbs.iter().enumerate().take(MAX_TABLES) {
            state.normal[g] = db.lookup(position);
            if let Some(m) = &self.mirror {
                state.mirrored[g] = db.lookup_mirrored(position, &m.sources[g], &m.cells);
            }
        }
        state.h = self.total(&state, position);
        state
    }

    /// The table values after `tile` moved (`position` is already updated), from the values before.
    #[inline]
    pub fn step(&self, before: &PdbState, position: &[u8], tile: u8) -> PdbState {
        let mut state = *before;
        let g = self.table_of[tile as usize] as usize;
        if g < MAX_TABLES {
            state.normal[g] = self.dbs[g].lookup(position);
        }
        if let Some(m) = &self.mirror {
            let g = m.table_of[tile as usize] as usize;
            if g < MAX_TABLES {
                state.mirrored[g] = self.dbs[g].lookup_mirrored(position, &m.sources[g], &m.cells);
            }
        }
        state.h = self.total(&state, position);
        state
    }

    #[inline]
    fn total(&self, state: &PdbState, position: &[u8]) -> u32 {
        if self.dbs.len() > MAX_TABLES {
            return self.estimate_position(position);
        }
        let k = self.dbs.len();
        let normal: u32 = state.normal[..k].iter().map(|&v| v as u32).sum();
        let mirrored: u32 = state.mirrored[..k].iter().map(|&v| v as u32).sum();
        normal.max(mirrored)
    }

    fn estimate_position(&self, position: &[u8]) -> u32 {
        let normal: u32 = self.dbs.iter().map(|db| db.lookup(position) as u32).sum();
        let mirrored: u32 = match &self.mirror {
            Some(m) => self
                .dbs
                .iter()
                .zip(&m.sources)
                .map(|(db, src)| db.lookup_mirrored(position, src, &m.cells) as u32)
                .sum(),
            None => 0,
        };
        normal.max(mirrored)
    }

    /// The groups' tables.
    pub fn tables(&self) -> &[PatternDb] {
        &self.dbs
    }

    /// Bytes its tables hold (one a placement of each group; a table read from the cache is a
    /// mapping of the file, counted as if it were resident).
    pub fn bytes(&self) -> u64 {
        self.dbs.iter().map(|db| db.len() as u64).sum()
    }

    /// The estimate for a position given as the tile in every cell.
    #[inline]
    pub fn estimate(&self, cells: &[u8]) -> u32 {
        let mut position = [0u8; 64];
        for (c, &t) in cells.iter().enumerate() {
            position[t as usize] = c as u8;
        }
        self.estimate_position(&position)
    }
}

fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

fn cache_name(rows: usize, cols: usize, goal: &[u8], tiles: &[u8]) -> String {
    let tiles: Vec<String> = tiles.iter().map(u8::to_string).collect();
    format!("pdb-{rows}x{cols}-goal{:016x}-tiles{}.bin", fnv1a(goal), tiles.join("_"))
}

fn header(rows: usize, cols: usize, goal: &[u8], tiles: &[u8], len: u64, checksum: u64) -> Vec<u8> {
    let mut h = MAGIC.to_vec();
    h.extend([rows as u8, cols as u8, tiles.len() as u8]);
    h.extend(tiles);
    h.extend(goal);
    h.extend(len.to_le_bytes());
    h.extend(checksum.to_le_bytes());
    h
}

fn save(path: &Path, rows: usize, cols: usize, goal: &[u8], db: &PatternDb) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let values = db.values();
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut f = File::create(&tmp)?;
    f.write_all(&header(rows, cols, goal, &db.tiles, values.len() as u64, fnv1a(values)))?;
    f.write_all(values)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// Maps a cached table; `None` when absent, from another board or goal, or corrupt (rebuilt then).
fn load(path: &Path, rows: usize, cols: usize, goal: &[u8], tiles: &[u8]) -> io::Result<Option<PatternDb>> {
    let Ok(file) = File::open(path) else { return Ok(None) };
    // SAFETY: the file is only ever replaced by rename, never modified in place, so the mapping
    // stays valid while we hold it.
    let map = unsafe { Mmap::map(&file)? };
    let n = rows * cols;
    let expected_len = placements(n, tiles.len());
    let head_len = header(rows, cols, goal, tiles, 0, 0).len();
    if map.len() != head_len + expected_len as usize {
        return Ok(None);
    }
    let checksum = fnv1a(&map[head_len..]);
    if map[..head_len] != header(rows, cols, goal, tiles, expected_len, checksum)[..] {
        return Ok(None);
    }
    Ok(Some(PatternDb { tiles: tiles.to_vec(), n, table: Table::Mapped(map, head_len) }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_prints_as_it_is_written() {
        for text in ["default", "7-8", "6-6-3", "1,2,3/4,5,6,7"] {
            assert_eq!(text.parse::<Partition>().unwrap().to_string(), text);
        }
        assert_eq!(" DEFAULT ".parse::<Partition>().unwrap().to_string(), "default");
    }

    #[test]
    fn mirrored_lookups_of_an_exact_table_give_the_exact_distance_too() {
        // One table over all 8 tiles is the exact distance; the mirror image of a position is at
        // the same distance from the (symmetric) goal, so both sums must agree on every position.
        for goal in [[1u8, 2, 3, 4, 5, 6, 7, 8, 0], [0, 1, 2, 3, 4, 5, 6, 7, 8]] {
            let dir = std::env::temp_dir().join(format!("slidesolve-unit-mirror-{}", std::process::id()));
            let options = PdbOptions { cache_dir: Some(dir), ..PdbOptions::default() };
            let pdb = AdditivePdb::load_or_build(3, 3, &goal, &options, &Limits::default()).unwrap();
            assert!(pdb.reflects());
            let mut cells = goal;
            let mut seed = 12345u64;
            for _ in 0..2000 {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let (a, b) = ((seed >> 33) as usize % 9, (seed >> 40) as usize % 9);
                cells.swap(a, b);
                let mut position = [0u8; 9];
                for (c, &t) in cells.iter().enumerate() {
                    position[t as usize] = c as u8;
                }
                let db = &pdb.tables()[0];
                let m = pdb.mirror.as_ref().unwrap();
                let normal = db.lookup(&position);
                let mirrored = db.lookup_mirrored(&position, &m.sources[0], &m.cells);
                // Unsolvable halves are unreachable (0x7f in the table) in both views alike.
                assert_eq!(normal, mirrored, "{cells:?}");
            }
        }
    }

    #[test]
    fn rank_and_unrank_are_inverse_bijections() {
        let (n, k) = (6, 3);
        let mut seen = vec![false; placements(n, k) as usize];
        for i in 0..placements(n, k) {
            let mut pos = [0u8; 3];
            unrank(i, n, &mut pos);
            assert_eq!(rank(&pos, n), i);
            assert!(!std::mem::replace(&mut seen[i as usize], true));
        }
    }

    #[test]
    fn exact_8_puzzle_database_has_the_known_diameter() {
        let goal = [1, 2, 3, 4, 5, 6, 7, 8, 0];
        let db = PatternDb::build(3, 3, &goal, &[1, 2, 3, 4, 5, 6, 7, 8], false, &Limits::default()).unwrap();
        assert_eq!(db.len(), 181_440 * 2);
        // The farthest 8-puzzle positions are 31 moves away; the table holds the exact distance.
        let far = [8, 6, 7, 2, 5, 4, 3, 0, 1];
        let mut position = [0u8; 9];
        for (c, &t) in far.iter().enumerate() {
            position[t as usize] = c as u8;
        }
        assert_eq!(db.lookup(&position), 31);
    }

    #[test]
    fn a_build_stops_at_the_deadline_and_refuses_a_table_over_the_budget() {
        let goal = [1, 2, 3, 4, 5, 6, 7, 8, 0];
        let past = Limits { deadline: Some(Instant::now()), ..Limits::default() };
        let stopped = PatternDb::build(3, 3, &goal, &[1, 2, 3, 4, 5, 6, 7, 8], false, &past);
        assert!(matches!(stopped, Err(PdbError::Limit(LimitHit::Time))));
        // 9!/1! placements of 8 tiles times 9 blank cells: 3,265,920 bytes, and the pending bits
        // and the table on top.
        let small = Limits { max_memory: Some(3_265_920), ..Limits::default() };
        let Err(PdbError::TooLarge(e)) = PatternDb::build(3, 3, &goal, &[1, 2, 3, 4, 5, 6, 7, 8], false, &small) else {
            panic!("a table over the budget must be refused")
        };
        assert_eq!((e.bytes, e.limit), (3_265_920 + 798 * 8 + 362_880, 3_265_920));
    }
}
