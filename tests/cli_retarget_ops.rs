//! Issue 21: the op flags of `skelnorm retarget` (`--pole`, `--stride`, `--treadmill`,
//! `--contacts`, `--pin`, `--mirror`) write exactly what the same ops in a settings file write, change the clip, keep
//! `Mirror` last when the settings list it, and refuse bad values with a usage error naming the
//! flag.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use std::path::Path;

/// `skelnorm retarget` of the mixamo walk onto long legs into `out` with `extra`: exit code and
/// stderr.
fn run(out: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let root = common::root().join("fixtures");
    let (src, dst) = (root.join("mixamo.glb"), root.join("long_legs.glb"));
    let mut args = vec![
        "retarget",
        "--source",
        src.to_str().unwrap(),
        "--target",
        dst.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--animation-only",
        "--suffix",
        "_r",
        "--no-check",
    ];
    args.extend_from_slice(extra);
    let r = common::skelnorm(&args);
    (r.status.code(), String::from_utf8_lossy(&r.stderr).into())
}

/// The retargeted clip of `file`: every key of every track, as numbers.
fn keys(file: &Path) -> Vec<f32> {
    let doc = skelnorm::gltf_io::read(file).unwrap();
    let clip = doc.model.clips.iter().find(|c| c.name == "walk_r").unwrap();
    let mut out = Vec::new();
    for t in &clip.tracks {
        if let Some(r) = &t.rotation {
            out.extend(r.values.iter().flat_map(|q| q.to_array()));
        }
        if let Some(p) = &t.translation {
            out.extend(p.values.iter().flat_map(|v| v.to_array()));
        }
    }
    out
}

#[test]
fn op_flags_equal_their_settings_and_change_the_clip() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bare = d.join("bare.glb");
    assert_eq!(run(&bare, &[]).0, Some(0));
    let bare = keys(&bare);
    // On this pair the leg IK already bends the knees the source's way: the Pole op turns
    // them by about 0 (what the report's pole figures say), so its flag is checked below.
    for (k, (flags, ron)) in [
        (vec!["--pole"], "Pole(())"),
        (
            vec!["--stride", "1.3,0.7"],
            "Stride((forward: 1.3, sideways: 0.7))",
        ),
        (vec!["--stride", "0.6"], "Stride((forward: 0.6))"),
        (
            vec!["--pin", "LeftHand=RightHand:global"],
            r#"Pin((bone: "LeftHand", from: "RightHand", space: global))"#,
        ),
        (
            vec!["--pin", "LeftHand=RightHand"],
            r#"Pin((bone: "LeftHand", from: "RightHand"))"#,
        ),
        (
            vec!["--treadmill", "0,-1.2"],
            "Plant((treadmill: velocity((0.0, -1.2))))",
        ),
        (
            vec!["--plant", "--treadmill", "detect"],
            "Plant((treadmill: detect))",
        ),
        (
            vec!["--plant", "--contacts", "detect"],
            "Plant((contacts: detect))",
        ),
        (vec!["--mirror"], "Mirror(())"),
        (
            vec!["--mirror", "--pole", "--stride", "1.2"],
            "Pole(()), Stride((forward: 1.2)), Mirror(())",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let (a, b) = (
            d.join(format!("flags{k}.glb")),
            d.join(format!("settings{k}.glb")),
        );
        let (code, err) = run(&a, &flags);
        assert_eq!(code, Some(0), "{flags:?}: {err}");
        let settings = d.join("s.ron");
        std::fs::write(&settings, format!("(retarget: (ops: [{ron}]))")).unwrap();
        let (code, err) = run(&b, &["--settings", settings.to_str().unwrap()]);
        assert_eq!(code, Some(0), "{ron}: {err}");
        let (ka, kb) = (keys(&a), keys(&b));
        assert_eq!(ka, kb, "{flags:?} writes what `{ron}` does");
        // A pin or the mirror may record more tracks: then the clip changed.
        let change = match ka.len() == bare.len() {
            true => ka
                .iter()
                .zip(&bare)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f32::max),
            false => f32::INFINITY,
        };
        eprintln!("{flags:?}: largest key change {change:.2e}");
        assert!(
            change > 1e-4 || flags == ["--pole"],
            "{flags:?} changed nothing"
        );
    }
    // `--pole` is in the stack: the report measures the ops, with the knees' pole errors.
    let root = common::root().join("fixtures");
    let stage = common::retarget_stage(
        &root.join("mixamo.glb"),
        &root.join("long_legs.glb"),
        &d.join("p.glb"),
        &["--pole", "--suffix", "_r"],
    );
    let poles = &stage["clips"][0]["measured"]["ops"]["poles"];
    assert!(poles.as_array().is_some_and(|p| !p.is_empty()), "{stage}");
}

#[test]
fn flags_join_a_stack_whose_mirror_stays_last_and_stride_sets_the_listed_op() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let settings = d.join("s.ron");
    std::fs::write(
        &settings,
        "(retarget: (ops: [Stride((forward: 2.0)), Mirror(())]))",
    )
    .unwrap();
    let s = settings.to_str().unwrap();
    let (a, b) = (d.join("a.glb"), d.join("b.glb"));
    // --pole goes before the listed Mirror; --stride sets the listed Stride's factors.
    let (code, err) = run(&a, &["--settings", s, "--pole", "--stride", "1.1,0.9"]);
    assert_eq!(code, Some(0), "{err}");
    let same = d.join("same.ron");
    std::fs::write(
        &same,
        "(retarget: (ops: [Stride((forward: 1.1, sideways: 0.9)), Pole(()), Mirror(())]))",
    )
    .unwrap();
    let (code, err) = run(&b, &["--settings", same.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(keys(&a), keys(&b));
}

#[test]
fn bad_op_flags_are_usage_errors_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.glb");
    for (flags, says) in [
        (vec!["--stride", "fast"], "--stride"),
        (vec!["--stride", "1.2,"], "--stride"),
        (vec!["--stride", "1,2,3"], "--stride"),
        (vec!["--stride", "inf"], "--stride"),
        (vec!["--treadmill", "fast"], "--treadmill"),
        (vec!["--treadmill", "1.2"], "--treadmill"),
        (vec!["--treadmill", "inf,0"], "--treadmill"),
        (vec!["--contacts", "FootLock_L"], "--contacts"),
        (vec!["--contacts", "FootLock_L,"], "--contacts"),
        (vec!["--contacts", "A,B,high"], "--contacts"),
        (vec!["--contacts", "A,B,0.5,1"], "--contacts"),
        (vec!["--pin", "Sword"], "--pin"),
        (vec!["--pin", "=RightHand"], "--pin"),
        (vec!["--pin", "Sword=:global"], "--pin"),
    ] {
        let (code, err) = run(&out, &flags);
        assert_eq!(code, Some(2), "{flags:?}: {err}");
        assert!(err.contains(says), "{flags:?}: {err}");
    }
    // A bone the target does not have is named, with the op.
    let (code, err) = run(&out, &["--pin", "Sword=RightHand"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("Sword") && err.contains("Pin"), "{err}");
    // Contacts from curves the clip does not have (a glTF clip has none): refused (3), naming
    // the curve and the clip, from the flag as from the settings.
    let settings = dir.path().join("c.ron");
    std::fs::write(
        &settings,
        r#"(retarget: (ops: [Plant((contacts: curves(left: "FootLock_L", right: "FootLock_R", threshold: 0.9)))]))"#,
    )
    .unwrap();
    for flags in [
        vec!["--contacts", "FootLock_L,FootLock_R,0.9"],
        vec!["--settings", settings.to_str().unwrap()],
    ] {
        let (code, err) = run(&out, &flags);
        assert_eq!(code, Some(3), "{flags:?}: {err}");
        assert!(
            err.contains("no curve `FootLock_L`")
                && err.contains("clip `walk`")
                && err.contains("none"),
            "{flags:?}: {err}"
        );
    }
    // A settings file with Mirror before another op is refused, naming the place.
    let settings = dir.path().join("s.ron");
    std::fs::write(&settings, "(retarget: (ops: [Mirror(()), Pole(())]))").unwrap();
    let (code, err) = run(&out, &["--settings", settings.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("ops[0]") && err.contains("mirror"), "{err}");
    assert!(!out.exists());
}
