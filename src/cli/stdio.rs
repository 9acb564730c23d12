//! Standard output and standard error for the command line, never panicking as `println!` does:
//! a reader that went away (`| head`) quietly ends the output, a full disk is an error, and a
//! message that cannot reach standard error is dropped.

use anyhow::{Context, Result};
use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once standard output's reader has gone away; later output is dropped.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes to standard output (and flushes); a broken pipe silently ends all further output, any
/// other failure is an error.
pub fn write_out(args: fmt::Arguments) -> Result<()> {
    if stdout_closed() {
        return Ok(());
    }
    let mut stdout = io::stdout().lock();
    match stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        result => result.context("cannot write to standard output"),
    }
}

/// Whether standard output's reader has gone away (so there is no point producing more).
pub fn stdout_closed() -> bool {
    STDOUT_CLOSED.load(Ordering::Relaxed)
}

/// `print!` through [`write_out`]; evaluates to `anyhow::Result<()>`.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::stdio::write_out(format_args!($($arg)*))
    };
}

/// `println!` through [`write_out`]; evaluates to `anyhow::Result<()>`.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::stdio::write_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprintln!` that drops what standard error cannot take (see [`slidesolve::trace::line`]).
macro_rules! errln {
    ($($arg:tt)*) => {
        slidesolve::trace::line(format_args!($($arg)*))
    };
}

pub(crate) use {errln, out, outln};
