//! Issue 17: one exit-code table for every command, row by row and command by command (0 done,
//! 1 a file could not be read or written, 2 usage, 3 not a humanoid / refused, 4 nothing to do);
//! output paths (missing folders are made, messages name the user's path, never a temporary
//! file); and the one re-run policy (`--existing overwrite|skip|error`, overwrite by default).
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

fn fixture(name: &str) -> String {
    common::root()
        .join("fixtures")
        .join(name)
        .display()
        .to_string()
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// Runs skelnorm and checks its exit code, showing stderr when it is not `code`.
fn expect<S: AsRef<str>>(code: i32, args: &[S]) -> Output {
    let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
    let out = common::skelnorm(&args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "skelnorm {}\nstderr: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Owned arguments.
fn v(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A folder holding one file `name` with `bytes`.
fn folder_with(dir: &Path, sub: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let d = dir.join(sub);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join(name), bytes).unwrap();
    d
}

/// A batch report (as `batch --report` writes it) of the fixture `mixamo.glb`.
fn a_report(dir: &Path) -> PathBuf {
    let input = dir.join("report_in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(fixture("mixamo.glb"), input.join("m.glb")).unwrap();
    let report = dir.join("report.json");
    let (i, o, r) = (s(&input), s(&dir.join("report_out")), s(&report));
    expect(0, &["batch", &i, "-o", &o, "-q", "--report", &r]);
    report
}

/// `identity.gltf` without its clips (its buffer is a data URI, so the copy stands alone).
fn clipless(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(fixture("identity.gltf")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json.as_object_mut().unwrap().remove("animations");
    let path = dir.join("clipless.gltf");
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    path
}

#[test]
fn help_shows_the_table() {
    let out = expect(0, &["--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    for row in [
        "0  done",
        "1  a file could not be read or written",
        "2  usage",
        "3  not a humanoid",
        "4  nothing to do",
        "--existing overwrite|skip|error",
    ] {
        assert!(help.contains(row), "--help lacks `{row}`:\n{help}");
    }
    // The README has the same rows.
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    for row in [
        "| 0 | done",
        "| 1 | a file could not be read or written",
        "| 2 | usage",
        "| 3 | not a humanoid",
        "| 4 | nothing to do",
    ] {
        assert!(readme.contains(row), "README lacks `{row}`");
    }
}

/// Every help text that says which files a command reads names all six formats.
#[test]
fn help_texts_name_every_format_read() {
    for args in [
        vec!["--help"],
        vec!["normalize", "--help"],
        vec!["batch", "--help"],
        vec!["validate", "--help"],
        vec!["inspect", "--help"],
    ] {
        let out = expect(0, &args);
        let text = String::from_utf8_lossy(&out.stdout).to_lowercase();
        for format in ["gltf", "glb", "vrm", "vrma", "fbx", "bvh"] {
            assert!(
                text.contains(format),
                "{args:?} does not name {format}:\n{text}"
            );
        }
    }
}

#[test]
fn row_1_a_missing_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = |n: &str| s(&dir.path().join(n));
    let missing = s(&dir.path().join("no/such.glb"));
    let (mx, o_glb) = (fixture("mixamo.glb"), out("o.glb"));
    let cases: Vec<Vec<String>> = vec![
        v(&["inspect", &missing]),
        v(&["map", &missing]),
        v(&["normalize", &missing, "-o", &o_glb]),
        v(&[
            "retarget", "--source", &missing, "--target", &mx, "-o", &o_glb,
        ]),
        v(&[
            "retarget", "--source", &mx, "--target", &missing, "-o", &o_glb,
        ]),
        v(&["convert", &missing, &o_glb]),
        v(&["mirror", &missing, "-o", &o_glb]),
        v(&["validate", &missing]),
        v(&["batch", &missing, "-o", &out("b")]),
        v(&["report", "merge", &missing, "-o", &out("m.json")]),
    ];
    for args in cases {
        let o = expect(1, &args);
        assert!(stderr(&o).contains(&missing), "{}: {}", args[0], stderr(&o));
    }
}

#[test]
fn row_1_a_corrupt_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = |n: &str| s(&dir.path().join(n));
    let folder = folder_with(dir.path(), "bad", "bad.glb", b"glTF\x02\0\0\0garbage");
    let bad = s(&folder.join("bad.glb"));
    let bad_report = folder_with(dir.path(), "rep", "bad.json", b"{\"not\": \"a report\"}");
    let bad_report = s(&bad_report.join("bad.json"));
    let (mx, o_glb) = (fixture("mixamo.glb"), out("o.glb"));
    let cases: Vec<Vec<String>> = vec![
        v(&["inspect", &bad]),
        v(&["map", &bad]),
        v(&["normalize", &bad, "-o", &o_glb]),
        v(&["retarget", "--source", &bad, "--target", &mx, "-o", &o_glb]),
        v(&["convert", &bad, &o_glb]),
        v(&["report", "merge", &bad_report, "-o", &out("m.json")]),
    ];
    for args in cases {
        let o = expect(1, &args);
        assert!(stderr(&o).contains("bad"), "{}: {}", args[0], stderr(&o));
    }
    // batch and validate go on, and the exit code remembers.
    expect(1, &["validate", "-q", &s(&folder)]);
    expect(1, &["batch", "-q", &s(&folder), "-o", &out("b")]);
}

#[test]
fn row_1_an_output_that_cannot_be_written() {
    // `/proc` takes no new files, even for root: the write fails, and the message names the
    // user's path, never the temporary file.
    if !Path::new("/proc/self").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let report = s(&a_report(dir.path()));
    let mx = fixture("mixamo.glb");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            v(&["normalize", &mx, "-o", "/proc/skelnorm-o.glb"]),
            "/proc/skelnorm-o.glb",
        ),
        (
            v(&["normalize", &mx, "-o", "/proc/skelnorm-o.gltf"]),
            "/proc/skelnorm-o.gltf",
        ),
        (
            v(&["convert", &mx, "/proc/skelnorm-o.glb"]),
            "/proc/skelnorm-o.glb",
        ),
        (
            v(&["convert", &mx, "/proc/skelnorm-o.bvh", "--clip", "walk"]),
            "/proc/skelnorm-o.bvh",
        ),
        (
            v(&["mirror", &mx, "-o", "/proc/skelnorm-o.glb"]),
            "/proc/skelnorm-o.glb",
        ),
        (
            v(&["map", &mx, "-o", "/proc/skelnorm-o.ron"]),
            "/proc/skelnorm-o.ron",
        ),
        (
            v(&[
                "retarget",
                "--source",
                &mx,
                "--target",
                &fixture("spine2.glb"),
                "--suffix",
                "_r",
                "-o",
                "/proc/skelnorm-o.glb",
            ]),
            "/proc/skelnorm-o.glb",
        ),
        (
            v(&["report", "merge", &report, "-o", "/proc/skelnorm-m.json"]),
            "/proc/skelnorm-m.json",
        ),
    ];
    for (args, path) in cases {
        let o = expect(1, &args);
        let err = stderr(&o);
        assert!(err.contains(path), "{}: {err}", args[0]);
        assert!(
            !err.contains(".skelnorm-"),
            "{}: names a temporary file: {err}",
            args[0]
        );
        assert!(
            !err.contains(".tmp"),
            "{}: names a temporary file: {err}",
            args[0]
        );
    }
}

#[test]
fn row_2_a_bad_flag_value() {
    let dir = tempfile::tempdir().unwrap();
    let out = |n: &str| s(&dir.path().join(n));
    let report = s(&a_report(dir.path()));
    let (mx, o_glb) = (fixture("mixamo.glb"), out("o.glb"));
    let fixtures = s(&common::root().join("fixtures"));
    let cases: Vec<Vec<String>> = vec![
        v(&["frobnicate"]),
        v(&["inspect", "--bvh-scale", "-1", &mx]),
        v(&["map", &mx, "--skeleton", "7"]),
        v(&["map", &mx, "-o", &out("m.ron"), "--existing", "sometimes"]),
        v(&["normalize", &mx, "-o", &o_glb, "--skeleton", "7"]),
        v(&["normalize", &mx, "-o", &out("o.obj")]),
        v(&["normalize", &mx, "-o", &o_glb, "--existing", "sometimes"]),
        v(&[
            "retarget", "--source", &mx, "--target", &mx, "-o", &o_glb, "--fps", "0",
        ]),
        v(&[
            "retarget", "--source", &mx, "--target", &mx, "-o", &o_glb, "--clip", "nope",
        ]),
        v(&[
            "retarget",
            "--source",
            &mx,
            "--target",
            &mx,
            "-o",
            &o_glb,
            "--existing",
            "x",
        ]),
        v(&["convert", &mx, &out("o.bvh"), "--clip", "nope"]),
        v(&["convert", &mx, &mx]),
        v(&["convert", &mx, &o_glb, "--existing", "sometimes"]),
        v(&["convert", &mx]),
        v(&["convert", &mx, &o_glb, "-o", &out("p.glb")]),
        v(&["convert", &mx, "-o", &mx]),
        v(&["mirror", &mx, "-o", &o_glb, "--clip", "nope"]),
        v(&["mirror", &mx, "-o", &mx]),
        v(&["mirror", &mx, "-o", &o_glb, "--axis", "w"]),
        v(&["batch", &fixtures, "-o", &out("b"), "--jobs", "0"]),
        v(&[
            "batch",
            &fixtures,
            "-o",
            &out("b"),
            "--existing",
            "sometimes",
        ]),
        v(&["validate", &fixtures, "--jobs", "0"]),
        v(&[
            "report",
            "merge",
            &report,
            "-o",
            &out("m.json"),
            "--existing",
            "x",
        ]),
        v(&["config"]),
        v(&["config", "--dump-defaults", "--frobnicate"]),
    ];
    for args in cases {
        expect(2, &args);
    }
}

#[test]
fn convert_takes_its_output_as_an_argument_or_with_dash_o() {
    let dir = tempfile::tempdir().unwrap();
    let mx = fixture("mixamo.glb");
    let (a, b) = (dir.path().join("a.glb"), dir.path().join("b.glb"));
    expect(0, &["convert", &mx, &s(&a)]);
    expect(0, &["convert", &mx, "-o", &s(&b)]);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let bvh = dir.path().join("c.bvh");
    expect(0, &["convert", &mx, "--output", &s(&bvh), "--clip", "walk"]);
    assert!(std::fs::metadata(&bvh).unwrap().len() > 0);
}

#[test]
fn row_3_not_a_humanoid() {
    let dir = tempfile::tempdir().unwrap();
    let out = |n: &str| s(&dir.path().join(n));
    let (q, mx, o_glb) = (
        fixture("quadruped.glb"),
        fixture("mixamo.glb"),
        out("o.glb"),
    );
    let folder = dir.path().join("q");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(&q, folder.join("quadruped.glb")).unwrap();
    let cases: Vec<Vec<String>> = vec![
        v(&["map", &q]),
        v(&["normalize", &q, "-o", &o_glb]),
        v(&["retarget", "--source", &q, "--target", &mx, "-o", &o_glb]),
        v(&["retarget", "--source", &mx, "--target", &q, "-o", &o_glb]),
        v(&["validate", "-q", &s(&folder)]),
        v(&["batch", "-q", &s(&folder), "-o", &out("b")]),
    ];
    for args in cases {
        let o = expect(3, &args);
        assert!(
            stderr(&o).contains("quadruped.glb"),
            "{}: {}",
            args[0],
            stderr(&o)
        );
    }
    assert!(
        !Path::new(&o_glb).exists(),
        "a refused input wrote an output"
    );
    // Where the row does not apply, the quadruped is fine.
    expect(0, &["inspect", &q]);
    expect(0, &["convert", &q, &out("q.glb")]);
    expect(0, &["map", &q, "--allow-partial"]);
}

/// A file with no skeleton at all is refused (3) with a reason, and no hint that
/// `--allow-partial` would help (it would not).
#[test]
fn row_3_a_file_with_no_skeleton_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let lamp = dir.path().join("lamp.gltf");
    std::fs::write(
        &lamp,
        r#"{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"name":"lamp"}]}"#,
    )
    .unwrap();
    let (lamp, mx, o) = (
        s(&lamp),
        fixture("mixamo.glb"),
        s(&dir.path().join("o.glb")),
    );
    for args in [
        v(&["normalize", &lamp, "-o", &o]),
        v(&["normalize", &lamp, "-o", &o, "--allow-partial"]),
        v(&["retarget", "--source", &lamp, "--target", &mx, "-o", &o]),
    ] {
        let err = stderr(&expect(3, &args));
        assert!(
            err.contains("lamp.gltf: has no skeleton to normalize")
                && !err.contains("--allow-partial"),
            "{args:?}: {err}"
        );
    }
}

/// A VRMA whose hips rest on the floor (height 0), its feet below it (a clip-only rig, issue 43),
/// retargets as the same clip standing would: the rest is stood on its feet, and the report
/// says so (`source_stood`). (Before issue 43 it was refused with exit 3.)
#[test]
fn a_vrma_with_its_hips_on_the_floor_retargets_as_standing() {
    let Some(vrma) = common::asset("vrm/test.vrma") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (mut json, bin) = common::split_glb(&std::fs::read(&vrma).unwrap());
    let hips = json["extensions"]["VRMC_vrm_animation"]["humanoid"]["humanBones"]["hips"]["node"]
        .as_u64()
        .unwrap() as usize;
    json["nodes"][hips]["translation"] = serde_json::json!([0.0, 0.0, 0.0]);
    let floored = dir.path().join("floored.vrma");
    std::fs::write(&floored, common::join_glb(&json, &bin)).unwrap();
    let run = |src: &Path, out: &str| {
        let out = s(&dir.path().join(out));
        let o = expect(
            0,
            &[
                "retarget",
                "--source",
                &s(src),
                "--target",
                &fixture("mixamo.glb"),
                "-o",
                &out,
                "--json",
            ],
        );
        let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        (skelnorm::gltf_io::read(Path::new(&out)).unwrap(), report)
    };
    let (stood, report) = run(&floored, "floored.glb");
    let (standing, plain) = run(&vrma, "standing.glb");
    let codes = |r: &serde_json::Value| r["files"][0]["warnings"].to_string();
    assert!(
        codes(&report).contains("source_stood"),
        "{}",
        codes(&report)
    );
    assert!(!codes(&plain).contains("source_stood"), "{}", codes(&plain));
    // Every joint of the new clip where the standing source puts it.
    let (a, b) = (&stood.model, &standing.model);
    let clip = |m: &skelnorm::model::Model| {
        m.clips
            .iter()
            .find(|c| c.name == "animation0")
            .unwrap()
            .clone()
    };
    let (ca, cb) = (clip(a), clip(b));
    let k = &a.skeletons[0];
    let height = k.height();
    let mut worst = 0.0f32;
    for i in 0..=20 {
        let t = ca.duration() * i as f32 / 20.0;
        let wa = skelnorm::model::Pose::sample(k, &ca, t).world(k);
        let wb = skelnorm::model::Pose::sample(&b.skeletons[0], &cb, t).world(&b.skeletons[0]);
        for (x, y) in wa.iter().zip(&wb) {
            worst = worst.max(x.w_axis.truncate().distance(y.w_axis.truncate()) / height);
        }
    }
    eprintln!("floored test.vrma against test.vrma, retargeted: {worst:.2e} of the height");
    assert!(worst < 1e-4, "{worst}");
}

#[test]
fn row_3_comes_after_row_1_in_a_run() {
    // A run with a corrupt file and a quadruped: the lowest non-zero code wins.
    let dir = tempfile::tempdir().unwrap();
    let folder = folder_with(dir.path(), "mixed", "bad.glb", b"not a glb");
    std::fs::copy(fixture("quadruped.glb"), folder.join("q.glb")).unwrap();
    expect(1, &["validate", "-q", &s(&folder)]);
    let out = s(&dir.path().join("b"));
    expect(1, &["batch", "-q", &s(&folder), "-o", &out]);
}

#[test]
fn row_4_nothing_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let folder = folder_with(dir.path(), "empty", "chair.obj", b"o chair\n");
    std::fs::write(folder.join("scene.dae"), b"<COLLADA/>").unwrap();
    for args in [
        v(&["validate", "-q", &s(&folder)]),
        v(&["batch", "-q", &s(&folder), "-o", &s(&dir.path().join("b"))]),
    ] {
        let o = expect(4, &args);
        let err = stderr(&o);
        assert!(
            err.contains(&format!(
                "no glTF, GLB, VRM, VRMA, FBX or BVH files under {} (2 other files skipped)",
                folder.display()
            )),
            "{err}"
        );
        assert!(
            err.contains("2 files: 0 ok, 0 with warnings, 0 refused, 0 failed, 2 skipped"),
            "{err}"
        );
    }
    assert!(
        !dir.path().join("b").exists(),
        "nothing to do made the output folder"
    );
    // The report still lists the unsupported files as skipped.
    let report = dir.path().join("r.json");
    expect(4, &["validate", "-q", &s(&folder), "--report", &s(&report)]);
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["summary"]["skipped"], 2);
    // No clip to retarget or to write.
    let clipless = s(&clipless(dir.path()));
    let mx = fixture("mixamo.glb");
    let o_glb = s(&dir.path().join("o.glb"));
    expect(
        4,
        &[
            "retarget", "--source", &clipless, "--target", &mx, "-o", &o_glb,
        ],
    );
    expect(4, &["convert", &clipless, &s(&dir.path().join("o.bvh"))]);
    expect(4, &["mirror", &clipless, "-o", &o_glb]);
}

#[test]
fn missing_output_folders_are_made() {
    let dir = tempfile::tempdir().unwrap();
    let deep = |n: &str| s(&dir.path().join("a/b").join(n));
    let mx = fixture("mixamo.glb");
    let report = s(&a_report(dir.path()));
    expect(
        0,
        &[
            "normalize",
            &mx,
            "-o",
            &deep("n.glb"),
            "--report",
            &deep("n.json"),
        ],
    );
    expect(0, &["normalize", &mx, "-o", &deep("n.gltf")]);
    expect(0, &["convert", &mx, &deep("c.glb")]);
    expect(0, &["convert", &mx, &deep("c.bvh"), "--clip", "walk"]);
    expect(0, &["map", &mx, "-o", &deep("m.ron")]);
    let sp = fixture("spine2.glb");
    expect(
        0,
        &[
            "retarget",
            "--source",
            &mx,
            "--target",
            &sp,
            "--suffix",
            "_r",
            "-o",
            &deep("r.glb"),
        ],
    );
    expect(
        0,
        &[
            "report",
            "merge",
            &report,
            "-o",
            &deep("m.json"),
            "--html",
            &deep("m.html"),
        ],
    );
    for n in [
        "n.glb", "n.json", "n.gltf", "n.bin", "c.glb", "c.bvh", "m.ron", "r.glb", "m.json",
        "m.html",
    ] {
        assert!(dir.path().join("a/b").join(n).is_file(), "{n} not written");
    }
}

#[test]
fn re_runs_overwrite_by_default_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let out = |n: &str| dir.path().join(n);
    let mx = fixture("mixamo.glb");
    let sp = fixture("spine2.glb");
    let report = s(&a_report(dir.path()));
    let input = dir.path().join("report_in");
    let commands: Vec<(Vec<String>, PathBuf)> = vec![
        (
            vec![
                "normalize".into(),
                mx.clone(),
                "-o".into(),
                s(&out("n.glb")),
            ],
            out("n.glb"),
        ),
        (
            vec!["convert".into(), mx.clone(), s(&out("c.glb"))],
            out("c.glb"),
        ),
        (
            vec!["map".into(), mx.clone(), "-o".into(), s(&out("m.ron"))],
            out("m.ron"),
        ),
        (
            vec![
                "retarget",
                "--source",
                &mx,
                "--target",
                &sp,
                "--suffix",
                "_r",
                "-o",
                &s(&out("r.glb")),
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            out("r.glb"),
        ),
        (
            vec![
                "report".into(),
                "merge".into(),
                report,
                "-o".into(),
                s(&out("m.json")),
            ],
            out("m.json"),
        ),
        (
            vec![
                "batch".into(),
                "-q".into(),
                s(&input),
                "-o".into(),
                s(&out("b")),
            ],
            out("b/m.glb"),
        ),
    ];
    for (args, written) in commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let with = |flag: &[&str]| -> Vec<String> {
            args.iter().chain(flag).map(|a| a.to_string()).collect()
        };
        // Default: written again over a placeholder.
        std::fs::create_dir_all(written.parent().unwrap()).unwrap();
        std::fs::write(&written, b"placeholder").unwrap();
        expect(0, &args);
        assert_ne!(
            std::fs::read(&written).unwrap(),
            b"placeholder",
            "{}",
            args[0]
        );
        // skip: left as it is, said, exit 0.
        std::fs::write(&written, b"placeholder").unwrap();
        let o = expect(0, &with(&["--existing", "skip"]));
        assert_eq!(
            std::fs::read(&written).unwrap(),
            b"placeholder",
            "{}",
            args[0]
        );
        if args[0] != "batch" {
            assert!(
                stderr(&o).contains("--existing skip"),
                "{}: {}",
                args[0],
                stderr(&o)
            );
        }
        // error: refused with exit 1, naming the output.
        let o = expect(1, &with(&["--existing", "error"]));
        assert_eq!(
            std::fs::read(&written).unwrap(),
            b"placeholder",
            "{}",
            args[0]
        );
        let name = written.file_name().unwrap().to_string_lossy().into_owned();
        assert!(stderr(&o).contains(&name), "{}: {}", args[0], stderr(&o));
        // overwrite, said explicitly.
        expect(0, &with(&["--existing", "overwrite"]));
        assert_ne!(
            std::fs::read(&written).unwrap(),
            b"placeholder",
            "{}",
            args[0]
        );
    }
}

#[test]
fn every_writing_command_documents_the_same_default() {
    for cmd in [
        vec!["normalize"],
        vec!["retarget"],
        vec!["convert"],
        vec!["batch"],
        vec!["map"],
        vec!["report", "merge"],
    ] {
        let args = [&cmd[..], &["--help"]].concat();
        let help = String::from_utf8_lossy(&expect(0, &args).stdout).into_owned();
        assert!(help.contains("--existing <WHAT>"), "{cmd:?}: {help}");
        assert!(help.contains("[default: overwrite]"), "{cmd:?}: {help}");
    }
}

#[test]
fn messages_suggest_plural_and_say_no_clips() {
    let dir = tempfile::tempdir().unwrap();
    // A settings typo: named, with a suggestion, and spaced.
    let settings = dir.path().join("s.ron");
    std::fs::write(&settings, "(rest: (flaten_feet: true))").unwrap();
    let mx = fixture("mixamo.glb");
    let o = s(&dir.path().join("o.glb"));
    let run = expect(
        2,
        &["normalize", &mx, "-o", &o, "--settings", &s(&settings)],
    );
    let err = stderr(&run);
    assert!(
        err.contains("unknown field `flaten_feet` in `RestOptions`: did you mean `flatten_feet`?"),
        "{err}"
    );
    assert!(!err.contains("`in"), "{err}");
    // A file without clips: no zero counts.
    let clipless = s(&clipless(dir.path()));
    let run = expect(0, &["normalize", &clipless, "-o", &o]);
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(
        text.contains("skin: no clips to compare (rest pose only)"),
        "{text}"
    );
    assert!(
        !text.contains(" 0 frames") && !text.contains(" 0 clips"),
        "{text}"
    );
    // One file: singular, and the time with one decimal.
    let folder = dir.path().join("one");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(&mx, folder.join("m.glb")).unwrap();
    let run = expect(0, &["validate", "-q", &s(&folder)]);
    let err = stderr(&run);
    let line = err.lines().last().unwrap_or_default();
    assert!(
        line.starts_with("1 file: 1 ok, 0 with warnings, 0 refused, 0 failed, 0 skipped in "),
        "{err}"
    );
    let secs = line.rsplit(" in ").next().unwrap().trim_end_matches(" s");
    assert_eq!(secs.split('.').nth(1).map(str::len), Some(1), "{line}");
}

/// gltf-json also reads a skin or an animation written as a JSON array (its fields in order),
/// which writing cannot edit: `normalize` and `mirror` refuse such a file with exit 1 and a
/// message naming the file and the item, and write nothing (they used to panic).
#[test]
fn row_1_a_skin_or_animation_written_as_an_array() {
    let dir = tempfile::tempdir().unwrap();
    let glb = std::fs::read(fixture("blender.glb")).unwrap();
    let (json, bin) = common::split_glb(&glb);
    let as_array = |item: &serde_json::Value, fields: &[&str]| -> serde_json::Value {
        fields
            .iter()
            .map(|f| item.get(*f).cloned().unwrap_or(serde_json::Value::Null))
            .collect()
    };
    let mut skin = json.clone();
    skin["skins"][0] = as_array(
        &json["skins"][0],
        &[
            "extensions",
            "extras",
            "inverseBindMatrices",
            "joints",
            "name",
            "skeleton",
        ],
    );
    let mut anim = json.clone();
    anim["animations"][0] = as_array(
        &json["animations"][0],
        &["extensions", "extras", "channels", "name", "samplers"],
    );
    for (name, doc, what, commands) in [
        ("skin.glb", skin, "skin 0", &["normalize"][..]),
        (
            "anim.glb",
            anim,
            "animation 0",
            &["normalize", "mirror"][..],
        ),
    ] {
        let input = dir.path().join(name);
        std::fs::write(&input, common::join_glb(&doc, &bin)).unwrap();
        // Read as it was: it converts.
        expect(0, &["convert", &s(&input), &s(&dir.path().join("c.glb"))]);
        for command in commands {
            let out = dir.path().join(format!("{command}_{name}"));
            let o = expect(1, &[*command, &s(&input), "-o", &s(&out)]);
            let message = stderr(&o);
            assert!(
                message.contains(name) && message.contains(&format!("{what} is not a JSON object")),
                "{command} {name}: {message}"
            );
            assert!(!out.exists(), "{command} {name} wrote {}", out.display());
        }
    }
}
