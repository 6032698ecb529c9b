//! Issue 21: `skelnorm mirror` on the command line: the clips it replaces or adds, BVH output,
//! and the exit codes of its failures.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn clip_names(path: &Path) -> Vec<String> {
    let model = skelnorm::io::read(path, &Default::default()).unwrap().model;
    model.clips.iter().map(|c| c.name.clone()).collect()
}

#[test]
fn mirrored_clips_replace_the_originals_or_go_beside_them() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::root().join("fixtures/mixamo.glb");
    let replaced = dir.path().join("replaced.glb");
    let out = common::skelnorm(&["mirror", s(&input), "-o", s(&replaced)]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(clip_names(&replaced), ["walk", "wave", "idle"]);
    let beside = dir.path().join("beside.gltf");
    let out = common::skelnorm(&[
        "mirror",
        s(&input),
        "-o",
        s(&beside),
        "--clip",
        "walk",
        "--suffix",
        "_mirrored",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        clip_names(&beside),
        ["walk", "wave", "idle", "walk_mirrored"]
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("clip `walk` → `walk_mirrored`"), "{text}");
    // The new clip is the mirror of `walk`, the original is kept as it was.
    let (a, b) = (
        skelnorm::io::read(&input, &Default::default())
            .unwrap()
            .model,
        skelnorm::io::read(&beside, &Default::default())
            .unwrap()
            .model,
    );
    assert_eq!(a.clips[0].tracks, b.clips[0].tracks);
    let m = skelnorm::io::read(&replaced, &Default::default())
        .unwrap()
        .model;
    assert_eq!(m.clips[0].tracks, b.clips[3].tracks);
    if let Some(errors) = common::validator_errors(&beside) {
        assert_eq!(errors, 0);
    }
}

#[test]
fn a_bvh_output_holds_the_one_mirrored_clip() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::root().join("fixtures/mixamo.glb");
    let bvh = dir.path().join("walk.bvh");
    let out = common::skelnorm(&["mirror", s(&input), "-o", s(&bvh)]);
    assert_eq!(out.status.code(), Some(2), "three clips, one BVH");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--clip"));
    let out = common::skelnorm(&["mirror", s(&input), "-o", s(&bvh), "--clip", "walk"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(clip_names(&bvh).len(), 1);
    // A BVH in, mirrored twice through BVH, gives its motion back.
    if let Some(cmu) = common::asset("bvh/cmu_131_03_maxfriendly.bvh") {
        let (once, twice) = (dir.path().join("once.bvh"), dir.path().join("twice.bvh"));
        for (from, to) in [(&cmu, &once), (&once, &twice)] {
            let out = common::skelnorm(&["mirror", s(from), "-o", s(to)]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let text = |p: &Path| std::fs::read_to_string(p).unwrap();
        assert_ne!(text(&cmu), text(&once));
        let (a, b) = (
            skelnorm::io::read(&cmu, &Default::default()).unwrap().model,
            skelnorm::io::read(&twice, &Default::default())
                .unwrap()
                .model,
        );
        let (sa, sb) = (&a.skeletons[0], &b.skeletons[0]);
        let h = sa.height();
        for t in a.clips[0].sample_times(Some(30.0)) {
            let pa = skelnorm::model::Pose::sample(sa, &a.clips[0], t).world(sa);
            let pb = skelnorm::model::Pose::sample(sb, &b.clips[0], t).world(sb);
            for (x, y) in pa.iter().zip(&pb) {
                let d = (x.w_axis - y.w_axis).length() / h;
                assert!(
                    d < 1e-4,
                    "{t}: {d:.2e} of the height (BVH keeps 6 decimals)"
                );
            }
        }
    }
}

#[test]
fn failures_exit_with_their_codes() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::root().join("fixtures/mixamo.glb");
    let out_file = dir.path().join("out.glb");
    let out = common::skelnorm(&["mirror", s(&input), "-o", s(&out_file), "--clip", "run"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no clip `run`") && err.contains("walk"),
        "{err}"
    );
    let out = common::skelnorm(&["mirror", s(&input), "-o", s(&input)]);
    assert_eq!(out.status.code(), Some(2), "the input is never the output");
    let out = common::skelnorm(&["mirror", s(&input), "-o", s(&dir.path().join("x.txt"))]);
    assert_eq!(out.status.code(), Some(2));
    let out = common::skelnorm(&[
        "mirror",
        s(&dir.path().join("none.glb")),
        "-o",
        s(&out_file),
    ]);
    assert_eq!(out.status.code(), Some(1));
    // A suffixed name that is taken: refused, nothing written.
    let out = common::skelnorm(&[
        "mirror",
        s(&input),
        "-o",
        s(&out_file),
        "--clip",
        "walk",
        "--suffix",
        "",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!out_file.exists());
    if let Some(men) = common::asset("quaternius/ModularMen_Casual.glb") {
        let out = common::skelnorm(&["mirror", s(&men), "-o", s(&out_file)]);
        assert_eq!(out.status.code(), Some(4), "no clips: nothing to do");
    }
}
