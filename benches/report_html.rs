//! The HTML report of a 500-file batch (issue 17: under 10 MB, open in Chromium in under 2 s):
//! one real batch over the fixtures (and the shared assets, when present), its file entries
//! repeated under new names up to 506 files, rendered; prints the size and the time headless
//! Chromium takes to open it (median of 5, by `tests/tools/report_html.mjs`: navigation to
//! the page's script done, the load event, and the first frame drawn after it). Needs `node`
//! and `chromium`. Run with `cargo bench --bench report_html` (the figures hardly depend on
//! the build: `--profile dev` is enough).
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark run by hand: a panic aborts it, and it prints its timings"
)]

use skelnorm::batch::{self, Existing, Job, Naming};
use skelnorm::report::{render_html, Report};
use skelnorm::settings::{ResolveError, Resolved, Settings};
use std::path::Path;
use std::process::Command;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("library");
    std::fs::create_dir_all(&lib).unwrap();
    for entry in std::fs::read_dir(root.join("fixtures")).unwrap() {
        let p = entry.unwrap().path();
        if skelnorm::io::is_supported(&p) {
            std::fs::copy(&p, lib.join(p.file_name().unwrap())).unwrap();
        }
    }
    let assets = root.join("../shared/assets");
    if assets.is_dir() {
        for (_, f) in batch::find_files(&assets) {
            let rel = f.strip_prefix(&assets).unwrap();
            let to = lib.join("shared").join(rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&f, to).unwrap();
        }
    } else {
        println!("../shared/assets absent: fixtures only");
    }
    let resolve = |s: &Settings| -> Result<Resolved, ResolveError> { s.resolve() };
    let job = Job {
        files: batch::find_files(&lib),
        output: Some(tmp.path().join("out")),
        jobs: 2,
        existing: Existing::Overwrite,
        naming: Naming::default(),
        retarget_to: None,
        retarget_output: Default::default(),
        base: Settings::default(),
        resolve: &resolve,
        read: Default::default(),
        unsupported: Vec::new(),
        only: None,
    };
    let real = batch::run(&job, &|_| {}).unwrap();
    let mut report = Report {
        files: Vec::new(),
        ..real.clone()
    };
    for i in 0..506 {
        let mut f = real.files[i % real.files.len()].clone();
        f.input = format!("set{}/group {}/{i:03}_{}", i % 4, i % 5, f.input);
        report.files.push(f);
    }
    report.finish();
    let html = tmp.path().join("report.html");
    std::fs::write(&html, render_html(&report)).unwrap();
    let size = std::fs::metadata(&html).unwrap().len();
    println!(
        "{} files ({} real ones repeated): {:.2} MB of HTML, {:.1} kB per file",
        report.files.len(),
        real.files.len(),
        size as f64 / 1e6,
        size as f64 / 1e3 / report.files.len() as f64
    );
    let Some(chromium) = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok())
    else {
        println!("chromium missing: open time not measured");
        return;
    };
    let mut runs = Vec::new();
    for _ in 0..5 {
        let out = Command::new("node")
            .arg(root.join("tests/tools/report_html.mjs"))
            .arg(chromium)
            .arg(&html)
            .arg("{}")
            .output()
            .expect("node");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!("{e}: {}", String::from_utf8_lossy(&out.stdout));
        });
        assert_eq!(v["errors"], serde_json::json!([]), "{v}");
        let t = &v["timing"];
        runs.push([
            t["ready_ms"].as_f64().unwrap(),
            t["load_ms"].as_f64().unwrap(),
            t["painted_ms"].as_f64().unwrap(),
            v["open_ms"].as_f64().unwrap(),
        ]);
    }
    let median = |k: usize| {
        let mut v: Vec<f64> = runs.iter().map(|r| r[k]).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "open in headless Chromium (median of {}): script done {:.0} ms, load event {:.0} ms, \
         first frame after load {:.0} ms; navigate → ready seen by the driver {:.0} ms",
        runs.len(),
        median(0),
        median(1),
        median(2),
        median(3)
    );
}
