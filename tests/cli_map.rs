//! `skelnorm map`: JSON shape, exit code 3 for non-humanoids, bone-map files round trip and
//! win over auto-mapping, custom profiles.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use std::path::PathBuf;

fn fixture(name: &str) -> String {
    common::root()
        .join("fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = common::skelnorm(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    common::file_stage(&serde_json::from_slice(&out.stdout).expect("json"), args[0])
}

#[test]
fn json_names_source_node_confidence_and_reason() {
    let v = json(&["map", "--json", &fixture("mixamo.glb")]);
    let s = &v["skeletons"][0];
    let arm = &s["bones"]["LeftLowerArm"];
    assert_eq!(arm["source"], "mixamorig:LeftForeArm");
    assert!(arm["node"].as_u64().is_some());
    let c = arm["confidence"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&c));
    assert!(arm["reason"].as_str().unwrap().contains("elbow"), "{arm}");
    let unmapped: Vec<&str> = s["unmapped_profile"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|x| x.as_str())
        .collect();
    assert_eq!(unmapped, ["Root", "LeftEye", "RightEye", "Jaw"]);
    assert!(s["unmapped_source"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x == "mixamorig:HeadTop_End"));
    assert_eq!(s["missing_required"].as_array().unwrap().len(), 0);
}

#[test]
fn a_quadruped_exits_3_naming_the_missing_bones() {
    let out = common::skelnorm(&["map", &fixture("quadruped.glb")]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a humanoid skeleton") && err.contains("LeftUpperArm"),
        "{err}"
    );
    let out = common::skelnorm(&["map", "--allow-partial", &fixture("quadruped.glb")]);
    assert_eq!(out.status.code(), Some(0));
}

/// Issue 43: a refused map still writes its `-o` template, pre-filled with every bone found
/// (the quadruped's hind legs, hips, spine and head), and says so; the exit code stays 3.
#[test]
fn a_refused_map_still_writes_its_template_with_the_bones_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("quadruped.ron");
    let out = common::skelnorm(&[
        "map",
        &fixture("quadruped.glb"),
        "-o",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a humanoid skeleton") && err.contains("fill in the missing ones"),
        "{err}"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let file = skelnorm::mapping::BoneMapFile::from_ron(&text, "quadruped.ron").unwrap();
    assert_eq!(
        file.bones.get("Hips").map(String::as_str),
        Some("pelvis"),
        "{text}"
    );
    assert_eq!(
        file.bones.get("LeftUpperLeg").map(String::as_str),
        Some("thigh.L"),
        "{text}"
    );
    assert!(!file.bones.contains_key("LeftUpperArm"), "{text}");
    assert_eq!(file.bones.len(), 10, "{text}");
}

/// Issue 14: the fallbacks for IK layouts, upper bodies and unnamed rigs do not turn Khronos'
/// Fox into a humanoid: `map` and `normalize` still refuse it with exit 3.
#[test]
fn the_fox_is_still_refused() {
    let Some([fox]) = common::require(["khronos/Fox.glb"]) else {
        return;
    };
    let fox = fox.to_str().unwrap();
    let out = common::skelnorm(&["map", fox]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join("fox.glb");
    let out = common::skelnorm(&["normalize", fox, "-o", dst.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dst.exists());
}

#[test]
fn bone_map_files_round_trip_and_win() {
    let dir = tempfile::tempdir().unwrap();
    let map: PathBuf = dir.path().join("map.ron");
    let out = common::skelnorm(&["map", &fixture("blender.glb"), "-o", map.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&map).unwrap();
    assert!(
        text.contains("\"LeftUpperArm\": \"DEF-upper_arm.L\""),
        "{text}"
    );
    // Feeding the written map back gives the same map, every entry from the file.
    let v = json(&[
        "map",
        "--json",
        &fixture("blender.glb"),
        "--bone-map",
        map.to_str().unwrap(),
    ]);
    let bones = v["skeletons"][0]["bones"].as_object().unwrap();
    assert_eq!(bones.len(), 52);
    assert!(bones.values().all(|b| b["origin"] == "override"));
    // A partial file: its entries win, the rest is auto-mapped.
    let partial = dir.path().join("partial.ron");
    std::fs::write(
        &partial,
        r#"(profile: "humanoid", bones: {"Chest": "DEF-spine.003"}, unmapped: ["LeftToes"])"#,
    )
    .unwrap();
    let v = json(&[
        "map",
        "--json",
        &fixture("blender.glb"),
        "--bone-map",
        partial.to_str().unwrap(),
    ]);
    let b = &v["skeletons"][0]["bones"];
    assert_eq!(b["Chest"]["source"], "DEF-spine.003");
    assert_eq!(b["Chest"]["origin"], "override");
    assert!(
        b.get("UpperChest").is_none(),
        "DEF-spine.003 is taken by Chest"
    );
    assert!(b.get("LeftToes").is_none());
    assert_eq!(b["RightToes"]["source"], "DEF-toe.R");
    assert_eq!(b["Hips"]["origin"], "auto");
}

#[test]
fn bad_bone_maps_and_profiles_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.ron");
    std::fs::write(&bad, r#"(bones: {"LeftWing": "x"})"#).unwrap();
    let out = common::skelnorm(&[
        "map",
        &fixture("mixamo.glb"),
        "--bone-map",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.ron") && err.contains("LeftWing"), "{err}");
    std::fs::write(
        &bad,
        "(name: \"x\", bones: [(name: \"A\", parent: Some(\"B\"))])",
    )
    .unwrap();
    let out = common::skelnorm(&[
        "map",
        &fixture("mixamo.glb"),
        "--profile",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bone `A`: parent `B` does not exist"), "{err}");
}

#[test]
fn a_custom_profile_maps_by_names_and_hierarchy() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("quadruped.ron");
    std::fs::write(
        &profile,
        r#"(
            name: "quadruped",
            bones: [
                (name: "Pelvis", required: true, names: [("pelvis", 1.0)]),
                (name: "Chest", parent: Some("Pelvis"), names: [("chest", 1.0)]),
                (name: "Head", parent: Some("Chest"), required: true, names: [("head", 1.0)]),
                (name: "LeftThigh", parent: Some("Pelvis"), side: Left, names: [("thigh", 1.0)]),
                (name: "RightThigh", parent: Some("Pelvis"), side: Right, names: [("thigh", 1.0)]),
                (name: "Tail", parent: Some("Pelvis"), names: [("tail", 1.0)]),
            ],
            naming: (left: ["l"], right: ["r"]),
        )"#,
    )
    .unwrap();
    let v = json(&[
        "map",
        "--json",
        &fixture("quadruped.glb"),
        "--profile",
        profile.to_str().unwrap(),
    ]);
    let b = &v["skeletons"][0]["bones"];
    assert_eq!(b["Pelvis"]["source"], "pelvis");
    assert_eq!(b["Chest"]["source"], "chest");
    assert_eq!(b["Head"]["source"], "head");
    assert_eq!(b["LeftThigh"]["source"], "thigh.L");
    assert_eq!(b["RightThigh"]["source"], "thigh.R");
    assert_eq!(v["skeletons"][0]["profile"], "quadruped");
}

#[test]
fn inspect_reports_the_mapping() {
    let v = json(&["inspect", "--json", &fixture("ue_zup.glb")]);
    let m = &v["skeletons"][0]["mapping"];
    assert_eq!(m["bones"]["Hips"]["source"], "pelvis");
    assert_eq!(m["bones"]["Root"]["source"], "root");
    let out = common::skelnorm(&["inspect", &fixture("ue_zup.glb")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("humanoid map: 53/56 bones"), "{text}");
}

mod conventions;

/// Issue 14: an upper-body avatar (a Mixamo rig without legs, as VR avatars come) stored as a
/// plain node hierarchy: no skin, no humanoid extension, no animation. The reader takes the
/// node tree as its skeleton; the map finds hips, spine, arms, hands and head from the arms and
/// head, says `upper_body`, and is refused (exit 3, naming the legs) unless `--allow-partial`.
#[test]
fn an_upper_body_node_tree_maps_with_allow_partial() {
    use conventions::rig::Parts;
    let mut joints = conventions::humanoid(Parts {
        ends: true,
        ..Parts::default()
    });
    for s in ["L", "R"] {
        conventions::prune(&mut joints, &format!("upper_leg.{s}"));
    }
    let index = |id: &str| joints.iter().position(|j| j.id == id);
    let nodes: Vec<serde_json::Value> = joints
        .iter()
        .map(|j| {
            let parent = j
                .parent
                .as_deref()
                .map_or(glam::Vec3::ZERO, |p| joints[index(p).unwrap()].pos);
            let children: Vec<usize> = joints
                .iter()
                .enumerate()
                .filter(|(_, c)| c.parent.as_deref() == Some(j.id.as_str()))
                .map(|(k, _)| k)
                .collect();
            let t = j.pos - parent;
            let mut n = serde_json::json!({
                "name": conventions::names::mixamo(&j.id),
                "translation": [t.x, t.y, t.z],
            });
            if !children.is_empty() {
                n["children"] = serde_json::json!(children);
            }
            n
        })
        .collect();
    let roots: Vec<usize> = (0..joints.len())
        .filter(|&k| joints[k].parent.is_none())
        .collect();
    let gltf = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": roots}],
        "nodes": nodes,
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("upper_body.gltf");
    std::fs::write(&path, serde_json::to_vec_pretty(&gltf).unwrap()).unwrap();
    let file = path.to_str().unwrap();
    let refused = common::skelnorm(&["map", file]);
    assert_eq!(refused.status.code(), Some(3));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("LeftUpperLeg") && err.contains("--allow-partial"),
        "{err}"
    );
    let v = json(&["map", "--json", "--allow-partial", file]);
    let s = &v["skeletons"][0];
    let codes: Vec<&str> = s["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["code"].as_str())
        .collect();
    assert!(codes.contains(&"upper_body"), "{codes:?}");
    for (bone, source) in [
        ("Hips", "mixamorig:Hips"),
        ("Spine", "mixamorig:Spine"),
        ("Head", "mixamorig:Head"),
        ("LeftUpperArm", "mixamorig:LeftArm"),
        ("RightHand", "mixamorig:RightHand"),
        ("LeftIndexProximal", "mixamorig:LeftHandIndex1"),
    ] {
        assert_eq!(s["bones"][bone]["source"], source, "{bone}: {s}");
    }
    assert!(s["bones"].get("LeftUpperLeg").is_none());
}
