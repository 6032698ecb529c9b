//! Issue 40: outputs of VRM files as the reference VRM client shows them. three-vrm 3.5.5 and
//! three-vrm-animation 3.5.5 (`tests/tools/three_vrm.mjs`) load every `.vrm` of the fixtures and
//! `../shared/assets` and its outputs as three-vrm's examples load a model (`VRMLoaderPlugin`,
//! then `VRMUtils.rotateVRM0`, which turns a VRM 0.x scene 180°), and:
//! - each output faces the way its input does (+Z for both, as a VRM client shows them; a VRM 0.x
//!   output faces −Z in its file);
//! - a test pose on the normalized humanoid bones, and `test.vrma` played with
//!   three-vrm-animation, put the hands, feet, head, forearms and upper legs within 0.1 of the
//!   hips' rest height of where the input's are, relative to the hips.
//!
//! Outputs: `normalize`, and `retarget` of `test.vrma` onto the VRM in its two whole-file modes
//! (the target as it came with the new clip, and `--normalized`). A retarget's new clip, played on
//! the raw bones, must also stand within that bound of `test.vrma` played by three-vrm-animation
//! on the target as it came (VRM 0.x targets included: their file faces −Z).
//! Skips with a message when three-vrm or `../shared/assets` is absent (fails under
//! `SKELNORM_REQUIRE_TOOLS=1` / `SKELNORM_REQUIRE_ASSETS=1`).
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use std::path::{Path, PathBuf};

/// How far a measured joint may stand from the input's, relative to the hips, in hips heights.
const POSE_BOUND: f64 = 0.1;

fn vrms() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = common::fixtures()
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "vrm"))
        .collect();
    v.extend(
        common::assets()
            .unwrap_or_default()
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "vrm")),
    );
    assert!(!v.is_empty(), "fixtures/vrm0.vrm at least");
    v
}

fn run(args: &[&str]) {
    let out = common::skelnorm(args);
    assert!(
        out.status.success(),
        "skelnorm {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The angle between two facing vectors of the script's JSON, degrees.
fn facing_apart(v: &serde_json::Value) -> f64 {
    let f = |k: &str| -> [f64; 3] {
        let a = v[k].as_array().unwrap();
        [0, 1, 2].map(|i| a[i].as_f64().unwrap())
    };
    let (a, b) = (f("facing_in"), f("facing_out"));
    let dot: f64 = (0..3).map(|i| a[i] * b[i]).sum();
    dot.clamp(-1.0, 1.0).acos().to_degrees()
}

/// Checks `output` of `input` in three-vrm (with `clip`, `output` is a retarget of `vrma` onto
/// `input`, whose new clip must play as three-vrm-animation plays `vrma`); returns the JSON.
fn check(
    input: &Path,
    output: &Path,
    vrma: Option<&Path>,
    clip: bool,
) -> Option<serde_json::Value> {
    let anims: Vec<&Path> = vrma.into_iter().collect();
    let v = common::three_vrm(input, output, &anims, clip)?;
    println!("{v}");
    let what = format!("{} → {}", input.display(), output.display());
    assert!(
        facing_apart(&v) < 1.0,
        "{what}: faces {} in three-vrm where the input faces {}",
        v["facing_out"],
        v["facing_in"]
    );
    let f = v["facing_in"].as_array().unwrap();
    assert!(
        f[2].as_f64().unwrap() > 0.999,
        "{what}: the input faces {} in three-vrm, not +Z",
        v["facing_in"]
    );
    let pose = v["pose_max"].as_f64().unwrap();
    assert!(
        pose <= POSE_BOUND,
        "{what}: the normalized-bone test pose differs by {pose} hips heights at {}",
        v["pose_where"]
    );
    for a in v["vrma"].as_array().unwrap() {
        let e = a["max"].as_f64().unwrap_or(f64::INFINITY);
        assert!(
            e <= POSE_BOUND,
            "{what}: {} plays {e} hips heights apart at {}",
            a["path"],
            a["where"]
        );
        if clip {
            let e = a["clip"]["max"].as_f64().unwrap_or(f64::INFINITY);
            assert!(
                e <= POSE_BOUND,
                "{what}: the retargeted clip plays {e} hips heights from {} played by three-vrm-animation, at {}",
                a["path"],
                a["clip"]["where"]
            );
        }
    }
    Some(v)
}

#[test]
fn normalized_vrms_face_and_pose_in_three_vrm_as_their_inputs_do() {
    let dir = tempfile::tempdir().unwrap();
    let vrma = common::asset("vrm/test.vrma");
    let mut checked = 0;
    for input in vrms() {
        let out = dir
            .path()
            .join(input.file_name().unwrap())
            .with_extension("normalized.vrm");
        run(&[
            "normalize",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        if check(&input, &out, vrma.as_deref(), false).is_none() {
            return;
        }
        checked += 1;
    }
    println!("{checked} VRM outputs checked in three-vrm");
}

#[test]
fn retargets_onto_vrms_face_and_pose_in_three_vrm_as_their_targets_do() {
    let Some(vrma) = common::asset("vrm/test.vrma") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for target in vrms() {
        for mode in [None, Some("--normalized")] {
            let out = dir.path().join(format!(
                "{}{}.vrm",
                target.file_stem().unwrap().to_string_lossy(),
                mode.unwrap_or("")
            ));
            let mut args = vec![
                "retarget",
                "--source",
                vrma.to_str().unwrap(),
                "--target",
                target.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ];
            args.extend(mode);
            run(&args);
            if check(&target, &out, Some(&vrma), true).is_none() {
                return;
            }
        }
    }
}

/// VRM 0.x data in a bone's space stays where it was (issue 40): spring-bone colliders on the
/// head, upper chest and hands (VRoid's collider bones, `J_Bip_*`, offsets stored with z negated
/// as UniVRM writes them) and the first-person (look-at) offset on the head, on the VRM 0.x
/// fixture, whose bones take new axes when normalized. three-vrm places each halfway through the
/// file's first clip within 1e-4 of the hips height of where it placed the input's.
#[test]
fn spring_colliders_and_the_look_at_origin_stay_where_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let (mut json, bin) =
        common::split_glb(&std::fs::read(common::root().join("fixtures/vrm0.vrm")).unwrap());
    let node = |name: &str| {
        json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("vrm0.vrm has no node {name}"))
    };
    let group = |name: &str, offset: [f64; 3], radius: f64| {
        serde_json::json!({
            "node": node(name),
            "colliders": [{"offset": {"x": offset[0], "y": offset[1], "z": offset[2]}, "radius": radius}]
        })
    };
    let groups = serde_json::json!([
        group("J_Bip_C_Head", [0.0, 0.08, -0.01], 0.09),
        group("J_Bip_C_UpperChest", [0.0, 0.05, -0.03], 0.1),
        group("J_Bip_L_Hand", [0.06, 0.0, 0.01], 0.04),
        group("J_Bip_R_Hand", [-0.06, 0.0, 0.01], 0.04),
    ]);
    let head = node("J_Bip_C_Head");
    let vrm = &mut json["extensions"]["VRM"];
    vrm["secondaryAnimation"] = serde_json::json!({"boneGroups": [], "colliderGroups": groups});
    // three-vrm makes a look-at only beside an expression manager (UniVRM always writes one).
    vrm["blendShapeMaster"] = serde_json::json!({"blendShapeGroups": []});
    vrm["firstPerson"] = serde_json::json!({
        "firstPersonBone": head,
        "firstPersonBoneOffset": {"x": 0.0, "y": 0.06, "z": -0.02},
        "lookAtTypeName": "Bone"
    });
    let input = dir.path().join("colliders.vrm");
    std::fs::write(&input, common::join_glb(&json, &bin)).unwrap();
    let out = dir.path().join("colliders.normalized.vrm");
    run(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    // The bones took new axes, so the offsets were rewritten (else this test shows nothing).
    let (written, _) = common::split_glb(&std::fs::read(&out).unwrap());
    assert_ne!(
        written["extensions"]["VRM"]["secondaryAnimation"]["colliderGroups"][0]["colliders"][0]
            ["offset"],
        json["extensions"]["VRM"]["secondaryAnimation"]["colliderGroups"][0]["colliders"][0]
            ["offset"],
        "the head's collider offset was kept as it was, though the head took new axes"
    );
    let Some(v) = check(&input, &out, None, false) else {
        return;
    };
    let placed = v["attached"].as_array().unwrap();
    assert_eq!(
        placed.len(),
        5,
        "4 colliders and the look-at origin: {placed:?}"
    );
    let e = v["attached_max"].as_f64().unwrap();
    assert!(
        e <= 1e-4,
        "three-vrm places {} {e} hips heights from the input's",
        v["attached_where"]
    );
}
