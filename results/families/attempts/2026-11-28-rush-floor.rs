//! A hand-specialised Rush Hour class analysis, written only to measure a floor (stop 55, issue 13):
//! how fast can this machine split the 6x6 family (A in row 2, cars and trucks moving along their
//! length, straight metric) into its solvable components and measure each by a multi-source BFS
//! from its goal layouts, with every trick a Rush-only program may use?
//! - Fogleman's groups: each row and column keeps the sizes of its pieces in order, so within a
//!   group the pieces are told apart by lane and rank, a layout is 3 bits of offset per piece in
//!   one u64 (no sorting of identical pieces), and a slide adds or subtracts a shifted constant;
//! - occupancy as one u64 bitboard; hashbrown (its default hasher) from key to index, as slidesolve.
//!
//! The algorithm is slidesolve's seeds search (`src/family/seeds.rs`): seeds are goal layouts in
//! which no piece but A can step up or left, listed lane by lane; a search from a seed gives up at
//! the first goal layout smaller than the seed; seeds met are marked and skipped; edges are kept
//! for the distance BFS. It does not test minimality or write database lines.
//!
//! Not part of the crate. To build: `cargo new floor`, add `hashbrown = "0.15"`, copy this file to
//! `src/main.rs`, `cargo build --release` (release profile: codegen-units = 1, lto = "thin").
//! Usage: `floor H V T U [db]` (one class: horizontal cars, vertical cars, horizontal trucks,
//! vertical trucks), `floor all K N [db]` (every class whose index is K modulo N); `db` applies the
//! database rule's invariants (row 2 holds only A, no lane filled by its own pieces).

use hashbrown::HashMap;
use std::time::Instant;

const W: usize = 6;

#[derive(Clone)]
struct Entry {
    /// (len, offset, is_a) in lane order.
    pieces: Vec<(u8, u8, bool)>,
    mask: u64,
    require: u64,
    counts: [u8; 2],
}

fn cell(lane: usize, horizontal: bool, pos: usize) -> u64 {
    if horizontal { 1u64 << (lane * W + pos) } else { 1u64 << (pos * W + lane) }
}

fn lane_entries(lane: usize, horizontal: bool, primary: bool, db: bool) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut cur: Vec<(u8, u8, bool)> = Vec::new();
    fn rec(
        lane: usize,
        horizontal: bool,
        primary: bool,
        db: bool,
        pos: usize,
        cur: &mut Vec<(u8, u8, bool)>,
        out: &mut Vec<Entry>,
    ) {
        if pos >= W {
            let has_a = cur.iter().any(|p| p.2);
            if primary != has_a {
                return;
            }
            let used: u8 = cur.iter().map(|p| p.0).sum();
            if db && (used as usize == W || (primary && cur.len() != 1)) {
                return;
            }
            let mut mask = 0u64;
            let mut counts = [0u8; 2];
            for &(len, off, a) in cur.iter() {
                for k in 0..len as usize {
                    mask |= cell(lane, horizontal, off as usize + k);
                }
                if !a {
                    counts[(len - 2) as usize] += 1;
                }
            }
            let mut require = 0u64;
            for &(_, off, a) in cur.iter() {
                if !a && off > 0 {
                    let c = cell(lane, horizontal, off as usize - 1);
                    if mask & c == 0 {
                        require |= c;
                    }
                }
            }
            out.push(Entry { pieces: cur.clone(), mask, require, counts });
            return;
        }
        // empty cell
        rec(lane, horizontal, primary, db, pos + 1, cur, out);
        for len in 2..=3usize {
            if pos + len > W {
                continue;
            }
            cur.push((len as u8, pos as u8, false));
            rec(lane, horizontal, primary, db, pos + len, cur, out);
            cur.pop();
        }
        if primary && pos == 4 && !cur.iter().any(|p| p.2) {
            cur.push((2, 4, true));
            rec(lane, horizontal, primary, db, pos + 2, cur, out);
            cur.pop();
        }
    }
    rec(lane, horizontal, primary, db, 0, &mut cur, &mut out);
    out
}

#[derive(Clone, Copy, Default)]
struct Piece {
    /// Cells at offset 0.
    base: u64,
    /// The lane's first cell.
    first: u64,
    stride: u32,
    len: u32,
    shift: u32,
}

struct Group {
    pieces: Vec<Piece>,
    /// Index of A among the pieces.
    a: usize,
}

impl Group {
    #[inline(always)]
    fn offset(&self, key: u64, i: usize) -> u32 {
        ((key >> self.pieces[i].shift) & 7) as u32
    }
    #[inline(always)]
    fn occ(&self, key: u64) -> u64 {
        let mut occ = 0;
        for p in &self.pieces {
            let o = ((key >> p.shift) & 7) as u32;
            occ |= p.base << (o * p.stride);
        }
        occ
    }
    #[inline(always)]
    fn is_goal(&self, key: u64) -> bool {
        self.offset(key, self.a) == 4
    }
    /// No piece but A can step up or left.
    fn is_seed(&self, key: u64, occ: u64) -> bool {
        self.is_goal(key)
            && self.pieces.iter().enumerate().all(|(i, p)| {
                let o = ((key >> p.shift) & 7) as u32;
                i == self.a || o == 0 || occ & (p.first << ((o - 1) * p.stride)) != 0
            })
    }
    #[inline(always)]
    fn for_each_child(&self, key: u64, occ: u64, mut f: impl FnMut(u64)) {
        for p in &self.pieces {
            let o = ((key >> p.shift) & 7) as u32;
            let unit = 1u64 << p.shift;
            let mut t = o;
            while t > 0 && occ & (p.first << ((t - 1) * p.stride)) == 0 {
                t -= 1;
                f(key - ((o - t) as u64) * unit);
            }
            let mut t = o;
            while t + p.len < W as u32 && occ & (p.first << ((t + p.len) * p.stride)) == 0 {
                t += 1;
                f(key + ((t - o) as u64) * unit);
            }
        }
    }
}


/// (components, layouts, largest, hardest, goal layouts, seeds) of one class.
fn run_class(h: usize, v: usize, t: usize, u: usize, db: bool) -> (u64, u64, u64, u32, u64, u64) {
    let start = Instant::now();
    let lanes: Vec<Vec<Entry>> = (0..2 * W)
        .map(|l| if l < W { lane_entries(l, true, l == 2, db) } else { lane_entries(l - W, false, false, db) })
        .collect();
    // Seeds, by recursion over lanes.
    let mut groups: Vec<Group> = Vec::new();
    let mut group_of: HashMap<Vec<u8>, u64> = HashMap::new();
    let mut seeds: Vec<(u64, u64)> = Vec::new();
    let mut chosen: Vec<usize> = vec![0; 2 * W];
    #[allow(clippy::too_many_arguments)]
    fn rec(
        lanes: &[Vec<Entry>],
        l: usize,
        occ: u64,
        require: u64,
        need: [[usize; 2]; 2],
        chosen: &mut Vec<usize>,
        emit: &mut dyn FnMut(&[usize]),
    ) {
        if l == 2 * W {
            if need == [[0, 0], [0, 0]] && occ & require == require {
                emit(chosen);
            }
            return;
        }
        if l == W && need[0] != [0, 0] {
            return;
        }
        let axis = (l >= W) as usize;
        if axis == 1 {
            let c = l - W;
            let mut free = 0;
            for col in c..W {
                for r in 0..W {
                    free += (occ >> (r * W + col) & 1 == 0) as usize;
                }
            }
            if 2 * need[1][0] + 3 * need[1][1] > free {
                return;
            }
        }
        for (j, e) in lanes[l].iter().enumerate() {
            if e.mask & occ != 0 || e.counts[0] as usize > need[axis][0] || e.counts[1] as usize > need[axis][1] {
                continue;
            }
            if axis == 1 {
                let col: u64 = (0..W).map(|r| 1u64 << (r * W + l - W)).sum();
                if e.require & !occ != 0 || require & col & !(occ | e.mask) != 0 {
                    continue;
                }
            }
            let mut n = need;
            n[axis][0] -= e.counts[0] as usize;
            n[axis][1] -= e.counts[1] as usize;
            chosen[l] = j;
            rec(lanes, l + 1, occ | e.mask, require | e.require, n, chosen, emit);
        }
    }
    {
        let mut emit = |chosen: &[usize]| {
            let mut sig = Vec::new();
            let mut offsets = Vec::new();
            for (l, &j) in chosen.iter().enumerate() {
                for &(len, off, a) in &lanes[l][j].pieces {
                    sig.push(if a { 9 } else { len });
                    offsets.push(off);
                }
                sig.push(0);
            }
            let n = offsets.len();
            let id = *group_of.entry(sig).or_insert_with(|| {
                let mut pieces = Vec::new();
                let mut a = 0;
                let mut i = 0;
                for (l, &j) in chosen.iter().enumerate() {
                    let horizontal = l < W;
                    let lane = l % W;
                    for &(len, _, is_a) in &lanes[l][j].pieces {
                        let mut base = 0;
                        for k in 0..len as usize {
                            base |= cell(lane, horizontal, k);
                        }
                        if is_a {
                            a = i;
                        }
                        pieces.push(Piece {
                            base,
                            first: cell(lane, horizontal, 0),
                            stride: if horizontal { 1 } else { W as u32 },
                            len: len as u32,
                            shift: 3 * (n - 1 - i) as u32,
                        });
                        i += 1;
                    }
                }
                groups.push(Group { pieces, a });
                (groups.len() - 1) as u64
            });
            let mut key = 0u64;
            for (i, &o) in offsets.iter().enumerate() {
                key |= (o as u64) << (3 * (n - 1 - i));
            }
            seeds.push((id, key));
        };
        rec(&lanes, 0, 0, 0, [[h, t], [v, u]], &mut chosen, &mut emit);
    }
    seeds.sort_unstable();
    let listed = start.elapsed().as_secs_f64();
    let mut met = vec![false; seeds.len()];

    // Per-component tables, reused.
    let mut index: HashMap<u64, u32> = HashMap::with_capacity(1024);
    let mut keys: Vec<u64> = Vec::new();
    let mut edges: Vec<u32> = Vec::new();
    let mut starts: Vec<u32> = Vec::new();
    let mut dist: Vec<u32> = Vec::new();
    let mut queue: Vec<u32> = Vec::new();
    let (mut components, mut layouts, mut largest, mut hardest, mut goals_total) = (0u64, 0u64, 0u64, 0u32, 0u64);
    let mut searched = 0u64;
    for s in 0..seeds.len() {
        if met[s] {
            continue;
        }
        searched += 1;
        let (gid, low) = seeds[s];
        let g = &groups[gid as usize];
        if index.capacity() > 4096 {
            index = HashMap::with_capacity(1024);
        } else {
            index.clear();
        }
        keys.clear();
        edges.clear();
        starts.clear();
        index.insert(low, 0);
        keys.push(low);
        let mut head = 0;
        let mut given_up = false;
        while head < keys.len() {
            let k = keys[head];
            let occ = g.occ(k);
            if head > 0 && g.is_goal(k) && g.is_seed(k, occ) {
                if let Ok(i) = seeds.binary_search(&(gid, k)) {
                    met[i] = true;
                }
            }
            starts.push(edges.len() as u32);
            let mut smaller = false;
            g.for_each_child(k, occ, |c| {
                if c < low && g.is_goal(c) {
                    smaller = true;
                }
                let next = keys.len() as u32;
                let i = *index.entry(c).or_insert_with(|| {
                    keys.push(c);
                    next
                });
                edges.push(i);
            });
            if smaller {
                given_up = true;
                break;
            }
            head += 1;
        }
        if given_up {
            continue;
        }
        starts.push(edges.len() as u32);
        // Multi-source BFS from the goal layouts.
        dist.clear();
        dist.resize(keys.len(), u32::MAX);
        queue.clear();
        for (i, &k) in keys.iter().enumerate() {
            if g.is_goal(k) {
                dist[i] = 0;
                queue.push(i as u32);
            }
        }
        let goals = queue.len() as u64;
        let mut qh = 0;
        let mut far = 0;
        while qh < queue.len() {
            let i = queue[qh] as usize;
            qh += 1;
            let d = dist[i] + 1;
            for &j in &edges[starts[i] as usize..starts[i + 1] as usize] {
                if dist[j as usize] == u32::MAX {
                    dist[j as usize] = d;
                    far = far.max(d);
                    queue.push(j);
                }
            }
        }
        components += 1;
        layouts += keys.len() as u64;
        largest = largest.max(keys.len() as u64);
        hardest = hardest.max(far);
        goals_total += goals;
    }
    let _ = (listed, searched);
    (components, layouts, largest, hardest, goals_total, seeds.len() as u64)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let db = args.iter().any(|a| a == "db");
    let nums: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if args[0] == "all" {
        // all K N [db]: the classes whose index is K modulo N.
        let (k, n) = (nums[0], nums[1]);
        let start = Instant::now();
        let mut tot = [0u64; 3];
        let mut hardest = 0;
        let mut index = 0;
        for h in 0..=15 {
            for t in 0..=10 {
                for v in 0..=18 {
                    for u in 0..=12 {
                        if 2 * (h + v) + 3 * (t + u) > 34 {
                            continue;
                        }
                        index += 1;
                        if index % n != k {
                            continue;
                        }
                        let r = run_class(h, v, t, u, db);
                        if r.1 > 0 {
                            println!("{{\"class\":\"A=1 H={h} V={v} T={t} U={u}\",\"components\":{},\"layouts\":{},\"largest\":{},\"hardest\":{}}}", r.0, r.1, r.2, r.3);
                        }
                        tot[0] += r.0;
                        tot[1] += r.1;
                        tot[2] = tot[2].max(r.2);
                        hardest = hardest.max(r.3);
                    }
                }
            }
        }
        println!("{{\"total\":true,\"k\":{k},\"n\":{n},\"db\":{db},\"components\":{},\"layouts\":{},\"largest\":{},\"hardest\":{},\"wall_s\":{:.3}}}", tot[0], tot[1], tot[2], hardest, start.elapsed().as_secs_f64());
        return;
    }
    let (h, v, t, u) = (nums[0], nums[1], nums[2], nums[3]);
    let start = Instant::now();
    let r = run_class(h, v, t, u, db);
    let total = start.elapsed().as_secs_f64();
    println!(
        "{{\"seeds\":{},\"components\":{},\"layouts\":{},\"largest\":{},\"hardest\":{},\"goal_layouts\":{},\"wall_s\":{:.3},\"ns_per_layout\":{:.1}}}",
        r.5, r.0, r.1, r.2, r.3, r.4, total, total * 1e9 / r.1 as f64
    );
}
