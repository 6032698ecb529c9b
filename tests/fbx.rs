//! Issue 15: FBX in. Every shared FBX file is read (skeleton, clips, declared unit and axes),
//! normalizes into a GLB the Khronos validator passes and three.js plays exactly as the plain
//! conversion, the humanoids map, the Fox is refused; damaged FBX files give one clear error.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]
#![cfg(feature = "fbx")]

mod common;

use std::path::{Path, PathBuf};

/// The shared FBX files, each with whether it is a humanoid.
const FILES: &[(&str, bool)] = &[
    ("fbx/quaternius_Male_Casual.fbx", true),
    ("fbx/ufbx_maya_human_ik_7400_binary.fbx", true),
    ("fbx/ufbx_maya_kenney_character_7700_binary.fbx", true),
    ("fbx/ufbx_blender_293_barbarian_7400_binary.fbx", true),
    ("fbx/RiggedFigure_blender.fbx", true),
    ("fbx/cmu_07_01_isaacgym.fbx", true),
    ("fbx/Fox_blender.fbx", false),
];

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = common::skelnorm(args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn present() -> Vec<(PathBuf, bool)> {
    FILES
        .iter()
        .filter_map(|(rel, human)| common::asset(rel).map(|p| (p, *human)))
        .collect()
}

#[test]
fn inspect_shows_skeleton_clips_unit_and_axes() {
    for (path, _) in present() {
        let p = path.to_str().unwrap();
        let (code, out, err) = run(&["inspect", "--json", p]);
        assert_eq!(code, Some(0), "{p}: {err}");
        let v = common::file_stage(&serde_json::from_str(&out).unwrap(), "inspect");
        let converted = &v["converted"];
        assert!(
            converted["format"].as_str().unwrap().starts_with("FBX 7."),
            "{p}: {converted}"
        );
        let facts: Vec<String> = converted["facts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f[0].as_str().unwrap().to_string())
            .collect();
        for want in ["unit", "up axis", "frame rate"] {
            assert!(
                facts.iter().any(|f| f == want),
                "{p}: no {want} in {facts:?}"
            );
        }
        let skeletons = v["skeletons"].as_array().unwrap();
        assert!(!skeletons.is_empty(), "{p}: no skeleton");
        let (code, text, _) = run(&["inspect", p]);
        assert_eq!(code, Some(0));
        assert!(
            text.contains("unit: ") && text.contains("up axis: "),
            "{p}: {text}"
        );
    }
}

#[test]
fn every_file_normalizes_into_a_valid_glb_that_plays_like_the_conversion() {
    let dir = tempfile::tempdir().unwrap();
    for (path, human) in present() {
        let p = path.to_str().unwrap();
        let name = path.file_stem().unwrap().to_str().unwrap();
        let out = dir.path().join(format!("{name}.glb"));
        let (code, json, err) = run(&["normalize", p, "-o", out.to_str().unwrap(), "--json"]);
        if !human {
            assert_eq!(code, Some(3), "{p}: a non-humanoid is refused: {err}");
            assert!(!out.exists(), "{p}: no output when refused");
            continue;
        }
        assert_eq!(code, Some(0), "{p}: {err}");
        if let Some(errors) = common::validator_errors(&out) {
            assert_eq!(errors, 0, "{p}: validator errors in the output");
        }
        let plain = dir.path().join(format!("{name}.plain.glb"));
        let (code, _, err) = run(&["convert", p, plain.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{p}: {err}");
        if let Some(errors) = common::validator_errors(&plain) {
            assert_eq!(errors, 0, "{p}: validator errors in the plain conversion");
        }
        // The whole scene turned with the character, if it did: the reference turns too.
        let report = common::file_stage(&serde_json::from_str(&json).unwrap(), "normalize");
        let rest = &report["skeletons"][0]["rest"];
        let reference = if rest["scene_turned"] == true {
            let deg = rest["facing_turn_deg"].as_f64().unwrap() as f32;
            let turn = glam::Quat::from_rotation_y(deg.to_radians());
            common::turned_copy(&plain, turn.to_array(), dir.path())
        } else {
            plain.clone()
        };
        if let Some(e) = common::three_check(&reference, &out) {
            assert!(
                e <= 1e-5,
                "{p}: three.js plays the normalized file {e} away from the conversion"
            );
        }
        // The humanoid's clips survive: as many in the output as the FBX has stacks that move.
        let doc = skelnorm::gltf_io::read(&out).unwrap();
        let converted = skelnorm::io::read(&path, &Default::default()).unwrap();
        assert_eq!(
            doc.model.clips.len(),
            converted.model.clips.len(),
            "{p}: clips lost"
        );
    }
}

#[test]
fn humanoid_bones_map() {
    // Required bones of every humanoid, plus the named ones each rig has.
    for (path, _) in present().into_iter().filter(|(_, human)| *human) {
        let p = path.to_str().unwrap();
        let (code, out, err) = run(&["map", "--json", p]);
        assert_eq!(code, Some(0), "{p}: {err}");
        let v = common::file_stage(&serde_json::from_str(&out).unwrap(), "map");
        let s = &v["skeletons"][0];
        assert!(
            s["missing_required"].as_array().unwrap().is_empty(),
            "{p}: {}",
            s["missing_required"]
        );
    }
    // HumanIK names map by name, all 52 the rig has.
    if let Some(path) = common::asset("fbx/ufbx_maya_human_ik_7400_binary.fbx") {
        let (_, out, _) = run(&["map", "--json", path.to_str().unwrap()]);
        let v = common::file_stage(&serde_json::from_str(&out).unwrap(), "map");
        let bones = &v["skeletons"][0]["bones"];
        assert_eq!(bones["LeftUpperArm"]["source"], "Character1_LeftArm");
        assert_eq!(bones["RightFoot"]["source"], "Character1_RightFoot");
        assert_eq!(bones["Head"]["source"], "Character1_Head");
        assert!(bones.as_object().unwrap().len() >= 50, "{bones}");
    }
}

/// Damaged FBX files: one clear line naming the file, exit 1, no panic, no output.
#[test]
fn damaged_fbx_files_give_one_clear_error() {
    let Some(src) = common::asset("fbx/RiggedFigure_blender.fbx") else {
        return;
    };
    let bytes = std::fs::read(&src).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut cases: Vec<(String, Vec<u8>)> = [
        23usize,
        27,
        100,
        1000,
        bytes.len() / 2,
        bytes.len() * 9 / 10,
    ]
    .iter()
    .map(|&n| (format!("cut at {n}"), bytes[..n].to_vec()))
    .collect();
    let mut flipped = bytes.clone();
    for i in (200..flipped.len()).step_by(97) {
        flipped[i] ^= 0x5a;
    }
    cases.push(("bytes flipped".into(), flipped));
    cases.push((
        "ascii header only".into(),
        b"; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n".to_vec(),
    ));
    for (what, data) in cases {
        let input = dir.path().join("bad.fbx");
        std::fs::write(&input, &data).unwrap();
        let out = dir.path().join("out.glb");
        let (code, _, err) = run(&[
            "normalize",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert!(
            matches!(code, Some(1) | Some(3)),
            "{what}: exit {code:?}: {err}"
        );
        if code == Some(1) {
            assert!(
                err.lines().count() == 1 && err.contains("bad.fbx"),
                "{what}: one line naming the file: {err}"
            );
        }
        // A file cut short says so, whatever ufbx stopped at (a DEFLATE stream, a node).
        if what.starts_with("cut at") && data.len() > 27 {
            assert!(
                err.to_ascii_lowercase().contains("truncated")
                    && err.contains(&format!("the file has {} bytes", data.len())),
                "{what}: {err}"
            );
        }
        assert!(!out.exists(), "{what}: no output");
    }
}

/// Every shared binary FBX cut short, wherever ufbx stops reading it ("Bad DEFLATE data",
/// "Failed to load", "Empty file"), says it is truncated, with the size it has and the size its
/// records claim.
#[test]
fn cut_fbx_files_say_they_are_truncated() {
    let dir = tempfile::tempdir().unwrap();
    for (src, _) in present() {
        let bytes = std::fs::read(&src).unwrap();
        if !bytes.starts_with(b"Kaydara FBX Binary") {
            continue;
        }
        for percent in [30, 60, 90, 99] {
            let n = bytes.len() * percent / 100;
            let input = dir.path().join("cut.fbx");
            std::fs::write(&input, &bytes[..n]).unwrap();
            let (code, _, err) = run(&["inspect", input.to_str().unwrap()]);
            let what = format!("{} cut at {percent}%", src.display());
            assert_eq!(code, Some(1), "{what}: {err}");
            assert!(
                err.to_ascii_lowercase().contains("truncated")
                    && err.contains(&format!("the file has {n} bytes, its records run to byte")),
                "{what}: {err}"
            );
        }
    }
}

/// What the reader noticed (`fbx_note`) is in normalize's and retarget's text summaries, as in
/// `inspect` and the JSON report.
#[test]
fn reader_notes_show_in_the_text_summaries() {
    let Some(src) = common::asset("fbx/ufbx_blender_293_barbarian_7400_binary.fbx") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.glb");
    let (src, out) = (src.to_str().unwrap(), out.to_str().unwrap());
    let (_, inspected, _) = run(&["inspect", src]);
    let notes: Vec<&str> = inspected
        .lines()
        .filter_map(|l| l.trim().strip_prefix("warning: fbx_note: "))
        .collect();
    assert!(!notes.is_empty(), "{inspected}");
    let mixamo = common::root().join("fixtures/mixamo.glb");
    for args in [
        vec!["normalize", src, "-o", out],
        vec![
            "retarget",
            "--source",
            mixamo.to_str().unwrap(),
            "--target",
            src,
            "-o",
            out,
        ],
    ] {
        let (code, text, err) = run(&args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        for note in &notes {
            assert!(
                text.contains(&format!("warning [fbx_note]: {note}")),
                "{args:?}: no `{note}` in\n{text}"
            );
        }
    }
}

/// A file's format is told by its content: an FBX named `.glb` still reads as FBX.
#[test]
fn the_format_comes_from_the_content() {
    let Some(src) = common::asset("fbx/RiggedFigure_blender.fbx") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let renamed = dir.path().join("figure.glb");
    std::fs::copy(&src, &renamed).unwrap();
    let doc = skelnorm::io::read(&renamed, &Default::default()).unwrap();
    assert!(doc.converted.is_some());
    assert_eq!(doc.model.skeletons.len(), 1);
}

/// An armature scaled to 0 (every bind matrix degenerate, with no inverse), exported by Blender:
/// read without NaN (the bones below a degenerate bind keep their own transforms), converted to
/// a valid glTF, and refused by `normalize` with a message naming the file, never a panic or an
/// unreadable "null" in the JSON.
#[test]
fn a_zero_scale_armature_reads_without_nan() {
    let Some(python) = common::blender() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let fbx = dir.path().join("zero_scale.fbx");
    let script = dir.path().join("zero_scale.py");
    std::fs::write(
        &script,
        format!(
            "import bpy\n\
             bpy.ops.wm.read_factory_settings(use_empty=True)\n\
             bpy.ops.import_scene.gltf(filepath={:?})\n\
             for o in bpy.data.objects:\n    \
                 if o.type == 'ARMATURE':\n        o.scale = (0.0, 0.0, 0.0)\n\
             bpy.ops.export_scene.fbx(filepath={:?}, add_leaf_bones=False)\n",
            common::root()
                .join("fixtures/mixamo.glb")
                .display()
                .to_string(),
            fbx.display().to_string()
        ),
    )
    .unwrap();
    let out = std::process::Command::new(python)
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        out.status.success() && fbx.is_file(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let p = fbx.to_str().unwrap();
    let glb = dir.path().join("zero_scale.glb");
    let (code, _, err) = run(&["convert", p, glb.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let doc = skelnorm::gltf_io::read(&glb).unwrap();
    for s in &doc.model.skeletons {
        for b in &s.bones {
            let t = &b.rest;
            assert!(
                t.translation.is_finite() && t.rotation.is_finite() && t.scale.is_finite(),
                "bone `{}` rests at a non-finite transform",
                b.name
            );
        }
    }
    if let Some(errors) = common::validator_errors(&glb) {
        assert_eq!(errors, 0, "validator errors in the conversion");
    }
    let (code, _, err) = run(&[
        "normalize",
        p,
        "-o",
        dir.path().join("n.glb").to_str().unwrap(),
    ]);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains("zero_scale.fbx"), "{err}");
}

/// Writes the ASCII twin of the binary FBX file `path` to `ascii` (tests/tools/fbx_to_ascii.py).
fn ascii_twin(path: &Path, ascii: &Path) {
    let tool = common::root().join("tests/tools/fbx_to_ascii.py");
    let out = std::process::Command::new("python3")
        .arg(&tool)
        .arg(path)
        .arg(ascii)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// ASCII FBX: each shared binary file rewritten as ASCII (tests/tools/fbx_to_ascii.py: the same
/// node tree in the ASCII syntax) reads as ASCII and converts to the very same GLB bytes.
#[test]
fn ascii_twins_convert_like_their_binary_files() {
    let files = present();
    if files.is_empty() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (path, _) in files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let ascii = dir.path().join(format!("{name}.ascii.fbx"));
        ascii_twin(&path, &ascii);
        let head = std::fs::read(&ascii).unwrap();
        assert!(head.starts_with(b"; FBX 7."), "{name}: the twin is ASCII");
        let (code, text, err) = run(&["inspect", ascii.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{name}: {err}");
        assert!(
            text.lines().next().unwrap().contains("ASCII"),
            "{name}: {text}"
        );
        let (binary_glb, ascii_glb) = (
            dir.path().join(format!("{name}.bin.glb")),
            dir.path().join(format!("{name}.ascii.glb")),
        );
        for (input, glb) in [(path.as_path(), &binary_glb), (ascii.as_path(), &ascii_glb)] {
            let (code, _, err) = run(&["convert", input.to_str().unwrap(), glb.to_str().unwrap()]);
            assert_eq!(code, Some(0), "{}: {err}", input.display());
        }
        assert!(
            std::fs::read(&binary_glb).unwrap() == std::fs::read(&ascii_glb).unwrap(),
            "{name}: the ASCII twin converts to other bytes than the binary file"
        );
    }
}

/// Issue 21: an FBX node's animated user-defined number properties (Unreal's animation curves,
/// as tests/common/fbx_curves.rs writes them) are read as the clip's float curves, named by
/// the property, keyed in seconds from the clip's start, from any node; animated properties
/// that are not user-defined (`Visibility`) and user-defined ones that are not animated are not.
#[test]
fn animated_user_properties_are_the_clips_float_curves() {
    use common::fbx_curves::{add_float_curves, MINIMAL};
    use skelnorm::io::{read, ReadOptions};
    let dir = tempfile::tempdir().unwrap();
    let read_text = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        read(&path, &ReadOptions::default()).unwrap()
    };
    let bare = read_text("bare.fbx", MINIMAL);
    assert_eq!(bare.model.clips.len(), 1);
    assert!(bare.model.clips[0].curves.is_empty());
    let text = add_float_curves(
        MINIMAL,
        "Root",
        &[
            ("FootLock_L", vec![(0.0, 0.0), (0.5, 1.0), (1.0, 0.0)]),
            ("FootLock_R", vec![(0.0, 1.0), (1.0, 1.0)]),
        ],
    );
    let text = add_float_curves(&text, "Hips", &[("Speed", vec![(0.0, 2.0), (1.0, 4.0)])]);
    let doc = read_text("curves.fbx", &text);
    let clip = &doc.model.clips[0];
    assert_eq!(clip.name, "Walk");
    let names: Vec<&str> = clip.curves.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["FootLock_L", "FootLock_R", "Speed"]);
    let at = |name: &str, t: f32| clip.curve(name).unwrap().track.sample(t);
    for (t, want) in [(0.0, 0.0), (0.25, 0.5), (0.5, 1.0), (0.75, 0.5), (1.0, 0.0)] {
        assert!(
            (at("FootLock_L", t) - want).abs() < 1e-5,
            "FootLock_L at {t}"
        );
    }
    assert_eq!(at("FootLock_R", 0.6), 1.0);
    assert!((at("Speed", 0.5) - 3.0).abs() < 1e-5);
    assert!(clip.validate(&doc.model.skeletons[0]).is_empty());
    // `inspect` lists them (what `retarget --contacts` can name).
    let path = dir.path().join("curves.fbx");
    let (code, out, err) = run(&["inspect", "--json", path.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let v = common::file_stage(&serde_json::from_str(&out).unwrap(), "inspect");
    assert_eq!(
        v["clips"][0]["curves"],
        serde_json::json!(["FootLock_L", "FootLock_R", "Speed"])
    );
    let (_, text, _) = run(&["inspect", path.to_str().unwrap()]);
    assert!(
        text.contains("float curves: FootLock_L, FootLock_R, Speed"),
        "{text}"
    );
}

/// Issue 21: in a file with two skeletons that one stack moves (two clips from one animation),
/// each curve goes to the clip of the skeleton holding the node it is on, a name both root
/// bones have included; a curve on a null in no skeleton goes to the first clip. A stack with
/// only curves is left out, and its note names the curves left out with it.
#[test]
fn curves_go_to_the_clip_of_their_skeleton() {
    use common::fbx_curves::{add_float_curves, two_skeletons};
    use skelnorm::io::{read, ReadOptions};
    let dir = tempfile::tempdir().unwrap();
    let text = two_skeletons();
    let text = add_float_curves(
        &text,
        "Root2",
        &[("FootLock_L", vec![(0.0, 1.0), (1.0, 1.0)])],
    );
    let text = add_float_curves(&text, "Hips2", &[("Only2", vec![(0.0, 5.0), (1.0, 6.0)])]);
    let text = add_float_curves(
        &text,
        "Root",
        &[("FootLock_L", vec![(0.0, 0.0), (1.0, 0.0)])],
    );
    let text = add_float_curves(
        &text,
        "Controls",
        &[("Global", vec![(0.0, 7.0), (1.0, 7.0)])],
    );
    let path = dir.path().join("two.fbx");
    std::fs::write(&path, &text).unwrap();
    let doc = read(&path, &ReadOptions::default()).unwrap();
    let model = &doc.model;
    assert_eq!(
        model.skeletons.len(),
        2,
        "{:?}",
        model.skeletons.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    assert_eq!(model.clips.len(), 2);
    let clip_of = |bone: &str| {
        let s = model
            .skeletons
            .iter()
            .position(|s| s.bones.iter().any(|b| b.name == bone))
            .unwrap();
        model
            .clips
            .iter()
            .find(|c| c.skeleton.index() == s)
            .unwrap()
    };
    let names =
        |c: &skelnorm::model::Clip| c.curves.iter().map(|k| k.name.clone()).collect::<Vec<_>>();
    let (one, two) = (clip_of("Hips"), clip_of("Hips2"));
    assert_eq!(names(two), ["FootLock_L", "Only2"]);
    assert_eq!(two.curve("FootLock_L").unwrap().track.sample(0.5), 1.0);
    // The first clip read from the animation is the first skeleton's: it also takes the
    // curve of the null in no skeleton.
    assert_eq!(model.clips[0].skeleton, one.skeleton);
    let mut got = names(one);
    got.sort();
    assert_eq!(got, ["FootLock_L", "Global"]);
    assert_eq!(one.curve("FootLock_L").unwrap().track.sample(0.5), 0.0);
    for (c, s) in model.clips.iter().map(|c| (c, model.skeleton(c.skeleton))) {
        assert!(c.validate(s).is_empty());
    }
    assert!(
        !doc.warnings.iter().any(|w| w.message.contains("left out")),
        "{:?}",
        doc.warnings
    );

    // When `Walk` does not move the second skeleton (no clip of it), its curves are left out
    // with a note, not given to the first skeleton's clip.
    let still = text.replace("\tC: \"OP\", 220, 4, \"Lcl Translation\"\n", "");
    assert_ne!(still, text);
    let path = dir.path().join("still.fbx");
    std::fs::write(&path, &still).unwrap();
    let doc = read(&path, &ReadOptions::default()).unwrap();
    assert_eq!(doc.model.clips.len(), 1);
    let mut got = names(&doc.model.clips[0]);
    got.sort();
    assert_eq!(got, ["FootLock_L", "Global"]);
    assert_eq!(
        doc.model.clips[0]
            .curve("FootLock_L")
            .unwrap()
            .track
            .sample(0.5),
        0.0
    );
    for curve in ["FootLock_L", "Only2"] {
        let note = format!("animation `Walk`: curve `{curve}` left out (its node is in skeleton");
        assert!(
            doc.warnings.iter().any(|w| w.message.starts_with(&note)),
            "{note}: {:?}",
            doc.warnings
        );
    }

    // A second stack that moves nothing but has curves: left out, its note names them.
    let stack = "\tAnimationStack: 300, \"AnimStack::Idle\", \"\" {\n\t\tProperties70:  {\n\
                 \t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\", 46186158000\n\t\t}\n\t}\n\
                 \tAnimationLayer: 301, \"AnimLayer::Idle\", \"\" {\n\t}\n";
    let mut idle = common::fbx_curves::MINIMAL.replace(
        "\nConnections:  {\n",
        "\nConnections:  {\n\tC: \"OO\", 301, 300\n",
    );
    let at = idle.find("\tAnimationStack: 100").unwrap();
    idle.insert_str(at, stack);
    // The curves go on the first layer the text lists: Idle's.
    let idle = add_float_curves(
        &idle,
        "Root",
        &[
            ("FootLock_L", vec![(0.0, 0.0), (1.0, 1.0)]),
            ("FootLock_R", vec![(0.0, 1.0), (1.0, 0.0)]),
        ],
    );
    let path = dir.path().join("idle.fbx");
    std::fs::write(&path, &idle).unwrap();
    let doc = read(&path, &ReadOptions::default()).unwrap();
    assert_eq!(doc.model.clips.len(), 1);
    assert!(doc.model.clips[0].curves.is_empty());
    let note = "animation `Idle` moves nothing and was left out, and with it its float curves `FootLock_L`, `FootLock_R`";
    assert!(
        doc.warnings.iter().any(|w| w.message == note),
        "{:?}",
        doc.warnings
    );
}

/// Issue 43: one rule for an FBX take that keys nothing. Mixamo's files carry an empty
/// 0-second `Take 001` (one layer, no curve node) beside `mixamo.com`, and pose their nodes away
/// from the bind pose; that take became a clip holding the pose, while an empty take whose
/// nodes rest at the bind pose was left out with a note. Blender makes actions from keyed
/// curves only, so it skips both: so does the reader, with the same note.
#[test]
fn a_take_that_keys_nothing_is_no_clip_whatever_pose_it_holds() {
    use skelnorm::io::{read, ReadOptions};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixamo_like.fbx");
    std::fs::write(&path, common::fbx_curves::empty_take_posed_off_bind()).unwrap();
    let doc = read(&path, &ReadOptions::default()).unwrap();
    let clips: Vec<&str> = doc.model.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(clips, ["Walk"], "{:?}", doc.warnings);
    let note = "animation `Take 001` moves nothing and was left out";
    assert!(
        doc.warnings.iter().any(|w| w.message == note),
        "{:?}",
        doc.warnings
    );
    // The hips do rest at the bind pose (90 cm, the unit kept on the base), away from the pose
    // the file holds (100 cm), which is what made the empty take a clip.
    let hips = doc.model.skeletons[0]
        .bones
        .iter()
        .find(|b| b.name == "Hips")
        .unwrap();
    assert!(
        (hips.rest.translation.y - 90.0).abs() < 1e-4,
        "{:?}",
        hips.rest
    );
}

/// Issue 43: 3ds Max Biped exports key some bones a frame before the take starts (wiseMan.FBX:
/// keys at −1/30 s in a take from 0 to 2 s), which ufbx bakes from that key on; glTF key times
/// must not be negative (the validator's ACCESSOR_ANIMATION_INPUT_NEGATIVE). The clip starts at
/// 0 with the value the curve has there, and plays as before from 0 on.
#[test]
fn keys_before_the_take_starts_are_left_out() {
    use skelnorm::io::{read, ReadOptions};
    let early = common::fbx_curves::MINIMAL
        .replace(
            "\t\tKeyTime: *2 {\n\t\t\ta: 0,46186158000\n\t\t}\n\t\tKeyValueFloat: *2 {\n\t\t\ta: 100,110\n",
            "\t\tKeyTime: *3 {\n\t\t\ta: -1539538600,0,46186158000\n\t\t}\n\t\tKeyValueFloat: *3 {\n\t\t\ta: 90,100,110\n",
        )
        .replacen("\t\tKeyAttrRefCount: *1 {\n\t\t\ta: 2\n", "\t\tKeyAttrRefCount: *1 {\n\t\t\ta: 3\n", 1);
    assert_ne!(early, common::fbx_curves::MINIMAL);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("early.fbx");
    std::fs::write(&path, &early).unwrap();
    let doc = read(&path, &ReadOptions::default()).unwrap();
    let clip = &doc.model.clips[0];
    let hips = doc.model.skeletons[0]
        .bones
        .iter()
        .position(|b| b.name == "Hips")
        .unwrap();
    let keys = clip.tracks[hips].translation.as_ref().unwrap();
    assert_eq!(keys.times.first(), Some(&0.0), "{:?}", keys.times);
    assert!(
        keys.times.windows(2).all(|w| w[0] < w[1]),
        "{:?}",
        keys.times
    );
    for (t, y) in [(0.0, 100.0), (0.5, 105.0), (1.0, 110.0)] {
        let v = keys.sample(t);
        assert!((v.y - y).abs() < 1e-3, "at {t}: {v}");
    }
}

/// Issue 21 end to end: the shared CMU walk (07_01) as its ASCII twin with two foot-lock curves
/// on its hips node (left locked throughout, right never) retargets with `--contacts
/// FootLock_L,FootLock_R`: the report names the curves planting took its contacts from and the
/// clip differs from the one planting by height and speed makes; naming a curve the clip does
/// not have fails, naming the curve and the clip.
#[test]
fn retarget_plants_on_the_curves_an_fbx_file_carries() {
    let Some(path) = common::asset("fbx/cmu_07_01_isaacgym.fbx") else {
        eprintln!("skipped: fbx/cmu_07_01_isaacgym.fbx is not in the shared assets");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let ascii = dir.path().join("walk.ascii.fbx");
    ascii_twin(&path, &ascii);
    let text = std::fs::read_to_string(&ascii).unwrap();
    let text = common::fbx_curves::add_float_curves(
        &text,
        "Hips",
        &[
            ("FootLock_L", vec![(0.0, 1.0), (3.0, 1.0)]),
            ("FootLock_R", vec![(0.0, 0.0), (3.0, 0.0)]),
        ],
    );
    let source = dir.path().join("walk_curves.fbx");
    std::fs::write(&source, text).unwrap();
    let target = common::root().join("fixtures/long_legs.glb");
    let (by_curves, by_height) = (dir.path().join("curves.glb"), dir.path().join("height.glb"));
    let stage = common::retarget_stage(
        &source,
        &target,
        &by_curves,
        &["--contacts", "FootLock_L,FootLock_R"],
    );
    let contacts = &stage["clips"][0]["measured"]["ops"]["contacts"];
    assert_eq!(
        contacts,
        &serde_json::json!({"curves": {"left": "FootLock_L", "right": "FootLock_R", "threshold": 0.5}})
    );
    let stage = common::retarget_stage(&source, &target, &by_height, &["--plant"]);
    assert!(stage["clips"][0]["measured"]["ops"]
        .get("contacts")
        .is_none());
    assert_ne!(
        std::fs::read(&by_curves).unwrap(),
        std::fs::read(&by_height).unwrap()
    );
    let missing = dir.path().join("missing.glb");
    let (code, _, err) = run(&[
        "retarget",
        "--source",
        source.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
        "-o",
        missing.to_str().unwrap(),
        "--contacts",
        "Nope_L,FootLock_R",
    ]);
    assert_ne!(code, Some(0));
    assert!(
        err.contains("no curve `Nope_L`") && err.contains("clip `07_01|07_01`"),
        "{err}"
    );
}
