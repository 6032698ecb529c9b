//! Issue 17 (the HTML report people can scan): the report of a batch over fixtures (and the
//! shared assets, when present) driven in headless Chromium by `tests/tools/report_html.mjs`:
//! cards in severity order, the warning-code filter (clicked, and from the URL hash), the
//! search with the status filter, previews that animate (two screenshots of a preview at
//! different times differ, the summary table beside it does not), no script errors and no
//! network requests; the file itself names no outside resource. Also a retarget batch: its
//! previews are the source beside the target, with the end-effector error charted.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use common::skelnorm;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;

/// `mixamo.glb` with a non-uniform scale on its left thigh: normalizes, with a
/// `non_uniform_scale` warning.
fn scaled_leg() -> Vec<u8> {
    let (mut doc, bin) =
        common::split_glb(&std::fs::read(common::root().join("fixtures/mixamo.glb")).unwrap());
    let node = doc["nodes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|n| n["name"] == "mixamorig:LeftUpLeg")
        .expect("mixamo.glb has a left thigh");
    node["scale"] = json!([1.0, 1.15, 1.0]);
    common::join_glb(&doc, &bin)
}

/// A library of fixtures under varied names, a file with a warning, failures, an unsupported
/// file, and the shared assets when present (said when absent).
fn library(root: &Path) {
    let write = |rel: &str, bytes: &[u8]| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    };
    let fixture = |name: &str| std::fs::read(common::root().join("fixtures").join(name)).unwrap();
    write("heroes/hero_walk.glb", &fixture("mixamo.glb"));
    write("heroes/Élodie.vrm", &fixture("vrm0.vrm"));
    write("crowd/npc_07.glb", &fixture("ue_zup.glb"));
    write("crowd/npc_scaled.glb", &scaled_leg());
    write("zoo/dog.glb", &fixture("quadruped.glb"));
    let mixamo = fixture("mixamo.glb");
    write("broken/cut.glb", &mixamo[..mixamo.len() / 3]);
    write("notes/model.obj", b"o cube\nv 0 0 0\n");
    // (`common::assets` says so itself when they are absent.)
    if common::assets().is_some() {
        for rel in [
            "khronos/CesiumMan.glb",
            "khronos/Fox.glb",
            "threejs/RobotExpressive.glb",
            "bvh/cmu_131_03_maxfriendly.bvh",
            "fbx/RiggedFigure_blender.fbx",
        ] {
            if let Some(p) = common::asset(rel) {
                write(&format!("shared/{rel}"), &std::fs::read(p).unwrap());
            }
        }
    }
}

fn severity(status: &str) -> u8 {
    match status {
        "failed" => 0,
        "refused" => 1,
        "warnings" => 2,
        "ok" => 3,
        _ => 4,
    }
}

/// The code of a warning (`no_tail: …`, or `{code, …}`).
fn code(w: &Value) -> &str {
    match w {
        Value::String(s) => s.split(':').next().unwrap().trim(),
        w => w["code"].as_str().unwrap(),
    }
}

/// Whether the search `q` finds a file: its paths, error and warnings (as the card shows them).
fn found(f: &Value, q: &str) -> bool {
    let mut text = vec![f["input"].as_str().unwrap_or("").to_string()];
    text.extend(f["output"].as_str().map(str::to_string));
    text.extend(f["error"].as_str().map(str::to_string));
    for w in f["warnings"].as_array().into_iter().flatten() {
        text.push(match w {
            Value::String(s) => s.clone(),
            w => format!("{} {}", w["code"], w["message"]),
        });
    }
    text.join("\n").to_lowercase().contains(&q.to_lowercase())
}

fn names(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("a list of cards: {v}"))
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn inputs<'a>(files: impl Iterator<Item = &'a Value>) -> BTreeSet<String> {
    files
        .map(|f| f["input"].as_str().unwrap().to_string())
        .collect()
}

/// The HTML names nothing outside itself: no URL, no `src`, every link within the page.
fn self_contained(html: &str) {
    for bad in [
        "http://", "https://", "src=", "<link", "@import", "url(", "<iframe",
    ] {
        assert!(!html.contains(bad), "the report contains `{bad}`");
    }
    for (i, _) in html.match_indices("href=\"") {
        let target = &html[i + 6..];
        assert!(
            target.starts_with('#'),
            "a link out of the page: {}",
            &target[..40.min(target.len())]
        );
    }
}

/// What every drive must show: no script error, no request but the report itself.
fn clean(seen: &Value, html: &Path) {
    assert_eq!(seen["errors"], json!([]), "script errors");
    assert_eq!(
        seen["page_errors"], "",
        "script errors recorded in the page"
    );
    let own = format!("file://{}", html.canonicalize().unwrap().display());
    for r in seen["requests"].as_array().unwrap() {
        let r = r.as_str().unwrap();
        assert!(r.starts_with(&own), "a request out of the page: {r}");
    }
}

/// The preview animates: two screenshots of its canvas differ, of the summary table do not.
fn animates(seen: &Value) {
    let p = &seen["preview"];
    assert!(p.is_object(), "a preview on screen: {seen}");
    assert_eq!(
        p["differ"], true,
        "the preview moves between screenshots: {p}"
    );
    assert_eq!(
        p["control_same"], true,
        "the rest of the page stands still: {p}"
    );
}

#[test]
fn the_report_of_a_batch_in_chromium() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    library(&lib);
    let (json, html) = (tmp.path().join("r.json"), tmp.path().join("r.html"));
    let run = skelnorm(&[
        "batch",
        lib.to_str().unwrap(),
        "-o",
        tmp.path().join("out").to_str().unwrap(),
        "-q",
        "--report",
        json.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert!(run.status.code().is_some_and(|c| c > 0), "some files fail");
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let files = report["files"].as_array().unwrap();
    let text = std::fs::read_to_string(&html).unwrap();
    self_contained(&text);
    let statuses: BTreeSet<&str> = files
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    for s in ["failed", "refused", "warnings", "ok", "skipped"] {
        assert!(statuses.contains(s), "a {s} file in the library");
    }
    // Every normalized file with clips has previews: two figures sampled alike, foot charts.
    let previewed: Vec<&Value> = files
        .iter()
        .filter(|f| f["previews"].as_array().is_some_and(|p| !p.is_empty()))
        .collect();
    assert!(previewed
        .iter()
        .any(|f| f["input"] == "heroes/hero_walk.glb"));
    for f in &previewed {
        for p in f["previews"].as_array().unwrap() {
            let frames = p["frames"].as_u64().unwrap() as usize;
            let labels: Vec<&str> = p["figures"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["label"].as_str().unwrap())
                .collect();
            assert_eq!(labels, ["input", "output"], "{}", f["input"]);
            let titles: Vec<&str> = p["charts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["title"].as_str().unwrap())
                .collect();
            assert_eq!(titles, ["foot height", "foot speed"]);
            for s in p["charts"][0]["series"].as_array().unwrap() {
                assert_eq!(s["values"].as_array().unwrap().len(), frames);
            }
        }
    }

    // The warning code to click: the scaled leg's.
    let with = |c: &str| {
        inputs(files.iter().filter(|f| {
            f["warnings"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|w| code(w) == c)
        }))
    };
    let code = "non_uniform_scale";
    assert!(
        with(code).contains("crowd/npc_scaled.glb"),
        "{code}: {:?}",
        with(code)
    );
    let (q, status) = ("npc", "warnings");
    let Some(seen) = common::chromium_drive(
        &html,
        &json!({"code": code, "q": q, "status": status, "preview_q": "hero_walk",
                "sort": ["time", "path", "warnings", "grown", "status"]}),
    ) else {
        return;
    };
    eprintln!("opened in {} ms: {}", seen["open_ms"], seen["timing"]);
    clean(&seen, &html);

    // Failed first, then warnings, then ok, then skipped; by path within each.
    let mut expected: Vec<(u8, String, String)> = files
        .iter()
        .map(|f| {
            let s = f["status"].as_str().unwrap();
            (
                severity(s),
                f["input"].as_str().unwrap().to_string(),
                s.to_string(),
            )
        })
        .collect();
    expected.sort();
    let order: Vec<(String, String)> = seen["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c[1].as_str().unwrap().to_string(),
                c[0].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = expected.into_iter().map(|(_, i, s)| (i, s)).collect();
    assert_eq!(order, expected, "cards in severity order");

    // Sorted by each column: a stable sort of the severity order by its key.
    let by_path: std::collections::HashMap<&str, &Value> = files
        .iter()
        .map(|f| (f["input"].as_str().unwrap(), f))
        .collect();
    let key = |by: &str, input: &str| -> i64 {
        let f = by_path[input];
        let n = |k: &str| f[k].as_f64().unwrap_or(0.0);
        match by {
            "time" => -((n("time_ms") * 1000.0).round() as i64),
            "warnings" => -(f["warnings"].as_array().map_or(0, Vec::len) as i64),
            "grown" if n("size_after") > 0.0 => -((n("size_after") - n("size_before")) as i64),
            _ => 0,
        }
    };
    let written: Vec<String> = expected.iter().map(|(i, _)| i.clone()).collect();
    for by in ["time", "path", "warnings", "grown", "status"] {
        let mut want = written.clone();
        match by {
            "path" => want.sort(),
            "status" => {}
            _ => want.sort_by_key(|i| key(by, i)),
        }
        let got: Vec<String> = seen["sorted"][by]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, want, "sorted by {by}");
    }
    assert_eq!(seen["sort_url"], "", "the written order leaves no hash");
    let mut slowest = written.clone();
    slowest.sort_by_key(|i| key("time", i));
    assert_eq!(seen["sort_hash"], json!(slowest), "#sort=time");

    // Clicking a code shows the files with it; clicking it again, all.
    let everything = inputs(files.iter());
    assert_eq!(names(&seen["code_click"]), with(code), "code {code}");
    assert_ne!(with(code), everything, "the code filters");
    assert_eq!(
        seen["code_hash"],
        format!("#code={code}"),
        "the filter is in the URL"
    );
    assert_eq!(names(&seen["code_unclick"]), everything);
    // The search, then the search with a status, then clear.
    let searched = inputs(files.iter().filter(|f| found(f, q)));
    assert!(
        !searched.is_empty() && searched != everything,
        "{searched:?}"
    );
    assert_eq!(names(&seen["search"]), searched, "search `{q}`");
    let narrowed = inputs(
        files
            .iter()
            .filter(|f| found(f, q) && f["status"] == status),
    );
    assert!(!narrowed.is_empty() && narrowed != searched, "{narrowed:?}");
    assert_eq!(
        names(&seen["status_search"]),
        narrowed,
        "search `{q}` among {status}"
    );
    assert_eq!(names(&seen["cleared"]), everything, "clear filters");
    // Opened with both in the hash: the files with the code that the search finds.
    let both = inputs(
        files
            .iter()
            .filter(|f| found(f, q) && with(code).contains(f["input"].as_str().unwrap())),
    );
    assert_eq!(names(&seen["hash"]), both, "#code={code}&q={q}");
    animates(&seen);
}

#[test]
fn a_retarget_batch_previews_source_beside_target() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("clips");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::copy(
        common::root().join("fixtures/mixamo.glb"),
        lib.join("walks.glb"),
    )
    .unwrap();
    // (A missing asset says so itself: `common::asset`.)
    if let Some(p) = common::asset("bvh/cmu_131_03_maxfriendly.bvh") {
        std::fs::copy(p, lib.join("cmu.bvh")).unwrap();
    }
    let (json, html) = (tmp.path().join("r.json"), tmp.path().join("r.html"));
    let character = common::root().join("fixtures/vrm0.vrm");
    let run = skelnorm(&[
        "batch",
        lib.to_str().unwrap(),
        "-o",
        tmp.path().join("out").to_str().unwrap(),
        "-q",
        "--retarget-to",
        character.to_str().unwrap(),
        "--report",
        json.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    for f in report["files"].as_array().unwrap() {
        let previews = f["previews"].as_array().expect("previews");
        assert!(!previews.is_empty(), "{}", f["input"]);
        for p in previews {
            let labels: Vec<&str> = p["figures"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["label"].as_str().unwrap())
                .collect();
            assert_eq!(labels, ["source", "target"]);
            let error = p["charts"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["title"] == "end-effector error")
                .expect("the end-effector error is charted");
            let bones: Vec<&str> = error["series"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["bone"].as_str().unwrap())
                .collect();
            assert_eq!(bones, ["LeftHand", "RightHand", "LeftFoot", "RightFoot"]);
            // The fixture's clips are made for every rig alike: the hands and feet land where
            // the source's do, at every frame charted (within 1% of the height).
            if f["input"] == "walks.glb" {
                let peak = error["series"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|s| s["values"].as_array().unwrap())
                    .map(|v| v.as_f64().unwrap())
                    .fold(0.0, f64::max);
                assert!(peak < 0.01, "{}: end-effector error {peak}", p["clip"]);
            }
        }
    }
    // Issue 42: each measured clip's directions per segment (math.md, on the written clip) are in
    // the page as the report gives them, with the segments not measured named.
    let text = std::fs::read_to_string(&html).unwrap();
    let mut rows = 0;
    for f in report["files"].as_array().unwrap() {
        for c in f["retarget"]["clips"].as_array().into_iter().flatten() {
            let m = &c["measured"];
            let Some(segs) = m["segments"].as_array() else {
                continue;
            };
            let worst = segs
                .iter()
                .max_by(|a, b| {
                    a["worst_deg"]
                        .as_f64()
                        .partial_cmp(&b["worst_deg"].as_f64())
                        .unwrap()
                })
                .unwrap();
            let mean = segs
                .iter()
                .map(|g| g["mean_deg"].as_f64().unwrap())
                .sum::<f64>()
                / segs.len() as f64;
            let cell = format!(
                "{} segments, mean {mean:.2}°, worst {:.2}° ({})",
                segs.len(),
                worst["worst_deg"].as_f64().unwrap(),
                worst["bone"].as_str().unwrap()
            );
            assert!(text.contains(&cell), "{cell}");
            for g in m["segments_not_measured"].as_array().unwrap() {
                let reason = g["reason"].as_str().unwrap().replace('_', " ");
                let named = format!("{} ({reason})", g["bone"].as_str().unwrap());
                assert!(text.contains(&named), "{named}");
            }
            rows += 1;
        }
    }
    assert!(rows > 0, "no measured clip in the report");
    self_contained(&text);
    if let Some(seen) = common::chromium_drive(&html, &json!({"preview_q": "walks"})) {
        clean(&seen, &html);
        animates(&seen);
    }
}
