#!/usr/bin/env bash
# Regenerates the example pictures in results/pictures/ and screenshots them in headless Chromium.
#
# Animations (solve --svg): the Klotski (free metric, 81 moves), the hardest Rush Hour (51), the
# CS 351 sample proj3a (5) and an 8-puzzle (25), each screenshot at the start, halfway (0.1 s into
# the move that starts nearest half the loop: the piece slides, outlined) and at the end:
# NAME-start.png, NAME-middle.png, NAME-end.png. Each
# animation is inlined into a small HTML page (the SVG itself has no script) whose script pauses
# the SVG's SMIL timeline (pauseAnimations) and sets it (setCurrentTime) to 0.5 s (the start is
# held for the first second), to halfway, or to 0.5 s before the loop ends (the solved board
# is held for the last second); Chromium screenshots the page at the SVG's size.
#
# Stills (draw, solve --frames, family --draw-hardest) are screenshot as they are: NAME.png.
# Installs Debian's chromium with apt-get when it is missing (needs root and the network).
#
#   scripts/screenshots.sh           SLIDESOLVE_BIN=target/release/slidesolve scripts/screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null; then
    apt-get update
    apt-get install -y chromium
fi
if [[ -z "${SLIDESOLVE_BIN:-}" ]]; then
    cargo build --release --quiet
    SLIDESOLVE_BIN=target/release/slidesolve
fi
out=results/pictures
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The value of attribute $2 of the root <svg> element of file $1.
svg_attr() { grep -o '<svg [^>]*' "$1" | grep -o " $2=\"[0-9]*\"" | grep -o '[0-9]*'; }

# Screenshots the page $1 at the size of SVG $2 into $3.
shoot() {
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=1000 \
        --window-size="$(svg_attr "$2" width),$(svg_attr "$2" height)" --screenshot="$3" "file://$1" 2>/dev/null
}

# NAME FILE [solve options...]
animations=(
    "klotski corpora/klotski/classic.grid"
    "klotski-unit corpora/klotski/classic.grid --metric unit"
    "rush51 corpora/rush/hardest51.rush"
    "proj3a corpora/cs351/proj3a.data"
    "8puzzle_863 corpora/tiles/8puzzle_863.tiles"
)
for line in "${animations[@]}"; do
    read -r name file options <<<"$line"
    svg="$out/$name.svg"
    # shellcheck disable=SC2086
    "$SLIDESOLVE_BIN" solve "$file" $options --svg "$svg" --frames "$work/$name-frames" >/dev/null
    [[ $name == klotski-unit ]] && continue # only its size is shown
    for moment in start middle end; do
        page="$work/$name-$moment.html"
        {
            echo '<!DOCTYPE html><html><head><style>body{margin:0}svg{display:block}</style></head><body>'
            tail -n +2 "$svg"
            cat <<EOF
<script>
const svg = document.querySelector('svg');
const loop = parseFloat(document.querySelector('animateTransform').getAttribute('dur'));
// Halfway: 0.1 s into the move that starts nearest half the loop (the piece is sliding).
let middle = loop / 2, nearest = Infinity;
for (const a of document.querySelectorAll('animate[attributeName="stroke-opacity"]')) {
    const values = a.getAttribute('values').split(';');
    a.getAttribute('keyTimes').split(';').map(Number).forEach((t, i) => {
        if (values[i] === '1' && Math.abs(t * loop - loop / 2) < nearest) {
            nearest = Math.abs(t * loop - loop / 2);
            middle = t * loop + 0.1;
        }
    });
}
svg.pauseAnimations();
svg.setCurrentTime({ start: 0.5, middle: middle, end: loop - 0.5 }['$moment']);
</script></body></html>
EOF
        } >"$page"
        shoot "$page" "$svg" "$out/$name-$moment.png"
    done
    echo "$name: $(wc -c <"$svg") bytes, $out/$name-{start,middle,end}.png"
done
cp "$work/klotski-frames/step-081.svg" "$out/klotski-step-081.svg"

"$SLIDESOLVE_BIN" draw corpora/tiles/8puzzle_863.tiles --out "$out/8puzzle_863-draw.svg" --goal-beside
"$SLIDESOLVE_BIN" draw corpora/klotski/classic.grid --out "$out/klotski-draw.svg"
"$SLIDESOLVE_BIN" draw corpora/rush/hardest51.rush --out "$out/rush51-draw.svg"
# The first 15-puzzle of corpora/tiles/15puzzle_articles.tiles: 15 tiles, 15 colours.
printf '1 6 2 7\n0 5 4 11\n10 15 14 3\n9 13 12 8\n' >"$work/15puzzle.tiles"
"$SLIDESOLVE_BIN" draw "$work/15puzzle.tiles" --out "$out/15puzzle-draw.svg"

# The hardest layout of the classic Klotski piece set (93 moves) and its solution.
"$SLIDESOLVE_BIN" family corpora/families/klotski-classic.family --out "$work/family" --draw-hardest 1 >/dev/null
cp "$work/family/hardest-001-component-0.svg" "$out/klotski-classic-hardest.svg"
cp "$work/family/hardest-001-component-0-solution.svg" "$out/klotski-classic-hardest-solution.svg"

for still in 15puzzle-draw 8puzzle_863-draw klotski-draw rush51-draw klotski-step-081 klotski-classic-hardest; do
    shoot "$PWD/$out/$still.svg" "$out/$still.svg" "$out/$still.png"
    echo "$still: $out/$still.png"
done
echo "chromium: $(chromium --version 2>/dev/null)"
