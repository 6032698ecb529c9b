//! Issue 16: normalizing a normalized file changes nothing (byte for byte), and the same input
//! gives the same bytes on every run and with any number of jobs: on every fixture and every
//! real file in ../shared/assets (glTF, VRM, VRMA, FBX, BVH), each written in the container
//! normalize gives it. Issue 40: an output maps to its own names (each profile bone the input
//! mapped, to the bone of that name), and so do `retarget --normalized` outputs.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use std::path::Path;

fn normalize(input: &Path, output: &Path) {
    let out = common::skelnorm(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}: {}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Normalizes `input` into `output`; false when it is refused as no humanoid (exit 3).
fn try_normalize(input: &Path, output: &Path) -> bool {
    let out = common::skelnorm(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    if out.status.code() == Some(3) {
        return false;
    }
    assert!(
        out.status.success(),
        "{}: {}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

/// The container normalize writes `input` into: its own (.gltf, .glb, .vrm, .vrma); FBX and
/// BVH become .glb.
fn output_ext(input: &Path) -> &'static str {
    match input.extension().and_then(|e| e.to_str()) {
        Some("gltf") => "gltf",
        Some("vrm") => "vrm",
        Some("vrma") => "vrma",
        _ => "glb",
    }
}

/// What `skelnorm map` maps in `file`: per skeleton, profile bone → source bone name.
fn map_of(file: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let out = common::skelnorm(&["map", "--json", "--allow-partial", file.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{}: map --json: {e}", file.display()));
    v["files"][0]["map"]
        .as_array()
        .unwrap_or_else(|| panic!("{}: no map in {v}", file.display()))
        .iter()
        .map(|sk| {
            sk["bones"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(p, m)| (p.clone(), m["source"].as_str().unwrap().to_string()))
                .collect()
        })
        .collect()
}

/// Issue 40: an output maps to itself: every profile bone the input mapped maps to the output's
/// bone of that name, and nothing else (no leg swapped, no foot lost).
fn assert_maps_to_itself(name: &str, input: &Path, output: &Path) {
    let before = map_of(input);
    let after = map_of(output);
    assert_eq!(before.len(), after.len(), "{name}: skeletons");
    for (b, a) in before.iter().zip(&after) {
        let want: Vec<(&String, &String)> = b.keys().map(|p| (p, p)).collect();
        let got: Vec<(&String, &String)> = a.iter().collect();
        assert_eq!(
            got, want,
            "{name}: the output does not map to its own names"
        );
    }
}

/// Normalizes `input` into `dir/out.<ext>` and returns that path, or `None` when it is refused
/// as no humanoid (exit 3).
fn normalize_into(input: &Path, dir: &Path) -> Option<std::path::PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    let out = dir.join(format!("out.{}", output_ext(input)));
    try_normalize(input, &out).then_some(out)
}

#[test]
fn normalizing_a_normalized_file_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (k, file) in common::all_inputs().iter().enumerate() {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let (one, two) = (
            dir.path().join(format!("{k}a")),
            dir.path().join(format!("{k}b")),
        );
        let Some(once) = normalize_into(file, &one) else {
            continue; // not a humanoid (the quadruped, the foxes, RiggedSimple, SimpleSkin)
        };
        assert!(normalize_into(&once, &two).is_some(), "{name}: refused");
        // Every file written (a .gltf's .bin beside it), byte for byte, under the same names.
        assert!(
            common::file_bytes(&one) == common::file_bytes(&two),
            "{name}: the second normalization changed the output"
        );
        assert_maps_to_itself(&name, file, &once);
        checked += 1;
    }
    assert!(checked >= 11, "only {checked} files normalized");
}

/// Issue 40: what `retarget --normalized` writes (the target normalized, with the new clips)
/// normalizes to itself too.
#[test]
fn a_normalized_retarget_output_normalizes_to_itself() {
    let Some([robot, men, vrma]) = common::require([
        "threejs/RobotExpressive.glb",
        "quaternius/ModularMen_Casual.glb",
        "vrm/test.vrma",
    ]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // (source of the clips, target, output container)
    let cases = [
        (robot.clone(), men.clone(), "glb"),
        (common::root().join("fixtures/mixamo.glb"), robot, "gltf"),
        (vrma, men, "glb"),
    ];
    for (k, (src, tgt, ext)) in cases.iter().enumerate() {
        let one = dir.path().join(format!("{k}a"));
        std::fs::create_dir_all(&one).unwrap();
        let out = one.join(format!("out.{ext}"));
        let run = common::skelnorm(&[
            "retarget",
            "--source",
            src.to_str().unwrap(),
            "--target",
            tgt.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--normalized",
        ]);
        assert!(
            run.status.success(),
            "{}: {}",
            tgt.display(),
            String::from_utf8_lossy(&run.stderr)
        );
        let two = dir.path().join(format!("{k}b"));
        normalize_into(&out, &two).unwrap();
        let name = format!("{} onto {}", src.display(), tgt.display());
        assert!(
            common::file_bytes(&one) == common::file_bytes(&two),
            "{name}: normalizing the retarget output changed it"
        );
        assert_maps_to_itself(&name, tgt, &out);
    }
}

#[test]
fn the_same_input_gives_the_same_bytes_on_every_run_and_with_any_jobs() {
    let dir = tempfile::tempdir().unwrap();
    for file in common::all_inputs() {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let (a, b) = (dir.path().join("a.glb"), dir.path().join("b.glb"));
        if !try_normalize(&file, &a) {
            continue; // not a humanoid
        }
        normalize(&file, &b);
        assert!(
            std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
            "{name}: two runs differ"
        );
    }
    // --jobs 1 and --jobs 2 over the fixtures and the real assets: the same files, the same
    // bytes.
    let mut folders = vec![common::root().join("fixtures")];
    if let Some(first) = common::input_assets().and_then(|a| a.first().cloned()) {
        folders.push(first.parent().unwrap().parent().unwrap().to_path_buf());
    }
    for (k, folder) in folders.iter().enumerate() {
        let runs: Vec<_> = ["1", "2"]
            .iter()
            .map(|jobs| {
                let out = dir.path().join(format!("{k}_jobs{jobs}"));
                let run = common::skelnorm(&[
                    "batch",
                    folder.to_str().unwrap(),
                    "-o",
                    out.to_str().unwrap(),
                    "-q",
                    "--jobs",
                    jobs,
                ]);
                // Non-humanoids (the quadruped, the foxes) are refused: exit 3.
                assert_eq!(run.status.code(), Some(3), "{}", folder.display());
                out
            })
            .collect();
        let (one, two) = (files_under(&runs[0]), files_under(&runs[1]));
        assert!(
            one.len() >= 10,
            "{}: only {} outputs",
            folder.display(),
            one.len()
        );
        assert_eq!(
            one.keys().collect::<Vec<_>>(),
            two.keys().collect::<Vec<_>>()
        );
        for (name, bytes) in &one {
            assert!(
                two[name] == *bytes,
                "{}: --jobs 1 and --jobs 2 differ",
                name.display()
            );
        }
    }
}

/// Every file below `dir` (relative path → bytes), reports left out (they hold times).
fn files_under(dir: &Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut files = common::file_bytes(dir);
    files.retain(|p, _| p.extension().is_some_and(|x| x != "json" && x != "html"));
    files
}

/// Issue 40 (Quaternius Cyberpunk): an IK-layout output whose shins' end sites lie across the
/// middle (each shin points at its own end site, not at the foot that hangs from the root, so the
/// rest fix may leave it anywhere) maps to itself: its legs are not swapped. Built from the
/// normalized RobotExpressive (the same Quaternius layout) with the two end sites moved.
#[test]
fn an_output_with_crossed_shins_maps_to_itself() {
    let Some([robot]) = common::require(["threejs/RobotExpressive.glb"]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let once = normalize_into(&robot, &dir.path().join("a")).unwrap();
    let mut doc = skelnorm::gltf_io::read(&once).unwrap();
    let sk = &mut doc.model.skeletons[0];
    let world = sk.rest_world();
    let hips = world[sk.find("Hips").unwrap().index()].w_axis.truncate();
    for (end, knee) in [
        ("LowerLeg.L_end", "LeftLowerLeg"),
        ("LowerLeg.R_end", "RightLowerLeg"),
    ] {
        let (e, k) = (sk.find(end).unwrap(), sk.find(knee).unwrap());
        let at = world[e.index()].w_axis.truncate();
        let knee_at = world[k.index()].w_axis.truncate();
        // Across the middle: on the other leg's side, half as far out as its own knee.
        let to = glam::Vec3::new(hips.x - 0.5 * (knee_at.x - hips.x), at.y, knee_at.z);
        let local = world[k.index()].inverse().transform_point3(to);
        sk.bones[e.index()].rest.translation = local;
    }
    let crossed = dir.path().join("crossed.glb");
    doc.write(&crossed).unwrap();
    assert_maps_to_itself("crossed shins", &once, &crossed);
    let two = dir.path().join("b");
    let twice = normalize_into(&crossed, &two).unwrap();
    assert_maps_to_itself("crossed shins, normalized", &once, &twice);
}
