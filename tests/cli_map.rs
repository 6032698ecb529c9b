//! `skelnorm map`: JSON shape, exit code 3 for non-humanoids, bone-map files round trip and
//! win over auto-mapping, custom profiles, declared VRM/VRMA maps on real layouts (issue 43).
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

/// Issue 43: a VRMA whose declared map leaves the fingers out gets no fingers. The VRM
/// Consortium's bvh2vrma (github vrm-c/bvh2vrma, MIT) mapped no fingers before its PR #11
/// (2023-09-14); run at 2ddca87 (with three 0.153, its pinned version) on three.js's example
/// `pirouette.bvh` (MIT), it writes 58 nodes, the BVH's joints (`rThumb1`, `rIndex1`…`rPinky2`,
/// `leftEye`, its `ENDSITE`s) under an unnamed 0.01-scale node, and declares 21 humanoid bones:
/// no finger, no eye. Its nodes (name, parent, translation; no rotation: BVH rests are unturned)
/// and its declarations are copied here; the clip is left out (mapping reads the rest). A bone
/// the file does not declare is not that bone (`VRMC_vrm_animation` maps nodes to humanoid
/// bones): skelnorm mapped 32 more (both eyes and 30 fingers, `ENDSITE`s as distal phalanges).
#[rustfmt::skip]
const PIROUETTE_VRMA: [(&str, usize, [f32; 3]); 57] = [
    ("ENDSITE", 1, [1.0, 0.0, 0.0]),
    ("leftEye", 4, [4.14528, 8.04674, 8.04672]),
    ("ENDSITE", 3, [1.0, 0.0, 0.0]),
    ("rightEye", 4, [-3.6576, 8.04674, 8.04672]),
    ("head", 5, [-0.24384, 7.07133, 1.2192]),
    ("neck", 44, [0.0, 22.1894, -2.19456]),
    ("ENDSITE", 7, [-1.78271, -1.18214, 1.43049]),
    ("rThumb2", 8, [-3.37035, -0.52449, 3.41376]),
    ("rThumb1", 21, [-1.2192, -0.487915, 3.41376]),
    ("ENDSITE", 10, [-1.62519, -0.234802, 1.16502]),
    ("rIndex2", 11, [-2.54057, -0.884171, 1.56538]),
    ("rIndex1", 21, [-7.75947, 0.938293, 5.60832]),
    ("ENDSITE", 13, [-2.48547, -0.328903, 0.83742]),
    ("rMid2", 14, [-3.10165, -0.590103, 1.0647]),
    ("rMid1", 21, [-8.24714, 1.18213, 3.41376]),
    ("ENDSITE", 16, [-2.33842, -0.294052, 0.168128]),
    ("rRing2", 17, [-2.60934, -0.819778, -0.0198488]),
    ("rRing1", 21, [-8.82822, 0.546677, 1.51678]),
    ("ENDSITE", 19, [-1.69225, -0.51767, -0.607171]),
    ("rPinky2", 20, [-1.82734, -0.647385, -0.700984]),
    ("rPinky1", 21, [-8.27202, -0.0477905, -0.4584]),
    ("rHand", 22, [-22.5879, 0.773209, 7.07136]),
    ("rForeArm", 23, [-28.1742, -1.7115, 0.48768]),
    ("rShldr", 24, [-8.77824, -1.95073, 1.46304]),
    ("rCollar", 44, [-2.68224, 19.2634, -4.8768]),
    ("ENDSITE", 26, [1.78271, -1.18214, 1.43049]),
    ("lThumb2", 27, [3.37035, -0.52449, 3.41376]),
    ("lThumb1", 40, [1.2192, -0.487915, 3.41376]),
    ("ENDSITE", 29, [1.62519, -0.234802, 1.16502]),
    ("lIndex2", 30, [2.54057, -0.884171, 1.56538]),
    ("lIndex1", 40, [7.75947, 0.938293, 5.60832]),
    ("ENDSITE", 32, [2.48547, -0.328903, 0.83742]),
    ("lMid2", 33, [3.10165, -0.590103, 1.0647]),
    ("lMid1", 40, [8.24714, 1.18213, 3.41376]),
    ("ENDSITE", 35, [2.33842, -0.294052, 0.168128]),
    ("lRing2", 36, [2.60934, -0.819778, -0.0198488]),
    ("lRing1", 40, [8.82822, 0.546677, 1.51678]),
    ("ENDSITE", 38, [1.69225, -0.51767, -0.607171]),
    ("lPinky2", 39, [1.82734, -0.647385, -0.700984]),
    ("lPinky1", 40, [8.27202, -0.0477905, -0.4584]),
    ("lHand", 41, [22.5879, 0.773209, 7.07136]),
    ("lForeArm", 42, [28.1742, -1.7115, 0.48768]),
    ("lShldr", 43, [8.77824, -1.95073, 1.46304]),
    ("lCollar", 44, [2.68224, 19.2634, -4.8768]),
    ("chest", 45, [0.0, 11.7043, -0.48768]),
    ("abdomen", 56, [0.0, 20.6881, -0.73152]),
    ("ENDSITE", 47, [-1.1221, -3.69964, 12.103]),
    ("rFoot", 48, [0.73152, -45.1104, -5.12064]),
    ("rShin", 49, [0.0, -36.8199, 0.73152]),
    ("rThigh", 50, [0.0, -1.70687, -2.19456]),
    ("rButtock", 56, [-8.77824, 4.35084, 1.2192]),
    ("ENDSITE", 52, [1.1221, -3.69964, 12.103]),
    ("lFoot", 53, [-0.73152, -45.1104, -5.12064]),
    ("lShin", 54, [0.0, -36.8199, 0.73152]),
    ("lThigh", 55, [0.0, -1.70687, -2.19456]),
    ("lButtock", 56, [8.77824, 4.35084, 1.2192]),
    ("hip", 57, [0.0, 82.98597, 0.0]),
];
#[rustfmt::skip]
const PIROUETTE_DECLARED: [(&str, usize); 21] = [
    ("hips", 56),
    ("spine", 45),
    ("chest", 44),
    ("leftUpperLeg", 54),
    ("leftLowerLeg", 53),
    ("leftFoot", 52),
    ("leftToes", 51),
    ("rightUpperLeg", 49),
    ("rightLowerLeg", 48),
    ("rightFoot", 47),
    ("rightToes", 46),
    ("leftShoulder", 43),
    ("leftUpperArm", 42),
    ("leftLowerArm", 41),
    ("leftHand", 40),
    ("rightShoulder", 24),
    ("rightUpperArm", 23),
    ("rightLowerArm", 22),
    ("rightHand", 21),
    ("neck", 5),
    ("head", 4),
];

/// The bvh2vrma clip's nodes and declarations (`PIROUETTE_VRMA`, `PIROUETTE_DECLARED`) as a
/// `.vrma` in `dir`.
fn pirouette_vrma(dir: &std::path::Path) -> PathBuf {
    let n = PIROUETTE_VRMA.len();
    let mut nodes: Vec<serde_json::Value> = PIROUETTE_VRMA
        .iter()
        .enumerate()
        .map(|(i, (name, _, t))| {
            let children: Vec<usize> = (0..n).filter(|&c| PIROUETTE_VRMA[c].1 == i).collect();
            let mut node = serde_json::json!({"name": name, "translation": t});
            if !children.is_empty() {
                node["children"] = serde_json::json!(children);
            }
            node
        })
        .collect();
    nodes.push(serde_json::json!({"children": [56], "scale": [0.01, 0.01, 0.01]}));
    let bones: serde_json::Map<String, serde_json::Value> = PIROUETTE_DECLARED
        .iter()
        .map(|(b, node)| (b.to_string(), serde_json::json!({ "node": node })))
        .collect();
    let doc = serde_json::json!({
        "asset": {"version": "2.0", "generator": "THREE.GLTFExporter"},
        "extensionsUsed": ["VRMC_vrm_animation"],
        "extensions": {"VRMC_vrm_animation": {
            "specVersion": "1.0", "humanoid": {"humanBones": bones}
        }},
        "scene": 0,
        "scenes": [{"name": "AuxScene", "nodes": [n]}],
        "nodes": nodes,
    });
    let path = dir.join("pirouette.vrma");
    std::fs::write(&path, common::join_glb(&doc, &[])).unwrap();
    path
}

#[test]
fn a_vrma_that_declares_no_fingers_maps_none() {
    let dir = tempfile::tempdir().unwrap();
    let file = pirouette_vrma(dir.path());
    let v = json(&["map", "--json", file.to_str().unwrap()]);
    let s = &v["skeletons"][0];
    let bones = s["bones"].as_object().unwrap();
    for (vrm, node) in PIROUETTE_DECLARED {
        let name = vrm[..1].to_uppercase() + &vrm[1..];
        let b = &bones[&name];
        assert_eq!(b["node"], node, "{name}: {b}");
        assert_eq!(b["origin"], "declared", "{name}: {b}");
    }
    assert_eq!(bones.len(), PIROUETTE_DECLARED.len(), "{s}");
    let unmapped = s["unmapped_source"].as_array().unwrap();
    for finger in [
        "lThumb1", "lIndex2", "rMid1", "rRing2", "rPinky1", "leftEye",
    ] {
        assert!(unmapped.iter().any(|u| u == finger), "{finger}: {s}");
    }
    // Its finger nodes are fingers: without the declared map, they map as such.
    let v = json(&["map", "--json", "--ignore-vrm", file.to_str().unwrap()]);
    let bones = &v["skeletons"][0]["bones"];
    assert_eq!(bones["LeftIndexProximal"]["source"], "lIndex1", "{bones}");
    assert_eq!(
        bones["RightLittleIntermediate"]["source"], "rPinky2",
        "{bones}"
    );
}

/// Issue 43 listed "one little-finger bone on a skinless VRM body" among the mapping misses. It
/// was not found again on any real skinless VRM (26 with fingers among 198 VRM/VRMA files); this
/// guards the kind of file: the VRM Add-on for Blender's Unity test model
/// `tests/resources/unity/VrmaRecorder/debug_robot.vrm` (saturday06/VRM-Addon-for-Blender, MIT
/// OR GPL-3.0-or-later), a VRM 1.0 robot with no skin, each body part a rigid mesh on a child
/// of its bone node (`Hand.L` below `hand.L`), five three-bone fingers a hand, declaring 53
/// humanoid bones (all but `jaw` and `upperChest`). Its nodes (name, parent, translation,
/// rotation xyzw, scale, carries a mesh) and declarations are copied here, less the empty
/// `secondary` node; every mesh is one triangle here. Every declared bone maps to its node, the
/// little fingers too, and so does the auto-mapper (`--ignore-vrm`) on its own.
#[rustfmt::skip]
#[allow(
    clippy::approx_constant,
    clippy::type_complexity,
    reason = "a table of the file's nodes, with its own values"
)]
const ROBOT: [(&str, Option<usize>, [f32; 3], [f32; 4], [f32; 3], bool); 76] = [
    ("Eye.L", Some(1), [-0.0625, 0.0, 0.062500015], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("eye.L", Some(5), [0.125, 0.1875, 0.0], [3.0908623e-08, 0.7071068, 0.7071068, 3.0908623e-08], [1.0, 1.0, 1.0], false),
    ("Eye.R", Some(3), [0.06250001, 0.0, 0.062499985], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("eye.R", Some(5), [-0.125, 0.1875, 0.0], [3.0908623e-08, 0.7071068, 0.7071068, 3.0908623e-08], [1.0, 1.0, 1.0], false),
    ("Head", Some(5), [0.0, 0.0, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("head", Some(7), [0.0, 0.125, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("Neck", Some(7), [0.0, 0.0, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("neck", Some(55), [0.0, 0.3125, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("thumb_distal.L", Some(9), [-7.450581e-09, 0.035355352, -1.1920929e-07], [0.0, 0.0, -5.8859587e-07, 1.0], [1.0, 1.0, 1.0], false),
    ("thumb_intermediate.L", Some(10), [-1.1175871e-08, 0.03535532, 0.0], [0.0, 0.0, 6.7800283e-07, 1.0], [1.0, 1.0, 1.0], false),
    ("thumb_proximal.L", Some(24), [0.04999998, 0.04999995, 0.0], [0.0, 0.0, -0.3826837, 0.92387944], [1.0, 1.0, 1.0], false),
    ("index_distal.L", Some(12), [-1.8626451e-09, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("index_intermediate.L", Some(13), [-1.8626451e-09, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("index_proximal.L", Some(24), [0.024999999, 0.12500006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("middle_distal.L", Some(15), [0.0, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("middle_intermediate.L", Some(16), [0.0, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("middle_proximal.L", Some(24), [0.0, 0.12500006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("ring_distal.L", Some(18), [1.8626451e-09, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("ring_intermediate.L", Some(19), [1.8626451e-09, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("ring_proximal.L", Some(24), [-0.024999999, 0.12500006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("little_distal.L", Some(21), [3.7252903e-09, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("little_intermediate.L", Some(22), [3.7252903e-09, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("little_proximal.L", Some(24), [-0.049999997, 0.12500006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("Hand.L", Some(24), [0.0, -5.2154064e-08, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("hand.L", Some(26), [0.0, 0.25000003, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("LowerArm.L", Some(26), [0.0, 1.4901161e-08, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("lower_arm.L", Some(28), [0.0, 0.25000006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("UpperArm.L", Some(28), [0.0, -1.490116e-08, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("upper_arm.L", Some(30), [0.0, 0.099999994, 0.0], [0.0, 2.1855694e-08, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("Shoulder.L", Some(30), [3.1086245e-15, 0.03750001, -0.0625], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("shoulder.L", Some(55), [0.025, 0.375, 0.0], [-0.5, -0.5, -0.5, 0.5], [1.0, 0.99999994, 1.0], false),
    ("thumb_distal.R", Some(32), [7.450581e-09, 0.035355352, -1.1920929e-07], [0.0, 0.0, 5.8859587e-07, 1.0], [1.0, 1.0, 1.0], false),
    ("thumb_intermediate.R", Some(33), [1.1175871e-08, 0.03535532, 0.0], [0.0, 0.0, -6.7800283e-07, 1.0], [1.0, 1.0, 1.0], false),
    ("thumb_proximal.R", Some(47), [-0.04999998, 0.04999995, 0.0], [0.0, 0.0, 0.3826837, 0.92387944], [1.0, 1.0, 1.0], false),
    ("index_distal.R", Some(35), [1.8626451e-09, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("index_intermediate.R", Some(36), [1.8626451e-09, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("index_proximal.R", Some(47), [-0.024999999, 0.12500006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("middle_distal.R", Some(38), [0.0, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("middle_intermediate.R", Some(39), [0.0, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("middle_proximal.R", Some(47), [0.0, 0.12500006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("ring_distal.R", Some(41), [-1.8626451e-09, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("ring_intermediate.R", Some(42), [-1.8626451e-09, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("ring_proximal.R", Some(47), [0.024999999, 0.12500006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("little_distal.R", Some(44), [-3.7252903e-09, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("little_intermediate.R", Some(45), [-3.7252903e-09, 0.03125006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("little_proximal.R", Some(47), [0.049999997, 0.12500006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("Hand.R", Some(47), [0.0, -5.2154064e-08, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("hand.R", Some(49), [0.0, 0.25000003, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("LowerArm.R", Some(49), [0.0, 1.4901161e-08, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("lower_arm.R", Some(51), [0.0, 0.25000006, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("UpperArm.R", Some(51), [0.0, -1.490116e-08, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("upper_arm.R", Some(53), [0.0, 0.099999994, 0.0], [0.0, -2.1855694e-08, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("Shoulder.R", Some(53), [-0.062499996, 0.03750001, -0.0625], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("shoulder.R", Some(55), [-0.025, 0.375, 0.0], [-0.5, 0.5, 0.5, 0.5], [1.0, 0.99999994, 1.0], false),
    ("Chest", Some(55), [0.0, 0.0, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("chest", Some(57), [0.0, 0.125, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("Spine", Some(57), [0.0, 0.0, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("spine", Some(73), [0.0, 0.25, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("toes.L", Some(60), [0.0, 0.13975425, 0.0], [-1.0042822e-08, 0.973249, -0.22975293, 4.2542073e-08], [1.0, 1.0000006, 0.99999994], false),
    ("Foot.L", Some(60), [0.0, 2.4674858e-07, 6.22812e-10], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("foot.L", Some(62), [0.0, 0.4375, 0.0], [-0.5257311, 0.0, 0.0, 0.85065085], [1.0, 0.99999994, 1.0], false),
    ("LowerLeg.L", Some(62), [0.0, 0.0, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("lower_leg.L", Some(64), [0.0, 0.5, 0.0], [0.0, 4.371139e-08, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("UpperLeg.L", Some(64), [0.0, 0.0, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("upper_leg.L", Some(73), [0.25, 0.25, 0.0], [1.0, 0.0, -4.371139e-08, 0.0], [1.0, 1.0, 1.0], false),
    ("toes.R", Some(67), [0.0, 0.13975425, 0.0], [-1.0042822e-08, 0.973249, -0.22975293, 4.2542073e-08], [1.0, 1.0000006, 0.99999994], false),
    ("Foot.R", Some(67), [0.0, 2.4674858e-07, 6.22812e-10], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("foot.R", Some(69), [0.0, 0.4375, 0.0], [-0.5257311, 0.0, 0.0, 0.85065085], [1.0, 0.99999994, 1.0], false),
    ("LowerLeg.R", Some(69), [0.0, 0.0, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("lower_leg.R", Some(71), [0.0, 0.5, 0.0], [0.0, 4.371139e-08, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("UpperLeg.R", Some(71), [0.0, 0.0, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("upper_leg.R", Some(73), [-0.25, 0.25, 0.0], [1.0, 0.0, -4.371139e-08, 0.0], [1.0, 1.0, 1.0], false),
    ("Hips", Some(73), [0.0, 0.0, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("hips", Some(75), [0.0, 0.75, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
    ("Root", Some(75), [0.0, 0.0, 0.0], [-2.1855694e-08, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], true),
    ("root", None, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0], false),
];
#[rustfmt::skip]
const ROBOT_DECLARED: [(&str, usize); 53] = [
    ("chest", 55),
    ("head", 5),
    ("hips", 73),
    ("leftEye", 1),
    ("leftFoot", 60),
    ("leftHand", 24),
    ("leftIndexDistal", 11),
    ("leftIndexIntermediate", 12),
    ("leftIndexProximal", 13),
    ("leftLittleDistal", 20),
    ("leftLittleIntermediate", 21),
    ("leftLittleProximal", 22),
    ("leftLowerArm", 26),
    ("leftLowerLeg", 62),
    ("leftMiddleDistal", 14),
    ("leftMiddleIntermediate", 15),
    ("leftMiddleProximal", 16),
    ("leftRingDistal", 17),
    ("leftRingIntermediate", 18),
    ("leftRingProximal", 19),
    ("leftShoulder", 30),
    ("leftThumbDistal", 8),
    ("leftThumbMetacarpal", 10),
    ("leftThumbProximal", 9),
    ("leftToes", 58),
    ("leftUpperArm", 28),
    ("leftUpperLeg", 64),
    ("neck", 7),
    ("rightEye", 3),
    ("rightFoot", 67),
    ("rightHand", 47),
    ("rightIndexDistal", 34),
    ("rightIndexIntermediate", 35),
    ("rightIndexProximal", 36),
    ("rightLittleDistal", 43),
    ("rightLittleIntermediate", 44),
    ("rightLittleProximal", 45),
    ("rightLowerArm", 49),
    ("rightLowerLeg", 69),
    ("rightMiddleDistal", 37),
    ("rightMiddleIntermediate", 38),
    ("rightMiddleProximal", 39),
    ("rightRingDistal", 40),
    ("rightRingIntermediate", 41),
    ("rightRingProximal", 42),
    ("rightShoulder", 53),
    ("rightThumbDistal", 31),
    ("rightThumbMetacarpal", 33),
    ("rightThumbProximal", 32),
    ("rightToes", 65),
    ("rightUpperArm", 51),
    ("rightUpperLeg", 71),
    ("spine", 57),
];

/// The robot of `ROBOT` and `ROBOT_DECLARED` as a `.vrm` in `dir`.
fn robot_vrm(dir: &std::path::Path) -> PathBuf {
    let n = ROBOT.len();
    let nodes: Vec<serde_json::Value> = ROBOT
        .iter()
        .enumerate()
        .map(|(i, (name, _, t, r, s, mesh))| {
            let children: Vec<usize> = (0..n).filter(|&c| ROBOT[c].1 == Some(i)).collect();
            let mut node =
                serde_json::json!({"name": name, "translation": t, "rotation": r, "scale": s});
            if !children.is_empty() {
                node["children"] = serde_json::json!(children);
            }
            if *mesh {
                node["mesh"] = serde_json::json!(0);
            }
            node
        })
        .collect();
    let bones: serde_json::Map<String, serde_json::Value> = ROBOT_DECLARED
        .iter()
        .map(|(b, node)| (b.to_string(), serde_json::json!({ "node": node })))
        .collect();
    let triangle: [f32; 9] = [0.0, 0.0, 0.0, 0.05, 0.0, 0.0, 0.0, 0.05, 0.0];
    let bin: Vec<u8> = triangle.iter().flat_map(|v| v.to_le_bytes()).collect();
    let roots: Vec<usize> = (0..n).filter(|&i| ROBOT[i].1.is_none()).collect();
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["VRMC_vrm"],
        "extensions": {"VRMC_vrm": {
            "specVersion": "1.0",
            "meta": {"name": "debug_robot", "authors": ["test"], "licenseUrl": "https://vrm.dev/licenses/1.0/"},
            "humanoid": {"humanBones": bones}
        }},
        "scene": 0,
        "scenes": [{"nodes": roots}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
            "min": [0.0, 0.0, 0.0], "max": [0.05, 0.05, 0.0]}],
        "bufferViews": [{"buffer": 0, "byteLength": bin.len()}],
        "buffers": [{"byteLength": bin.len()}],
    });
    let path = dir.join("debug_robot.vrm");
    std::fs::write(&path, common::join_glb(&doc, &bin)).unwrap();
    path
}

#[test]
fn a_skinless_vrm_body_maps_every_declared_finger() {
    let dir = tempfile::tempdir().unwrap();
    let file = robot_vrm(dir.path());
    for extra in [None, Some("--ignore-vrm")] {
        let mut args = vec!["map", "--json", file.to_str().unwrap()];
        args.extend(extra);
        let v = json(&args);
        let bones = &v["skeletons"][0]["bones"];
        for (vrm, node) in ROBOT_DECLARED {
            let name = vrm[..1].to_uppercase() + &vrm[1..];
            assert_eq!(bones[&name]["node"], node, "{extra:?} {name}: {bones}");
        }
    }
}
