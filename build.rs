//! Records the git commit and the rustc version for the reproducibility metadata of batch runs.

use std::process::Command;

/// The trimmed standard output of `cmd args`, if it ran and succeeded.
fn output(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = output("git", &["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = output("git", &["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let commit = if dirty { format!("{commit}-dirty") } else { commit };
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = output(&rustc, &["--version"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=SLIDESOLVE_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=SLIDESOLVE_RUSTC_VERSION={version}");
    for path in ["src", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={path}");
    }
    // The files that say which commit is checked out and whether it is modified: HEAD, the index
    // and the branch HEAD names (loose or packed), wherever git keeps them (a worktree has its own
    // HEAD and index). Only existing files are watched: cargo reruns the script on every build for
    // a watched file that does not exist.
    let branch = output("git", &["symbolic-ref", "-q", "HEAD"]);
    let names = ["HEAD", "index", "packed-refs"].into_iter().map(str::to_string).chain(branch);
    for name in names {
        if let Some(path) = output("git", &["rev-parse", "--git-path", &name])
            && std::path::Path::new(&path).exists()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
