//! Issue 7 (batch): a generated library of over 500 files (fixtures copied under varied names
//! into nested folders, plus damaged files) run with 2 jobs: outputs, report, exit code, inputs
//! untouched, shards that split the library exactly, the merged report, and the HTML report
//! checked in headless Chromium.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use common::skelnorm;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Fixtures that normalize, and the damaged files: (relative path, bytes, what is wrong).
fn library(root: &Path) -> (BTreeSet<String>, BTreeMap<String, &'static str>) {
    let good = [
        "mixamo.glb",
        "blender.glb",
        "vrm0.vrm",
        "ue_zup.glb",
        "identity.gltf",
        "long_spine.glb",
        "long_legs.glb",
        "spine2.glb",
        "spine5.glb",
        "mixamo_meshopt.glb",
        "blender_draco.glb",
    ];
    let names = [
        "hero",
        "npc walk",
        "Élodie",
        "crowd-07",
        "boss_final",
        "a.b.c",
        "x",
    ];
    let mut ok = BTreeSet::new();
    let mut bad = BTreeMap::new();
    let write = |rel: &str, bytes: &[u8]| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    };
    let sources: Vec<Vec<u8>> = good
        .iter()
        .map(|f| std::fs::read(common::root().join("fixtures").join(f)).unwrap())
        .collect();
    for i in 0..500 {
        let k = i % good.len();
        let ext = Path::new(good[k])
            .extension()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let rel = format!(
            "set{}/group {}/{}/{}_{i:03}.{ext}",
            i % 4,
            i % 5,
            if i % 3 == 0 { "deep/er" } else { "flat" },
            names[i % names.len()]
        );
        write(&rel, &sources[k]);
        ok.insert(rel);
    }
    let mixamo = &sources[0];
    let damaged: [(&str, Vec<u8>, &'static str); 6] = [
        (
            "broken/cut.glb",
            mixamo[..mixamo.len() / 3].to_vec(),
            "truncated",
        ),
        (
            "broken/noise.glb",
            (0..4000u32).map(|i| (i * 7919 % 251) as u8).collect(),
            "not glTF",
        ),
        ("broken/empty.vrm", Vec::new(), "empty"),
        (
            "broken/bad json.gltf",
            b"{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [".to_vec(),
            "bad JSON",
        ),
        (
            "broken/deep/quadruped.glb",
            std::fs::read(common::root().join("fixtures/quadruped.glb")).unwrap(),
            "not a humanoid",
        ),
        (
            "broken/no_bin.gltf",
            br#"{"asset":{"version":"2.0"},"buffers":[{"uri":"missing.bin","byteLength":64}]}"#
                .to_vec(),
            "missing buffer",
        ),
    ];
    for (rel, bytes, why) in damaged {
        write(rel, &bytes);
        bad.insert(rel.to_string(), why);
    }
    (ok, bad)
}

/// A fingerprint of every file under `dir`.
fn report(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn a_library_of_500_files_in_parallel_and_in_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let (lib, out) = (tmp.path().join("library"), tmp.path().join("out"));
    let (good, bad) = library(&lib);
    let total = good.len() + bad.len();
    assert!(total >= 500);
    let before = common::file_bytes(&lib);
    let (json, html) = (tmp.path().join("r.json"), tmp.path().join("r.html"));
    let run = skelnorm(&[
        "batch",
        lib.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--jobs",
        "2",
        "--report",
        json.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(common::file_bytes(&lib), before, "inputs are never touched");
    let r = report(&json);
    assert_eq!(r["summary"]["files"], total);
    // The quadruped is refused (not a humanoid), the damaged files failed.
    let refused = bad.values().filter(|why| **why == "not a humanoid").count();
    assert_eq!(refused, 1);
    assert_eq!(r["summary"]["failed"], bad.len() - refused);
    assert_eq!(r["summary"]["refused"], refused);
    let files: BTreeMap<String, &serde_json::Value> = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["input"].as_str().unwrap().to_string(), f))
        .collect();
    for rel in &good {
        let f = files[rel];
        assert!(
            f["status"] == "ok" || f["status"] == "warnings",
            "{rel}: {f}"
        );
        let out_file = out.join(rel);
        assert_eq!(
            f["output"].as_str().map(PathBuf::from),
            Some(out_file.clone())
        );
        let doc = skelnorm::gltf_io::read(&out_file).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert!(!doc.model.skeletons.is_empty(), "{rel}");
        assert!(
            !f["pictures"].as_array().unwrap().is_empty(),
            "{rel}: no picture"
        );
    }
    for (rel, why) in &bad {
        let f = files[rel];
        let status = if *why == "not a humanoid" {
            "refused"
        } else {
            "failed"
        };
        assert_eq!(f["status"], status, "{rel}");
        let error = f["error"].as_str().unwrap();
        eprintln!("{rel} ({why}): {error}");
        assert!(error.len() > 10, "{rel}: {error}");
        assert!(
            !out.join(rel).exists(),
            "{rel}: no output for a failed file"
        );
        assert!(
            f.get("output").is_none(),
            "{rel}: no output named for a failed file"
        );
        if *why == "not a humanoid" {
            // Pictured anyway, with the required bones it lacks, so the report shows why.
            let missing = f["pictures"][0]["missing"].as_array().unwrap();
            assert!(missing.iter().any(|m| m == "LeftUpperArm"), "{rel}: {f}");
        }
    }
    // Every stderr line of a failure names its file.
    let err = String::from_utf8_lossy(&run.stderr);
    for rel in bad.keys() {
        assert!(err.contains(rel.as_str()), "{rel} missing from stderr");
    }
    // A sample of outputs passes the Khronos validator as well as its input did.
    for rel in good.iter().step_by(97) {
        if let (Some(a), Some(b)) = (
            common::validator_errors(&lib.join(rel)),
            common::validator_errors(&out.join(rel)),
        ) {
            assert!(b <= a, "{rel}: {b} validator errors (input {a})");
        }
    }
    // Running again with --existing skip leaves every output (the default, overwrite, replaces
    // them, as in every command: tests/exit_codes.rs).
    let again = skelnorm(&[
        "batch",
        lib.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
        "--existing",
        "skip",
        "--report",
        json.to_str().unwrap(),
    ]);
    assert_eq!(again.status.code(), Some(1), "the damaged files still fail");
    assert_eq!(report(&json)["summary"]["skipped"], good.len());

    // Shards 0/3, 1/3, 2/3 together process each file exactly once; the merged report is whole.
    let mut seen = BTreeMap::new();
    let mut shard_reports = Vec::new();
    for k in 0..3 {
        let (o, j) = (
            tmp.path().join(format!("shard{k}")),
            tmp.path().join(format!("shard{k}.json")),
        );
        let run = skelnorm(&[
            "batch",
            lib.to_str().unwrap(),
            "-o",
            o.to_str().unwrap(),
            "--jobs",
            "2",
            "-q",
            "--shard",
            &format!("{k}/3"),
            "--report",
            j.to_str().unwrap(),
        ]);
        assert!(matches!(run.status.code(), Some(0 | 1)));
        for f in report(&j)["files"].as_array().unwrap() {
            *seen
                .entry(f["input"].as_str().unwrap().to_string())
                .or_insert(0) += 1;
        }
        shard_reports.push(j);
    }
    assert_eq!(seen.len(), total, "every file in some shard");
    assert!(seen.values().all(|&n| n == 1), "no file in two shards");
    let merged = tmp.path().join("merged.json");
    let mut args = vec!["report", "merge"];
    args.extend(shard_reports.iter().map(|p| p.to_str().unwrap()));
    args.extend(["-o", merged.to_str().unwrap()]);
    assert!(skelnorm(&args).status.success());
    assert_eq!(report(&merged)["summary"]["files"], total);
    assert_eq!(report(&merged)["summary"]["failed"], bad.len() - refused);
    assert_eq!(report(&merged)["summary"]["refused"], refused);

    // Issue 17: the HTML report of 500 files stays small (previews within a budget per file;
    // benches/report_html.rs times opening it).
    let size = std::fs::metadata(&html).unwrap().len();
    eprintln!("HTML report of {total} files: {:.2} MB", size as f64 / 1e6);
    assert!(size < 10_000_000, "the HTML report is {size} bytes");
    // The HTML report in headless Chromium: the summary numbers, a section per file, pictures.
    if let Some(dom) = common::chromium_dom(&html) {
        assert!(
            dom.contains(&format!("id=\"n-files\">{total}<")),
            "summary files"
        );
        assert!(
            dom.contains(&format!("id=\"n-failed\">{}<", bad.len() - refused)),
            "summary failed"
        );
        assert!(
            dom.contains(&format!("id=\"n-refused\">{refused}<")),
            "summary refused"
        );
        assert_eq!(
            dom.matches("<section class=\"file").count(),
            total,
            "one section per file"
        );
        assert!(
            dom.matches("<svg").count() >= 4 * good.len(),
            "four pictures per good file"
        );
        assert!(dom.contains("id=\"filter\""), "the status filter");
    }
}

#[test]
fn usage_errors_and_folder_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    std::fs::create_dir_all(lib.join("sub")).unwrap();
    std::fs::copy(
        common::root().join("fixtures/mixamo.glb"),
        lib.join("a.glb"),
    )
    .unwrap();
    std::fs::copy(
        common::root().join("fixtures/mixamo.glb"),
        lib.join("sub/b.glb"),
    )
    .unwrap();
    // The output folder inside the input is refused.
    let run = skelnorm(&[
        "batch",
        lib.to_str().unwrap(),
        "-o",
        lib.join("out").to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("inside the input"));
    // Bad shard and replace rules.
    for bad in [["--shard", "3/3"], ["--replace", "nothing"]] {
        let run = skelnorm(&[
            "batch",
            lib.to_str().unwrap(),
            "-o",
            tmp.path().join("o").to_str().unwrap(),
            bad[0],
            bad[1],
        ]);
        assert_eq!(run.status.code(), Some(2), "{bad:?}");
    }
    // A folder's settings apply below it: sub/ keeps every translation track; name rules.
    std::fs::write(
        lib.join("sub/skelnorm.ron"),
        "(tracks: (unimportant_positions: false))",
    )
    .unwrap();
    let (out, json) = (tmp.path().join("o"), tmp.path().join("r.json"));
    let run = skelnorm(&[
        "batch",
        lib.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
        "--prefix",
        "n_",
        "--replace",
        "b=bee",
        "--report",
        json.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(out.join("n_a.glb").is_file() && out.join("sub/n_bee.glb").is_file());
    let r = report(&json);
    let removed = |i: usize| {
        r["files"][i]["normalize"]["skeletons"][0]["tracks"]["removed_tracks"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(r["files"][0]["input"], "a.glb");
    assert!(
        removed(0) > 0 && removed(1) == 0,
        "sub/ keeps its translation tracks"
    );
    // --settings applies where no folder file does; a folder's file wins, even one that only
    // restates the defaults.
    std::fs::write(lib.join("sub/skelnorm.ron"), "()").unwrap();
    let base = tmp.path().join("base.ron");
    std::fs::write(&base, "(tracks: (unimportant_positions: false))").unwrap();
    let run = skelnorm(&[
        "batch",
        lib.to_str().unwrap(),
        "-o",
        tmp.path().join("o3").to_str().unwrap(),
        "-q",
        "--settings",
        base.to_str().unwrap(),
        "--report",
        json.to_str().unwrap(),
    ]);
    assert!(run.status.success());
    let r = report(&json);
    let removed = |i: usize| {
        r["files"][i]["normalize"]["skeletons"][0]["tracks"]["removed_tracks"]
            .as_u64()
            .unwrap()
    };
    assert!(
        removed(0) == 0 && removed(1) > 0,
        "--settings for a.glb, sub/skelnorm.ron for sub/b.glb"
    );
    // A misspelt settings file stops the run before it starts, naming the file.
    std::fs::write(lib.join("sub/skelnorm.ron"), "(trakcs: ())").unwrap();
    let run = skelnorm(&[
        "batch",
        lib.to_str().unwrap(),
        "-o",
        tmp.path().join("o2").to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("skelnorm.ron:1:"));
    std::fs::remove_file(lib.join("sub/skelnorm.ron")).unwrap();
    // validate: exit 0 for good files, 1 with a one-line reason for a bad one.
    assert!(skelnorm(&["validate", lib.to_str().unwrap(), "-q"])
        .status
        .success());
    std::fs::write(lib.join("sub/bad.glb"), b"glTF").unwrap();
    let run = skelnorm(&["validate", lib.to_str().unwrap(), "-q"]);
    assert_eq!(run.status.code(), Some(1));
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(
        err.lines().filter(|l| l.contains("bad.glb")).count(),
        1,
        "{err}"
    );
    // validate writes nothing.
    assert!(!lib.join("out").exists());
}

/// The files under `dir`, relative, with `/` separators.
fn files_under(dir: &Path) -> BTreeSet<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap();
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy().to_string())
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect()
}

/// Issue 16: `batch --retarget-to` names each output after its input with the character's
/// container, since the output holds the character: `walk.vrma`, `run.bvh` and `c.vrm` onto a
/// `.glb` character write `.glb` files (never a `.vrma` or `.vrm` name on a file that is not
/// one), onto a `.vrm` character `.vrm` files, onto a `.gltf` character `.gltf` files with their
/// `.bin`. The name rules still apply to the stem, and two inputs that would share an output
/// fail rather than overwrite.
#[test]
fn retarget_to_names_outputs_by_the_characters_container() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = |f: &str| common::root().join("fixtures").join(f);
    let lib = tmp.path().join("lib");
    std::fs::create_dir_all(lib.join("sub")).unwrap();
    std::fs::copy(fixture("mixamo.glb"), lib.join("a.glb")).unwrap();
    std::fs::copy(fixture("vrm0.vrm"), lib.join("sub/c.vrm")).unwrap();
    let bvh = lib.join("sub/run.bvh");
    let made = skelnorm(&[
        "convert",
        fixture("mixamo.glb").to_str().unwrap(),
        bvh.to_str().unwrap(),
        "--clip",
        "walk",
    ]);
    assert!(made.status.success(), "{made:?}");
    let mut stems = vec!["a", "sub/c", "sub/run"];
    // A VRMA clip file when ../shared is there (a `skipped:` line otherwise).
    if let Some(vrma) = common::asset("vrm/test.vrma") {
        std::fs::copy(vrma, lib.join("walk.vrma")).unwrap();
        stems.push("walk");
    }
    let before = common::file_bytes(&lib);
    for (character, ext, suffix) in [
        ("long_legs.glb", "glb", "_hero"),
        ("vrm0.vrm", "vrm", ""),
        ("identity.gltf", "gltf", ""),
    ] {
        let out = tmp.path().join(format!("out_{ext}"));
        let json = tmp.path().join(format!("r_{ext}.json"));
        let run = skelnorm(&[
            "batch",
            lib.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "-q",
            "--retarget-to",
            fixture(character).to_str().unwrap(),
            "--suffix",
            suffix,
            "--report",
            json.to_str().unwrap(),
        ]);
        assert!(
            run.status.success(),
            "{character}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let mut want: BTreeSet<String> =
            stems.iter().map(|s| format!("{s}{suffix}.{ext}")).collect();
        if ext == "gltf" {
            want.extend(stems.iter().map(|s| format!("{s}{suffix}.bin")));
        }
        assert_eq!(files_under(&out), want, "onto {character}");
        let r = report(&json);
        let character_doc = skelnorm::gltf_io::read(&fixture(character)).unwrap();
        let meshes = |d: &skelnorm::gltf_io::Document| d.json()["meshes"].clone();
        for f in r["files"].as_array().unwrap() {
            let output = PathBuf::from(f["output"].as_str().unwrap());
            assert_eq!(
                output.extension().unwrap(),
                ext,
                "{character}: {}",
                f["input"]
            );
            // The output is the character with the input's clips added.
            let doc = skelnorm::gltf_io::read(&output).unwrap();
            assert_eq!(meshes(&doc), meshes(&character_doc), "{}", output.display());
            assert!(
                doc.model.clips.len() > character_doc.model.clips.len(),
                "{}: no clip added",
                output.display()
            );
        }
    }
    // Without --retarget-to the outputs keep their own container: a VRM stays a VRM, a BVH
    // becomes a GLB.
    let plain = tmp.path().join("plain");
    let run = skelnorm(&[
        "batch",
        lib.to_str().unwrap(),
        "-o",
        plain.to_str().unwrap(),
        "-q",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let files = files_under(&plain);
    assert!(
        files.contains("sub/c.vrm") && files.contains("sub/run.glb") && files.contains("a.glb"),
        "{files:?}"
    );
    assert_eq!(common::file_bytes(&lib), before, "inputs untouched");
    // `walk.vrm` beside `walk.glb`: onto a `.glb` character both would write `walk.glb`; the
    // second fails, naming the first, and nothing is overwritten.
    let clash = tmp.path().join("clash");
    std::fs::create_dir_all(&clash).unwrap();
    std::fs::copy(fixture("mixamo.glb"), clash.join("walk.glb")).unwrap();
    std::fs::copy(fixture("vrm0.vrm"), clash.join("walk.vrm")).unwrap();
    let (out, json) = (tmp.path().join("clash_out"), tmp.path().join("clash.json"));
    let run = skelnorm(&[
        "batch",
        clash.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
        "--retarget-to",
        fixture("long_legs.glb").to_str().unwrap(),
        "--report",
        json.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(1));
    let r = report(&json);
    let failed: Vec<&serde_json::Value> = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1, "{r}");
    assert_eq!(failed[0]["input"], "walk.vrm");
    assert!(
        failed[0]["error"]
            .as_str()
            .unwrap()
            .contains("also the output of walk.glb"),
        "{}",
        failed[0]["error"]
    );
    assert_eq!(files_under(&out), BTreeSet::from(["walk.glb".to_string()]));
}

/// Issue 16: `batch --retarget-to` writes what `retarget` writes: the character as it came plus
/// the new clips by default, the character normalized with `--normalized`, its skeleton and the
/// new clips only with `--animation-only`.
#[test]
fn retarget_to_writes_the_same_three_outputs_as_retarget() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = |f: &str| common::root().join("fixtures").join(f);
    let lib = tmp.path().join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::copy(fixture("mixamo.glb"), lib.join("walk.glb")).unwrap();
    let character = fixture("vrm0.vrm");
    let original = skelnorm::gltf_io::read(&character).unwrap();
    let names = |d: &skelnorm::gltf_io::Document| -> Vec<String> {
        d.model.skeletons[0]
            .bones
            .iter()
            .map(|b| b.name.clone())
            .collect()
    };
    for mode in [None, Some("--normalized"), Some("--animation-only")] {
        let out = tmp.path().join(format!("out{}", mode.unwrap_or("")));
        let mut args = vec![
            "batch",
            lib.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "-q",
            "--retarget-to",
            character.to_str().unwrap(),
        ];
        args.extend(mode);
        let run = skelnorm(&args);
        assert!(
            run.status.success(),
            "{mode:?}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        // An animation-only file holds no VRM character: it is a GLB.
        let name = if mode == Some("--animation-only") {
            "walk.glb"
        } else {
            "walk.vrm"
        };
        let doc = skelnorm::gltf_io::read(&out.join(name)).unwrap();
        let clips = doc.model.clips.len();
        let meshes = doc.json()["meshes"].as_array().map_or(0, Vec::len);
        match mode {
            None => {
                assert_eq!(names(&doc), names(&original), "the character's own names");
                assert_eq!(
                    doc.json()["nodes"].as_array().unwrap().len(),
                    original.json()["nodes"].as_array().unwrap().len()
                );
                assert_eq!(
                    clips,
                    original.model.clips.len() + 3,
                    "its clips and the new ones"
                );
            }
            Some("--normalized") => {
                assert!(
                    names(&doc).iter().any(|n| n == "LeftUpperArm"),
                    "profile names"
                );
                assert_eq!(clips, original.model.clips.len() + 3);
            }
            _ => {
                assert_eq!(names(&doc), names(&original));
                assert_eq!(meshes, 0, "no meshes");
                assert_eq!(clips, 3, "only the new clips");
            }
        }
    }
}
