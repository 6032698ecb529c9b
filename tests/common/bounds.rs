//! Issue 6's bounds on a retarget's report, as issue 43 asks of real files retargeted onto the
//! `../shared` characters: with FK alone (`--no-ik`), paired bone directions within 0.5° where
//! both chains have the same bone count and the chain end within 2° otherwise (a chain not
//! `measured` has no direction on one side: a head with no tail); with leg IK placing the feet
//! (`--ik-max-leg-deg 180`), feet within 1% of the target's height and the target's skate at
//! most the source's + 0.1% per frame where the source plants its feet (skate ≤ 1% per frame);
//! skate in the report's unit, the rig's leg length (math.md), read as tests/retarget.rs reads
//! it; no bone-length drift on either run.

use serde_json::Value;
use std::path::Path;

/// The characters of `../shared/assets` issue 43 retargets onto (with `fixtures/mixamo.glb`).
pub const CHARACTERS: [&str; 5] = [
    "threejs/RobotExpressive.glb",
    "quaternius/ModularMen_Casual.glb",
    "vrm/sphere.vrm",
    "khronos/CesiumMan.glb",
    "fbx/ufbx_maya_human_ik_7400_binary.fbx",
];

/// The characters present (a `skipped:` line for each missing one) and the Mixamo fixture.
pub fn targets() -> Vec<std::path::PathBuf> {
    let mut out = super::require_any(&CHARACTERS);
    out.push(super::root().join("fixtures/mixamo.glb"));
    out
}

/// Retargets `source` onto `target` twice (FK alone, then leg IK with no direction budget) and
/// asserts issue 6's bounds on every clip, the feet's and skate's only with `feet_bound` (see
/// the callers for where they do not apply); `extra` goes to both runs. Returns one line of
/// figures: worst paired-bone and chain-end degrees, worst foot error (% of height), worst skate
/// gain (% per frame) and drift.
pub fn retarget_within_issue_6(
    source: &Path,
    target: &Path,
    dir: &Path,
    extra: &[&str],
    feet_bound: bool,
) -> String {
    let at = format!("{} → {}", name(source), name(target));
    let out = dir.join("bounds.glb");
    let run = |flags: &[&str]| {
        let mut args = flags.to_vec();
        args.extend_from_slice(&["--on-clash", "replace"]);
        args.extend_from_slice(extra);
        super::retarget_stage(source, target, &out, &args)
    };
    let (mut bones, mut ends, mut feet, mut skate, mut drift) =
        (0.0f64, 0.0f64, 0.0f64, f64::MIN, 0.0f64);
    let fk = run(&["--no-ik"]);
    for c in clips(&fk) {
        let m = &c["measured"];
        for ch in m["chains"].as_array().unwrap() {
            match (ch["bones_deg"].as_f64(), ch["end_deg"].as_f64()) {
                (Some(d), _) => {
                    assert!(d <= 0.5, "{at}, FK: {ch}");
                    bones = bones.max(d);
                }
                (None, Some(d)) => {
                    assert!(d <= 2.0, "{at}, FK: {ch}");
                    ends = ends.max(d);
                }
                (None, None) => assert_eq!(ch["measured"], false, "{at}, FK: {ch}"),
            }
        }
        drift = drift.max(m["length_drift"].as_f64().unwrap());
    }
    let ik = run(&["--ik-max-leg-deg", "180"]);
    for c in clips(&ik) {
        let m = &c["measured"];
        for e in (m["effectors"].as_array().unwrap().iter()).filter(|e| e["ik"] == true) {
            let x = e["max_error"].as_f64().unwrap();
            assert!(!feet_bound || x <= 0.01, "{at}, IK, {}: {e}", c["clip"]);
            feet = feet.max(x);
        }
        for sk in m["skate"].as_array().unwrap() {
            if let (Some(s), Some(t)) = (sk["source"].as_f64(), sk["target"].as_f64()) {
                if s <= 0.01 {
                    assert!(
                        !feet_bound || t <= s + 0.001,
                        "{at}, IK, {}: {sk}",
                        c["clip"]
                    );
                    skate = skate.max(t - s);
                }
            }
        }
        drift = drift.max(m["length_drift"].as_f64().unwrap());
    }
    assert!(drift <= 1e-5, "{at}: bone lengths drift {drift}");
    let skate = if skate == f64::MIN {
        "no planted foot".to_string()
    } else {
        format!("skate {:+.4}%", skate * 100.0)
    };
    format!(
        "{at}: bones ≤ {bones:.3}°, ends ≤ {ends:.3}°, feet ≤ {:.3}%, {skate}, drift {drift:.1e}",
        feet * 100.0
    )
}

fn clips(stage: &Value) -> &Vec<Value> {
    let clips = stage["clips"].as_array().unwrap();
    assert!(!clips.is_empty(), "no clip retargeted: {stage}");
    clips
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}
