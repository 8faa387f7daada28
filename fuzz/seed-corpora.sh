#!/usr/bin/env bash
# Seeds the fuzz corpora from the motion-capture fixtures and from limits this program fits, so
# that fuzzing starts from real files. The corpora live in fuzz/corpus/ (not in the repository:
# the fixtures stay where they are).
set -euo pipefail
cd "$(dirname "$0")"
data="${JOINTLIMITS_TEST_DATA:-$(pwd)/../../shared/data/mocap}"
if [ ! -d "$data" ]; then
  echo "no motion-capture fixtures at $data (set JOINTLIMITS_TEST_DATA)" >&2
  exit 1
fi
mkdir -p corpus/bvh_round_trip corpus/limits_apply_check corpus/convex_hull corpus/table_image

# BVH: each fixture's hierarchy and its first three frames (small inputs fuzz faster).
for clip in "$data"/*/*.bvh; do
  name="$(basename "$(dirname "$clip")")_$(basename "$clip")"
  awk 'BEGIN { motion = 0; frames = 0 }
       /^MOTION/ { motion = 1; print; next }
       motion && /^Frames:/ { print "Frames: 3"; next }
       motion && /^Frame Time:/ { print; frames = 1; next }
       frames { if (++n <= 3) print; next }
       { print }' "$clip" > "corpus/bvh_round_trip/$name"
done

# Limits: the demo's, and every shape and space fitted to the demo's clip (the clip the
# limits target limits).
cd ..
cargo build --quiet -p jointlimits-cli
bin=target/debug/jointlimits
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
"$bin" demo --out "$scratch/demo" > /dev/null
head -c 4000 "$scratch/demo/range_of_motion.bvh" > fuzz/corpus/bvh_round_trip/demo_head.bvh
cp "$scratch/demo/limits.json" fuzz/corpus/limits_apply_check/demo.json
for space in full swing-twist; do
  for shape in box obb ellipsoid mvee kdop3 kdop7 kdop13 hull reach-cone; do
    "$bin" fit "$scratch/demo/range_of_motion.bvh" --space "$space" --shape "$shape" \
      -o "fuzz/corpus/limits_apply_check/$space-$shape.json" > /dev/null
  done
done

# Tables: a small fitted one in the limits corpus, and its images (16-bit gray) as image seeds.
"$bin" fit "$scratch/demo/range_of_motion.bvh" --shape table --resolution 8 \
  -o fuzz/corpus/limits_apply_check/table.json > /dev/null
"$bin" export-images fuzz/corpus/limits_apply_check/table.json --out "$scratch/images" > /dev/null
for image in "$scratch"/images/*.png; do
  cp "$image" "fuzz/corpus/table_image/$(basename "$image")"
done

# Hulls: a cube, a flat square with duplicates, a line, points a rounding error apart.
python3 - fuzz/corpus/convex_hull <<'PY'
import struct, sys, itertools
out = sys.argv[1]
sets = {
    "cube": [p for p in itertools.product([0.0, 1.0], repeat=3)],
    "square_duplicates": [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (1, 1, 0), (0.5, 0.5, 0)],
    "line": [(t, 2 * t, 3 * t) for t in range(6)],
    "close": [(1, 1, 1), (1 + 2**-52, 1, 1), (1, 1 + 2**-52, 1), (1, 1, 1 + 2**-52), (0, 0, 0)],
}
for name, points in sets.items():
    with open(f"{out}/{name}", "wb") as f:
        for p in points:
            f.write(struct.pack("<3d", *map(float, p)))
PY
for target in bvh_round_trip limits_apply_check convex_hull table_image; do
  echo "$target: $(ls fuzz/corpus/$target | wc -l) seeds"
done
