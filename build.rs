//! Records the git commit and the rustc version for the reproducibility metadata of batch runs.

use std::process::Command;

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
    for path in [".git/HEAD", ".git/index", "src", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={path}");
    }
}
