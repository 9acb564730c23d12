//! A gallery: the pictures of the top K rows of a results table (the deepest solutions of a batch,
//! the hardest layouts of a family), written as `NAME-RANK-LABEL.svg` files into one directory
//! with an index `NAME.csv` that links each rank to its row.
//!
//! Ranking is decided here once: the largest score first, ties by the order in which the rows
//! were offered (the table's own order), so a table gives the same gallery however it was made.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;
use std::path::{Path, PathBuf};

/// The most pictures a gallery may ask for (`--draw-hardest`, `--draw-deepest`).
pub const MAX_PICTURES: usize = 1000;

/// Parses a picture count: a whole number from 1 to [`MAX_PICTURES`].
pub fn parse_count(text: &str) -> Result<usize, String> {
    let k: usize = text.trim().parse().map_err(|_| format!("'{text}' is not a whole number of pictures"))?;
    if (1..=MAX_PICTURES).contains(&k) {
        Ok(k)
    } else {
        Err(format!("the picture count must be from 1 to {MAX_PICTURES}, not {k}"))
    }
}

/// One offered row in the heap: ordered so that the heap's top is the row to drop first.
struct Ranked<T> {
    score: u64,
    seq: usize,
    item: T,
}

impl<T> Ranked<T> {
    fn key(&self) -> (Reverse<u64>, usize) {
        (Reverse(self.score), self.seq)
    }
}

impl<T> PartialEq for Ranked<T> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl<T> Eq for Ranked<T> {}
impl<T> PartialOrd for Ranked<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Ranked<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

/// The `k` items of the largest score among those offered, ties kept in the order offered;
/// holds at most `k + 1` items at once, however many are offered.
pub struct Top<T> {
    k: usize,
    offered: usize,
    heap: BinaryHeap<Ranked<T>>,
}

impl<T> Top<T> {
    /// An empty selection of `k` items.
    pub fn new(k: usize) -> Top<T> {
        Top { k, offered: 0, heap: BinaryHeap::with_capacity(k.saturating_add(1).min(MAX_PICTURES + 1)) }
    }

    /// Offers one item.
    pub fn offer(&mut self, score: u64, item: T) {
        self.heap.push(Ranked { score, seq: self.offered, item });
        self.offered += 1;
        if self.heap.len() > self.k {
            self.heap.pop();
        }
    }

    /// The items kept, best first.
    pub fn best(self) -> Vec<T> {
        self.heap.into_sorted_vec().into_iter().map(|r| r.item).collect()
    }
}

/// A gallery being written: its directory, its name, its index rows.
pub struct Gallery {
    dir: PathBuf,
    name: String,
    width: usize,
    index: csv::Writer<std::fs::File>,
}

/// `text` reduced to the characters safe in a file name on every system (letters, digits, `.`,
/// `-`, `_`; the rest becomes `_`), at most 80 of them.
pub fn file_label(text: &str) -> String {
    text.chars().take(80).map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect()
}

impl Gallery {
    /// Starts the gallery `name` of up to `count` pictures in `dir` (created if missing): removes
    /// the pictures an earlier index `NAME.csv` there lists (only those), then writes the index
    /// header `rank,COLUMNS...,picture`.
    pub fn create(dir: &Path, name: &str, count: usize, columns: &[&str]) -> io::Result<Gallery> {
        std::fs::create_dir_all(dir).map_err(|e| named(dir, e))?;
        let index_path = dir.join(format!("{name}.csv"));
        remove_listed(dir, &index_path)?;
        let file = std::fs::File::create(&index_path).map_err(|e| named(&index_path, e))?;
        let mut index = csv::Writer::from_writer(file);
        let header: Vec<&str> = std::iter::once("rank").chain(columns.iter().copied()).chain(["picture"]).collect();
        index.write_record(&header).map_err(|e| named(&index_path, e.into()))?;
        let width = count.to_string().len().max(3);
        Ok(Gallery { dir: dir.to_path_buf(), name: name.to_string(), width, index })
    }

    /// The file name of the picture of `rank` (1-based) labelled `label`, with `suffix`
    /// (`NAME-007-LABEL-SUFFIX.svg`).
    pub fn file_name(&self, rank: usize, label: &str, suffix: &str) -> String {
        let suffix = if suffix.is_empty() { String::new() } else { format!("-{suffix}") };
        format!("{}-{rank:0w$}-{}{suffix}.svg", self.name, file_label(label), w = self.width)
    }

    /// Writes one picture file into the gallery's directory and returns its path.
    pub fn write(&self, file_name: &str, svg: &str) -> io::Result<PathBuf> {
        let path = self.dir.join(file_name);
        std::fs::write(&path, svg).map_err(|e| named(&path, e))?;
        Ok(path)
    }

    /// Adds the index row of `rank`: its columns and its pictures (space-separated; empty when
    /// none could be drawn).
    pub fn list(&mut self, rank: usize, columns: &[String], pictures: &[String]) -> io::Result<()> {
        let rank = rank.to_string();
        let pictures = pictures.join(" ");
        let record: Vec<&str> = std::iter::once(rank.as_str())
            .chain(columns.iter().map(String::as_str))
            .chain([pictures.as_str()])
            .collect();
        self.index.write_record(&record)?;
        self.index.flush()
    }
}

/// The error `e` with the path it is about.
fn named(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Removes the pictures listed in the last column of an earlier index (plain file names in `dir`
/// only: a name with a path separator or a dot-dot is left alone).
fn remove_listed(dir: &Path, index_path: &Path) -> io::Result<()> {
    let Ok(mut reader) = csv::ReaderBuilder::new().flexible(true).from_path(index_path) else { return Ok(()) };
    for record in reader.records().map_while(Result::ok) {
        let names = record.iter().next_back().unwrap_or_default().split(' ');
        for name in names.filter(|n| n.ends_with(".svg") && !n.contains(['/', '\\']) && !n.starts_with('.')) {
            match std::fs::remove_file(dir.join(name)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(named(&dir.join(name), e)),
                _ => {}
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_keeps_the_largest_scores_and_breaks_ties_by_order() {
        let top = |k: usize| {
            let mut top = Top::new(k);
            for (score, item) in [(5, 'a'), (9, 'b'), (5, 'c'), (9, 'd'), (1, 'e'), (7, 'f')] {
                top.offer(score, item);
            }
            top.best()
        };
        assert_eq!(top(3), vec!['b', 'd', 'f']);
        assert_eq!(top(5), vec!['b', 'd', 'f', 'a', 'c']);
        assert_eq!(top(100), vec!['b', 'd', 'f', 'a', 'c', 'e']);
    }

    #[test]
    fn counts_are_from_one_to_the_cap() {
        assert_eq!(parse_count("3"), Ok(3));
        assert_eq!(parse_count("1000"), Ok(1000));
        assert!(parse_count("0").unwrap_err().contains("from 1 to 1000"));
        assert!(parse_count("1001").is_err());
        assert!(parse_count("99999999999999999999999").unwrap_err().contains("not a whole number"));
        assert!(parse_count("x").is_err());
        assert!(parse_count("-1").is_err());
    }

    #[test]
    fn a_new_gallery_removes_only_the_pictures_its_old_index_lists() {
        let dir = tempfile::tempdir().unwrap();
        let mut g = Gallery::create(dir.path(), "deep", 2, &["id"]).unwrap();
        let name = g.file_name(1, "corpora/a b.txt:3", "");
        assert_eq!(name, "deep-001-corpora_a_b.txt_3.svg");
        g.write(&name, "<svg/>").unwrap();
        g.list(1, &["corpora/a b.txt:3".into()], std::slice::from_ref(&name)).unwrap();
        drop(g);
        std::fs::write(dir.path().join("mine.svg"), "x").unwrap();
        let _ = Gallery::create(dir.path(), "deep", 2, &["id"]).unwrap();
        assert!(!dir.path().join(&name).exists());
        assert!(dir.path().join("mine.svg").exists());
        assert_eq!(std::fs::read_to_string(dir.path().join("deep.csv")).unwrap(), "rank,id,picture\n");
    }
}
