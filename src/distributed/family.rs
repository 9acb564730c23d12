//! `family` over MPI: the piece-count classes are the jobs of the work queue ([`super::queue`]),
//! named by their [`Class::describe`] text; rank 0 puts the results back in class order
//! ([`InOrder`]), so every file it writes is the one a single process writes.

use super::queue::{Gate, Jobs, mismatch_message};
use crate::family::spec::FamilySpec;
use crate::family::{
    Class, ClassResult, FamilyError, InOrder, OnClass, Ran, Settings, analyse_alone, analyse_class, runs_alone,
};
use crate::memory::TooLarge;
use crate::rounds::Done;
use crate::search::LimitHit;
use std::sync::Mutex;

/// The classes of a family as jobs: every class of the spec, analysed as in one process.
pub struct Classes<'a> {
    spec: &'a FamilySpec,
    classes: &'a [Class],
    names: Vec<String>,
    settings: Settings,
}

impl<'a> Classes<'a> {
    /// Every class of `spec` (all of them, in class order: the ranks name jobs by position),
    /// analysed with `settings`, on every thread of the rayon pool the queue runs on.
    pub fn new(spec: &'a FamilySpec, classes: &'a [Class], settings: Settings) -> Self {
        let names = classes.iter().map(|c| c.describe(spec)).collect();
        Classes { spec, classes, names, settings }
    }
}

/// Why a class gave no result on its rank, as it travels to rank 0.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum Failure {
    /// A limit stopped it first ([`FamilyError::Stopped`], with the class's name and the bytes it
    /// held).
    Stopped(String, LimitHit, u64),
    /// Its tables would not fit in the memory budget ([`FamilyError::Memory`], with the class's name).
    Memory(String, TooLarge),
    /// Any other error, as its message.
    Error(String),
}

impl From<FamilyError> for Failure {
    fn from(e: FamilyError) -> Self {
        match e {
            FamilyError::Stopped(class, hit, bytes) => Failure::Stopped(class, hit, bytes),
            FamilyError::Memory(class, too_large) => Failure::Memory(class, too_large),
            e => Failure::Error(e.to_string()),
        }
    }
}

impl From<Failure> for FamilyError {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Stopped(class, hit, bytes) => FamilyError::Stopped(class, hit, bytes),
            Failure::Memory(class, too_large) => FamilyError::Memory(class, too_large),
            Failure::Error(message) => FamilyError::Rank(message),
        }
    }
}

impl Jobs for Classes<'_> {
    /// A class's result, or why there is none.
    type Output = Result<ClassResult, Failure>;

    fn threads(&self) -> usize {
        rayon::current_num_threads()
    }

    fn name(&self, i: usize) -> Option<String> {
        self.names.get(i).cloned()
    }

    fn run(&self, i: usize) -> Done<Self::Output> {
        // Every thread of the rank analyses a class at once, each within an equal share of the
        // rank's budget; a class over its share, or that could not have it beside the others, runs
        // again alone ([`analyse_alone`]).
        let share = self.settings.share(self.threads());
        match analyse_class(self.spec, &self.classes[i], share) {
            Err(e) if runs_alone(&e, share.memory_limit, self.settings.memory_limit) => Done::Alone,
            result => Done::Output(result.map_err(Failure::from)),
        }
    }

    fn run_alone(&self, i: usize) -> Self::Output {
        let share_was_whole = self.settings.share(self.threads()).memory_limit == self.settings.memory_limit;
        analyse_alone(self.spec, &self.classes[i], self.settings, share_was_whole).map_err(Failure::from)
    }

    fn mismatch(&self, _name: &str, rank: usize) -> Self::Output {
        Err(Failure::Error(mismatch_message(rank)))
    }
}

/// Rank 0: analyses the classes at the positions `todo` (increasing) over all ranks and hands
/// each result to `on_class` in class order (with its index in `todo`), as [`crate::family::run`]
/// does in one process; stops at the first error in class order. Its peak is the most bytes one
/// class's tables held (a stopped class's until it stopped).
pub fn lead(gate: Gate, jobs: &Classes, todo: &[usize], on_class: &mut OnClass) -> Ran {
    let order = Mutex::new((InOrder::new(on_class), 0u64));
    let _stopped = gate.lead(jobs, todo, |position, output: Result<ClassResult, Failure>| {
        let index = todo.binary_search(&position).expect("rank 0 hands out only the positions in todo");
        let mut order = order.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let held = match &output {
            Ok(result) => result.peak_bytes,
            Err(Failure::Stopped(_, _, bytes)) => *bytes,
            Err(_) => 0,
        };
        order.1 = order.1.max(held);
        if order.0.push(index, output.map_err(FamilyError::from)) { Ok(()) } else { Err(()) }
    });
    let (order, peak_bytes) = order.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    Ran { outcome: order.finish(), peak_bytes }
}
