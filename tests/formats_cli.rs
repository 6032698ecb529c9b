//! Issue 15 from the command line: BVH out and back, retargeting between FBX files, batch runs
//! over folders of FBX and BVH files (other formats listed as skipped), damaged BVH files.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use skelnorm::model::{Model, Pose, SkeletonId};

fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = common::skelnorm(args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The largest distance between the joints of the same-named bones of clip `a_clip` of `a` and
/// the one clip of `b`, at every key time of `b`, relative to `a`'s height.
fn motion_difference(a: &Model, a_clip: &str, b: &Model) -> f32 {
    let ca = a.clips.iter().find(|c| c.name == a_clip).unwrap();
    let sa = a.skeleton(ca.skeleton);
    let cb = &b.clips[0];
    let sb = b.skeleton(cb.skeleton);
    let times: Vec<f32> = cb
        .tracks
        .iter()
        .find_map(|t| t.rotation.as_ref().map(|r| r.times.to_vec()))
        .unwrap();
    let h = sa.height();
    let mut worst = 0.0f32;
    for t in times {
        let (wa, wb) = (
            Pose::sample(sa, ca, t).world(sa),
            Pose::sample(sb, cb, t).world(sb),
        );
        for (i, bone) in sa.bones.iter().enumerate() {
            if let Some(j) = sb.bones.iter().position(|x| x.name == bone.name) {
                let d = wa[i].w_axis.truncate().distance(wb[j].w_axis.truncate());
                worst = worst.max(d / h);
            }
        }
    }
    worst
}

#[test]
fn a_clip_written_as_bvh_reads_back_as_the_same_motion() {
    let dir = tempfile::tempdir().unwrap();
    let normalized = dir.path().join("n.glb");
    let fixture = common::root().join("fixtures/mixamo.glb");
    let (code, err) = run(&[
        "normalize",
        fixture.to_str().unwrap(),
        "-o",
        normalized.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let glb = skelnorm::gltf_io::read(&normalized).unwrap();
    for (order, unit) in [("zxy", "cm"), ("xyz", "m"), ("yzx", "cm")] {
        let bvh = dir.path().join(format!("walk_{order}.bvh"));
        let (code, err) = run(&[
            "convert",
            normalized.to_str().unwrap(),
            bvh.to_str().unwrap(),
            "--clip",
            "walk",
            "--bvh-order",
            order,
            "--bvh-unit",
            unit,
        ]);
        assert_eq!(code, Some(0), "{err}");
        let text = std::fs::read_to_string(&bvh).unwrap();
        // Profile names after normalization, and the order asked for.
        assert!(text.contains("ROOT Hips") && text.contains("JOINT LeftUpperArm"));
        let want = order_names(order);
        assert!(text.contains(&want), "{order}: {want}");
        let back = skelnorm::io::read(&bvh, &Default::default()).unwrap();
        assert_eq!(back.model.clips[0].skeleton, SkeletonId(0));
        let d = motion_difference(&glb.model, "walk", &back.model);
        assert!(
            d <= 1e-4,
            "{order} {unit}: read back {d} of the height away"
        );
    }
    // Several clips and no --clip: a usage error that lists them; nothing written.
    let bvh = dir.path().join("all.bvh");
    let (code, err) = run(&[
        "convert",
        normalized.to_str().unwrap(),
        bvh.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--clip") && err.contains("walk"), "{err}");
    assert!(!bvh.exists());
}

fn order_names(order: &str) -> String {
    order
        .chars()
        .map(|c| format!("{}rotation", c.to_ascii_uppercase()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn retarget_writes_bvh_and_takes_fbx_on_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("walk.bvh");
    let fx = |f: &str| common::root().join("fixtures").join(f);
    let (code, err) = run(&[
        "retarget",
        "--source",
        fx("mixamo.glb").to_str().unwrap(),
        "--target",
        fx("blender.glb").to_str().unwrap(),
        "--clip",
        "walk",
        "--suffix",
        " (mixamo)",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let back = skelnorm::io::read(&out, &Default::default()).unwrap();
    assert_eq!(back.model.clips.len(), 1);
    let (Some(src), Some(dst)) = (
        common::asset("fbx/quaternius_Male_Casual.fbx"),
        common::asset("fbx/ufbx_maya_kenney_character_7700_binary.fbx"),
    ) else {
        return;
    };
    let glb = dir.path().join("fbx.glb");
    let (code, err) = run(&[
        "retarget",
        "--source",
        src.to_str().unwrap(),
        "--target",
        dst.to_str().unwrap(),
        "--clip",
        "HumanArmature|Man_Walk",
        "-o",
        glb.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    if let Some(errors) = common::validator_errors(&glb) {
        assert_eq!(errors, 0);
    }
    let doc = skelnorm::gltf_io::read(&glb).unwrap();
    assert!(doc
        .model
        .clips
        .iter()
        .any(|c| c.name == "HumanArmature|Man_Walk"));
}

#[test]
fn batch_reads_fbx_and_bvh_and_lists_other_formats_as_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(input.join("mocap")).unwrap();
    std::fs::copy(
        common::root().join("fixtures/mixamo.glb"),
        input.join("mixamo.glb"),
    )
    .unwrap();
    let bvh = input.join("mocap/walk.bvh");
    let (code, err) = run(&[
        "convert",
        common::root().join("fixtures/mixamo.glb").to_str().unwrap(),
        bvh.to_str().unwrap(),
        "--clip",
        "walk",
    ]);
    assert_eq!(code, Some(0), "{err}");
    std::fs::write(input.join("prop.obj"), "v 0 0 0\n").unwrap();
    std::fs::write(input.join("notes.txt"), "not a model").unwrap();
    let fbx = common::asset("fbx/RiggedFigure_blender.fbx");
    if let Some(f) = &fbx {
        std::fs::copy(f, input.join("figure.fbx")).unwrap();
    }
    let out = dir.path().join("out");
    let report = dir.path().join("r.json");
    let (code, err) = run(&[
        "batch",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.join("mixamo.glb").is_file());
    assert!(
        out.join("mocap/walk.glb").is_file(),
        "a BVH input gives a .glb output"
    );
    if fbx.is_some() {
        assert!(
            out.join("figure.glb").is_file(),
            "an FBX input gives a .glb output"
        );
    }
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let files = r["files"].as_array().unwrap();
    let obj = files.iter().find(|f| f["input"] == "prop.obj").unwrap();
    assert_eq!(obj["status"], "skipped");
    assert!(obj["error"].as_str().unwrap().contains(".obj"));
    assert!(
        !files.iter().any(|f| f["input"] == "notes.txt"),
        "companion files are not listed"
    );
}

#[test]
fn damaged_bvh_files_give_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.bvh");
    let (code, err) = run(&[
        "convert",
        common::root().join("fixtures/mixamo.glb").to_str().unwrap(),
        good.to_str().unwrap(),
        "--clip",
        "walk",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(&good).unwrap();
    let cut = dir.path().join("cut.bvh");
    for at in [10, text.len() / 3, text.len() - 40] {
        std::fs::write(&cut, &text[..at]).unwrap();
        let out = dir.path().join("out.glb");
        let (code, err) = run(&[
            "normalize",
            cut.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(1), "cut at {at}: {err}");
        assert!(
            err.lines().count() == 1 && err.contains("cut.bvh") && err.contains("BVH"),
            "cut at {at}: {err}"
        );
        assert!(!out.exists());
        assert!(!err.contains("panicked"));
    }
}
