# Sourced by the benchmark scripts that compare this checkout with an older commit: sets `tmp` (a
# temporary directory, removed on exit with the worktree in it) and `old_bin`, the slidesolve
# binary of commit $1 (built in a `git worktree` under $tmp with that commit's release profile),
# or $OLD_BIN when set.
tmp=$(mktemp -d)
cleanup() {
    if [[ -d "$tmp/old" ]]; then git -C "$root" worktree remove --force "$tmp/old" || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
if [[ -n "${OLD_BIN:-}" ]]; then
    old_bin=$OLD_BIN
else
    echo "building $1 in $tmp/old ..." >&2
    git worktree add --quiet --detach "$tmp/old" "$1"
    (cd "$tmp/old" && CARGO_TARGET_DIR="$tmp/old-target" cargo build --release --quiet --bin slidesolve)
    old_bin="$tmp/old-target/release/slidesolve"
fi
