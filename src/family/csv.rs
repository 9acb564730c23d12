//! The files of a family run in a directory: `components.csv`, one row per component
//! (`component,class,size,goal_layouts,hardest_moves,hardest,representative`, numbered from 0 in
//! class order, layouts in [`super::one_line`] form, empty hardest fields when unsolvable), and
//! `classes.csv`, one row per class (`class,layouts,components,largest,solvable,hardest_moves`).
//!
//! A class's component rows are written and flushed before its class row, so a class listed in
//! `classes.csv` is complete; resuming keeps those classes and drops component rows of any other.

use super::{ClassResult, ClassTotals, ComponentRow, FamilyError};
use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

const COMPONENTS_HEADER: [&str; 7] =
    ["component", "class", "size", "goal_layouts", "hardest_moves", "hardest", "representative"];
const CLASSES_HEADER: [&str; 6] = ["class", "layouts", "components", "largest", "solvable", "hardest_moves"];

/// Writes the rows of finished classes.
pub struct Writer {
    components: csv::Writer<File>,
    classes: csv::Writer<File>,
    next_component: u64,
}

fn bad_row(path: &Path, what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("{}: {what}", path.display()))
}

/// Reads the classes already finished in `dir` (none when `classes.csv` is absent).
fn finished(dir: &Path) -> Result<Vec<ClassTotals>, FamilyError> {
    let path = dir.join("classes.csv");
    if !path.exists() {
        return Ok(Vec::new());
    }
    let mut reader = csv::Reader::from_path(&path).map_err(io::Error::from)?;
    let mut done = Vec::new();
    for row in reader.records() {
        let row = row.map_err(io::Error::from)?;
        let number = |i: usize| row.get(i).and_then(|f| f.parse::<u64>().ok()).ok_or_else(|| bad_row(&path, "bad row"));
        let hardest_moves = match row.get(5) {
            Some("") => None,
            Some(f) => Some(f.parse::<u32>().map_err(|_| bad_row(&path, "bad hardest_moves"))?),
            None => return Err(bad_row(&path, "short row").into()),
        };
        done.push(ClassTotals {
            class: row.get(0).unwrap_or_default().to_string(),
            layouts: number(1)?,
            components: number(2)?,
            largest: number(3)?,
            solvable: number(4)?,
            hardest_moves,
        });
    }
    Ok(done)
}

/// Keeps the component rows of `done` classes in `path` and returns how many there are.
fn keep_components(path: &Path, done: &HashSet<&str>) -> Result<u64, FamilyError> {
    if !path.exists() {
        return Ok(0);
    }
    let kept_path: PathBuf = path.with_extension("csv.partial");
    let mut reader = csv::Reader::from_path(path).map_err(io::Error::from)?;
    let mut writer = csv::Writer::from_path(&kept_path).map_err(io::Error::from)?;
    writer.write_record(COMPONENTS_HEADER).map_err(io::Error::from)?;
    let mut kept = 0;
    for row in reader.records() {
        let row = row.map_err(io::Error::from)?;
        if row.get(1).is_some_and(|c| done.contains(c)) {
            writer.write_record(&row).map_err(io::Error::from)?;
            kept += 1;
        }
    }
    writer.flush()?;
    drop(writer);
    std::fs::rename(&kept_path, path)?;
    Ok(kept)
}

/// One row of `components.csv` read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentRecord {
    /// The component's number.
    pub component: u64,
    /// Its class's [`super::Class::describe`] text.
    pub class: String,
    /// The component.
    pub row: ComponentRow,
}

/// Reads `components.csv` in `dir` into `each`, row by row; an error names the file and the line.
pub fn read_components(dir: &Path, mut each: impl FnMut(ComponentRecord)) -> io::Result<()> {
    let path = dir.join("components.csv");
    let mut reader = csv::Reader::from_path(&path).map_err(|e| bad_row(&path, &e.to_string()))?;
    let header = reader.headers().map_err(|e| bad_row(&path, &e.to_string()))?;
    if header.iter().ne(COMPONENTS_HEADER) {
        let header = header.iter().collect::<Vec<_>>().join(",");
        return Err(bad_row(&path, &format!("not a components file (its header is '{header}')")));
    }
    for row in reader.records() {
        let row = row.map_err(|e| bad_row(&path, &e.to_string()))?;
        let line = row.position().map_or(0, |p| p.line());
        let bad = |what: &str| bad_row(&path, &format!("line {line}: {what}"));
        let field = |i: usize| row.get(i).ok_or_else(|| bad("short row"));
        let number = |i: usize| field(i)?.parse::<u64>().map_err(|_| bad(&format!("bad {}", COMPONENTS_HEADER[i])));
        let hardest_moves = match field(4)? {
            "" => None,
            f => Some(f.parse::<u32>().map_err(|_| bad("bad hardest_moves"))?),
        };
        let hardest = Some(field(5)?).filter(|f| !f.is_empty()).map(String::from);
        each(ComponentRecord {
            component: number(0)?,
            class: field(1)?.to_string(),
            row: ComponentRow {
                size: number(2)?,
                goal_layouts: number(3)?,
                hardest_moves,
                hardest,
                representative: field(6)?.to_string(),
            },
        });
    }
    Ok(())
}

impl Writer {
    /// Opens the files in `dir` (created if missing); with `resume`, returns the classes already
    /// finished there and appends after them, else starts both files afresh.
    pub fn open(dir: &Path, resume: bool) -> Result<(Writer, Vec<ClassTotals>), FamilyError> {
        std::fs::create_dir_all(dir)?;
        let done = if resume { finished(dir)? } else { Vec::new() };
        let names: HashSet<&str> = done.iter().map(|t| t.class.as_str()).collect();
        let components_path = dir.join("components.csv");
        let next_component = if resume { keep_components(&components_path, &names)? } else { 0 };
        let open = |path: &Path, header: &[&str], append: bool| -> Result<csv::Writer<File>, FamilyError> {
            let append = append && path.exists();
            let file =
                std::fs::OpenOptions::new().create(true).write(true).append(append).truncate(!append).open(path)?;
            let mut writer = csv::Writer::from_writer(file);
            if !append {
                writer.write_record(header).map_err(io::Error::from)?;
                writer.flush()?;
            }
            Ok(writer)
        };
        let classes_path = dir.join("classes.csv");
        let writer = Writer {
            components: open(&components_path, &COMPONENTS_HEADER, resume)?,
            classes: open(&classes_path, &CLASSES_HEADER, resume && !done.is_empty())?,
            next_component,
        };
        Ok((writer, done))
    }

    /// Writes and flushes one finished class: its components, then its class row.
    pub fn write(&mut self, result: &ClassResult) -> io::Result<()> {
        for c in &result.components {
            let moves = c.hardest_moves.map(|d| d.to_string()).unwrap_or_default();
            self.components.write_record([
                self.next_component.to_string().as_str(),
                &result.class,
                &c.size.to_string(),
                &c.goal_layouts.to_string(),
                &moves,
                c.hardest.as_deref().unwrap_or(""),
                &c.representative,
            ])?;
            self.next_component += 1;
        }
        self.components.flush()?;
        let t = result.totals();
        self.classes.write_record([
            t.class.as_str(),
            &t.layouts.to_string(),
            &t.components.to_string(),
            &t.largest.to_string(),
            &t.solvable.to_string(),
            &t.hardest_moves.map(|d| d.to_string()).unwrap_or_default(),
        ])?;
        self.classes.flush()?;
        self.classes.get_ref().sync_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn result(class: &str, sizes: &[u64]) -> ClassResult {
        let components = sizes
            .iter()
            .map(|&size| ComponentRow {
                size,
                goal_layouts: 1,
                hardest_moves: Some(size as u32 - 1),
                hardest: Some("A.".into()),
                representative: ".A".into(),
            })
            .collect();
        ClassResult {
            class: class.into(),
            layouts: sizes.iter().sum(),
            components,
            peak_bytes: 0,
            database: Vec::new(),
        }
    }

    #[test]
    fn resuming_keeps_finished_classes_and_drops_partial_rows() {
        let dir = tempfile::tempdir().unwrap();
        let (mut w, done) = Writer::open(dir.path(), true).unwrap();
        assert!(done.is_empty());
        w.write(&result("A=1 empty=1", &[2, 3])).unwrap();
        drop(w);
        // A killed run: component rows of a class whose class row never came.
        let mut f = std::fs::OpenOptions::new().append(true).open(dir.path().join("components.csv")).unwrap();
        f.write_all(b"2,A=2 empty=0,1,1,0,AA,AA\n").unwrap();
        let (mut w, done) = Writer::open(dir.path(), true).unwrap();
        assert_eq!(
            done,
            vec![ClassTotals {
                class: "A=1 empty=1".into(),
                layouts: 5,
                components: 2,
                largest: 3,
                solvable: 2,
                hardest_moves: Some(2)
            }]
        );
        w.write(&result("A=2 empty=0", &[1])).unwrap();
        drop(w);
        let components = std::fs::read_to_string(dir.path().join("components.csv")).unwrap();
        assert_eq!(
            components,
            "component,class,size,goal_layouts,hardest_moves,hardest,representative\n\
             0,A=1 empty=1,2,1,1,A.,.A\n1,A=1 empty=1,3,1,2,A.,.A\n2,A=2 empty=0,1,1,0,A.,.A\n"
        );
        let classes = std::fs::read_to_string(dir.path().join("classes.csv")).unwrap();
        assert_eq!(
            classes,
            "class,layouts,components,largest,solvable,hardest_moves\nA=1 empty=1,5,2,3,2,2\nA=2 empty=0,1,1,1,1,0\n"
        );
    }
}
