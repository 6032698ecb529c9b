#!/usr/bin/env bash
# Runs `normalize`, `convert`, `mirror`, `retarget` and `batch` with two skelnorm binaries over the fixtures and the
# shared assets (glTF, GLB, VRM, VRMA, FBX, BVH) and compares what they write, byte for byte,
# and their exit codes. For refactors that must not change behaviour:
#   scripts/same_outputs.sh OLD_BINARY NEW_BINARY
#   scripts/same_outputs.sh --reports OLD_BINARY NEW_BINARY   (JSON reports must match too)
# Exits 1 and lists the differences when any written file (glTF/GLB/VRM) or exit code differs.
# JSON reports are compared too; without --reports a difference there is listed as a note (their
# shape may change on purpose), with it it counts.
set -u
reports=0
if [ "${1:-}" = "--reports" ]; then
    reports=1
    shift
fi
old=$(realpath "$1")
new=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
assets=$repo/../shared/assets
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inputs=("$repo"/fixtures/*.glb "$repo"/fixtures/*.gltf "$repo"/fixtures/*.vrm)
if [ -d "$assets" ]; then
    while IFS= read -r f; do inputs+=("$f"); done < <(find "$assets" -type f \
        \( -name '*.glb' -o -name '*.gltf' -o -name '*.vrm' -o -name '*.vrma' -o -name '*.fbx' \
        -o -name '*.bvh' \) | sort)
else
    echo "note: $assets is absent; comparing on the fixtures only"
fi
differ=0
runs=0
notes=0
# run NAME ARGS...: runs both binaries, each inside its own per-binary folder with OUT replaced by
# `.`, so that output paths the reports record read the same for both.
run() {
    local name=$1
    shift
    local codes=()
    for side in old new; do
        local bin=${!side}
        mkdir -p "$work/$side/$name"
        local args=("${@//OUT/.}")
        (cd "$work/$side/$name" && "$bin" "${args[@]}") > /dev/null 2> "$work/$side/$name.stderr"
        codes+=($?)
        # Reports name the output path, which differs by side: compare them with it as OUT; and
        # they time each run (`time_ms`, `total_ms`, `wall_ms`), which differs on every run.
        find "$work/$side/$name" -name '*.json' -exec sed -i -E \
            -e "s#$work/$side/$name#OUT#g" \
            -e 's#"(time_ms|total_ms|wall_ms)": [0-9.eE+-]+#"\1": 0#g' {} +
    done
    runs=$((runs + 1))
    if [ "${codes[0]}" != "${codes[1]}" ]; then
        echo "DIFFERENT exit code: $name: ${codes[0]} vs ${codes[1]}"
        differ=1
    fi
    local changed
    changed=$(diff -r -q "$work/old/$name" "$work/new/$name")
    if [ -n "$changed" ]; then
        if [ $reports = 0 ] && ! grep -v '\.json differ$' <<< "$changed" | grep -q .; then
            echo "note: $name: only the JSON report differs"
            notes=$((notes + 1))
        else
            echo "DIFFERENT output: $name"
            head -5 <<< "$changed"
            differ=1
        fi
    fi
}
for f in "${inputs[@]}"; do
    base=$(basename "$f")
    ext=${base##*.}
    # FBX and BVH inputs are written as GLB (skelnorm writes no FBX; a BVH output would drop the mesh).
    case $ext in fbx | bvh) ext=glb ;; esac
    run "normalize-$base" normalize "$f" -o "OUT/out.$ext" --report OUT/report.json
    # convert: unchanged documents (GLB and glTF with its .bin); mirror: a stage without the rest fix.
    run "convert-$base" convert "$f" OUT/out.glb
    run "convert-gltf-$base" convert "$f" OUT/out.gltf
    run "mirror-$base" mirror "$f" -o "OUT/out.$ext" --suffix " (mirrored)" --report OUT/report.json
done
fx=$repo/fixtures
pairs=("$fx/mixamo.glb $fx/blender.glb" "$fx/mixamo.glb $fx/long_legs.glb" "$fx/long_spine.glb $fx/vrm0.vrm")
if [ -d "$assets" ]; then
    pairs+=("$assets/vrm/test.vrma $assets/threejs/RobotExpressive.glb"
        "$assets/threejs/RobotExpressive.glb $fx/mixamo.glb"
        "$assets/khronos/CesiumMan.glb $assets/quaternius/ModularMen_Casual.glb"
        "$fx/mixamo.glb $assets/vrm/VRMC_vrm_expressions_isBinary_Overrides.vrm"
        "$assets/bvh/cmu_131_03_maxfriendly.bvh $fx/mixamo.glb"
        "$assets/fbx/ufbx_maya_kenney_character_7700_binary.fbx $fx/long_legs.glb"
        "$assets/fbx/quaternius_Male_Casual.fbx $assets/fbx/ufbx_maya_human_ik_7400_binary.fbx")
fi
for p in "${pairs[@]}"; do
    read -r s t <<< "$p"
    run "retarget-$(basename "$s")-$(basename "$t")" retarget --source "$s" --target "$t" \
        -o OUT/out.glb --suffix " (new)"
done
run batch-fixtures batch "$fx" -o OUT/tree -q --jobs 2
run batch-retarget batch "$fx" -o OUT/tree -q --jobs 2 --retarget-to "$fx/blender.glb"
if [ -d "$assets" ]; then
    run batch-assets batch "$assets" -o OUT/tree -q --jobs 2
fi
if [ $differ = 0 ]; then
    echo "same outputs and exit codes in all $runs runs ($notes with a different JSON report)"
fi
exit $differ
