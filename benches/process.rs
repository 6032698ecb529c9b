//! Whole-process speed and memory (issue 19): `skelnorm convert`, `inspect` and `normalize` as
//! the user runs them, beside a plain `cp` of the same file, on the largest shared assets and on
//! generated 3 MB and 30 MB GLBs with many clips (`common/many_clips.rs`); the peak memory of
//! `convert` and `normalize` (from `/usr/bin/time -f %M`, when present) against the bound of 3×
//! the input plus 15 MB; and `skelnorm retarget` of one clip against three.js loading the same
//! two files and running `SkeletonUtils.retargetClip` (`tests/tools/three_retarget.mjs`, when
//! Node and `.tools/node_modules/three` are present). Every time is the median of repeated
//! whole processes (the output written to a temporary folder on the same disk as the input).
//! Run with `cargo bench --bench process`; `-- --quick` runs fewer repeats; `-- --inputs DIR`
//! only writes the generated inputs into DIR (to time or profile them by hand).
//!
//! Before and after a change: with `SKELNORM_OLD_BIN=/path/to/old/skelnorm` set, it also runs
//! that binary and this one turn about (old, new, old, new, … so that a machine busy with other
//! work slows both alike) on the same inputs, each writing its own output file, and prints both
//! medians, their ratio and both peak memories, for `convert`, `inspect` and `normalize`.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark run by hand: a panic aborts it, and it prints its timings"
)]

mod common;
#[path = "common/many_clips.rs"]
mod many_clips;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_skelnorm");

/// The median wall time of running `cmd` to completion (its output discarded; it must succeed).
fn time(runs: usize, cmd: &mut dyn FnMut() -> Command) -> Duration {
    common::median(runs, Duration::from_millis(500), || {
        let t = Instant::now();
        let status = cmd()
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "{:?} failed", cmd());
        std::hint::black_box(t);
    })
}

/// The peak resident memory in bytes of running `cmd`, by `/usr/bin/time -f %M` (the median of
/// three runs), or `None` without it.
fn peak_memory(cmd: &[&std::ffi::OsStr]) -> Option<u64> {
    let gnu_time = Path::new("/usr/bin/time");
    if !gnu_time.is_file() {
        return None;
    }
    let mut peaks: Vec<u64> = (0..3)
        .filter_map(|_| {
            let out = Command::new(gnu_time)
                .args(["-f", "%M"])
                .args(cmd)
                .stdout(Stdio::null())
                .output()
                .ok()?;
            let text = String::from_utf8_lossy(&out.stderr);
            text.lines().last()?.trim().parse::<u64>().ok()
        })
        .collect();
    peaks.sort();
    peaks.get(peaks.len() / 2).map(|kb| kb * 1024)
}

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets");
    let mut v: Vec<PathBuf> = [
        "quaternius/ModularMen_Casual.glb",
        "khronos/CesiumMan.glb",
        "threejs/RobotExpressive.glb",
        "fbx/quaternius_Male_Casual.fbx",
    ]
    .iter()
    .map(|f| assets.join(f))
    .filter(|p| p.is_file())
    .collect();
    if v.is_empty() {
        eprintln!("note: ../shared/assets is absent; generated files only");
    }
    v.push(many_clips::write(dir, 3_000_000));
    v.push(many_clips::write(dir, 30_000_000));
    v
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let runs = if quick { 5 } else { 15 };
    // Inputs and outputs on the disk the repository is on (not a RAM disk).
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--inputs") {
        let dir = Path::new(&args[i + 1]);
        std::fs::create_dir_all(dir).unwrap();
        for size in [3_000_000, 30_000_000] {
            println!("{}", many_clips::write(dir, size).display());
        }
        return;
    }
    let work = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let (inp, out) = (work.path().join("in"), work.path().join("out"));
    std::fs::create_dir_all(&inp).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    println!(
        "{:28} {:>7} {:>7} {:>15} {:>15} {:>8} {:>9} {:>7} {:>11} {:>11}",
        "file (medians)",
        "MB",
        "cp ms",
        "convert ms MB/s",
        "inspect ms MB/s",
        "conv/cp",
        "normal ms",
        "n/conv",
        "peak conv",
        "peak norm"
    );
    for path in inputs(&inp) {
        let bytes = std::fs::metadata(&path).unwrap().len();
        let mb = bytes as f64 / 1e6;
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let glb = out.join("out.glb");
        let cp = time(runs, &mut || {
            let mut c = Command::new("cp");
            c.arg(&path).arg(out.join("copy"));
            c
        });
        let convert = time(runs, &mut || {
            let mut c = Command::new(EXE);
            c.arg("convert").arg(&path).arg(&glb);
            c
        });
        let inspect = time(runs, &mut || {
            let mut c = Command::new(EXE);
            c.arg("inspect").arg(&path);
            c
        });
        let normalize_args = |c: &mut Command| {
            c.arg("normalize").arg(&path).arg("-o").arg(&glb);
        };
        let humanoid = {
            let mut c = Command::new(EXE);
            normalize_args(&mut c);
            c.stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap()
                .success()
        };
        let normalize = humanoid.then(|| {
            time(runs, &mut || {
                let mut c = Command::new(EXE);
                normalize_args(&mut c);
                c
            })
        });
        let os = |s: &str| std::ffi::OsString::from(s);
        let conv_cmd = [
            os(EXE),
            os("convert"),
            path.clone().into(),
            glb.clone().into(),
        ];
        let norm_cmd = [
            os(EXE),
            os("normalize"),
            path.clone().into(),
            os("-o"),
            glb.clone().into(),
        ];
        let refs = |v: &[std::ffi::OsString]| -> Option<u64> {
            peak_memory(&v.iter().map(|s| s.as_os_str()).collect::<Vec<_>>())
        };
        let peak_conv = refs(&conv_cmd);
        let peak_norm = humanoid.then(|| refs(&norm_cmd)).flatten();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let bound = 3 * bytes + 15_000_000;
        let peak = |p: Option<u64>| {
            p.map_or("-".into(), |p| {
                format!(
                    "{:.1} MB{}",
                    p as f64 / 1e6,
                    if p <= bound { "" } else { "!" }
                )
            })
        };
        println!(
            "{:28} {:>7.2} {:>7.2} {:>7.2} {:>7.0} {:>7.2} {:>7.0} {:>7.2}× {:>9} {:>7} {:>11} {:>11}",
            name,
            mb,
            ms(cp),
            ms(convert),
            mb / convert.as_secs_f64(),
            ms(inspect),
            mb / inspect.as_secs_f64(),
            convert.as_secs_f64() / cp.as_secs_f64(),
            normalize.map_or("-".into(), |n| format!("{:.2}", ms(n))),
            normalize.map_or("-".into(), |n| format!(
                "{:.2}×",
                n.as_secs_f64() / convert.as_secs_f64()
            )),
            peak(peak_conv),
            peak(peak_norm),
        );
    }
    println!("(peak memory bound: 3 × the input + 15 MB; `!` marks a peak above it)");
    if let Some(old) = std::env::var_os("SKELNORM_OLD_BIN") {
        against_old(Path::new(&old), &inp, &out, runs);
    }
    retarget_against_three(&out, runs);
}

/// The medians of running `old` and `new` turn about, `runs` times each (both must succeed).
fn time_turn_about(runs: usize, old: &mut Command, new: &mut Command) -> (Duration, Duration) {
    let mut times = [Vec::new(), Vec::new()];
    for _ in 0..runs {
        for (cmd, t) in [&mut *old, &mut *new].into_iter().zip(&mut times) {
            let start = Instant::now();
            let status = cmd
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            t.push(start.elapsed());
            assert!(status.success(), "{cmd:?} failed");
        }
    }
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let [a, b] = times;
    (median(a), median(b))
}

/// `convert`, `inspect` and `normalize` of every input by the binary `old` and by this one, turn
/// about: medians, new/old, and peak memories.
fn against_old(old: &Path, inp: &Path, out: &Path, runs: usize) {
    println!(
        "\nturn about with {} (old) and this build (new), medians of {runs} runs each:",
        old.display()
    );
    println!(
        "{:28} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9}",
        "file", "command", "old ms", "new ms", "new/old", "old peak", "new peak"
    );
    let glb = out.join("out.glb");
    for path in inputs(inp) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let jobs: [(&str, Vec<std::ffi::OsString>); 3] = [
            (
                "convert",
                vec!["convert".into(), path.clone().into(), glb.clone().into()],
            ),
            ("inspect", vec!["inspect".into(), path.clone().into()]),
            (
                "normalize",
                vec![
                    "normalize".into(),
                    path.clone().into(),
                    "-o".into(),
                    glb.clone().into(),
                ],
            ),
        ];
        for (what, args) in jobs {
            // Each binary writes its own output: replacing a file the other one just wrote
            // would wait on the system writing that file (as replacing by rename makes ext4
            // do), which one binary's way of writing can cause and the other's then pay for.
            let own_args = |exe: &Path| -> Vec<std::ffi::OsString> {
                let own = out.join(if exe == old { "old.glb" } else { "new.glb" });
                args.iter()
                    .map(|a| {
                        if *a == glb.as_os_str() {
                            own.clone().into()
                        } else {
                            a.clone()
                        }
                    })
                    .collect()
            };
            let command = |exe: &Path| {
                let mut c = Command::new(exe);
                c.args(own_args(exe));
                c
            };
            let runs_ok = |exe: &Path| {
                command(exe)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .unwrap()
                    .success()
            };
            if !runs_ok(old) || !runs_ok(Path::new(EXE)) {
                continue; // normalize of a file that is no humanoid
            }
            let (a, b) = time_turn_about(runs, &mut command(old), &mut command(Path::new(EXE)));
            let peak = |exe: &Path| {
                let args = own_args(exe);
                let mut cmd = vec![exe.as_os_str()];
                cmd.extend(args.iter().map(|a| a.as_os_str()));
                peak_memory(&cmd).map_or("-".into(), |p| format!("{:.1} MB", p as f64 / 1e6))
            };
            println!(
                "{:28} {:>9} {:>9.2} {:>9.2} {:>6.2}× {:>9} {:>9}",
                name,
                what,
                a.as_secs_f64() * 1e3,
                b.as_secs_f64() * 1e3,
                b.as_secs_f64() / a.as_secs_f64(),
                peak(old),
                peak(Path::new(EXE)),
            );
        }
    }
}

/// Target bone name → source bone name for every profile bone both files map, by
/// `skelnorm map --json`.
fn bone_names(source: &Path, target: &Path) -> serde_json::Map<String, serde_json::Value> {
    let map = |f: &Path| -> serde_json::Value {
        let out = Command::new(EXE)
            .args(["map", "--json", "--allow-partial"])
            .arg(f)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["files"][0]["map"][0]["bones"].clone()
    };
    let (s, t) = (map(source), map(target));
    let mut names = serde_json::Map::new();
    for (id, bone) in t.as_object().into_iter().flatten() {
        if let (Some(tn), Some(sn)) = (bone["source"].as_str(), s[id]["source"].as_str()) {
            names.insert(tn.into(), sn.into());
        }
    }
    names
}

/// `skelnorm retarget` of one clip onto another character, whole, against three.js doing the
/// same (load both, `retargetClip`).
fn retarget_against_three(out: &Path, runs: usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let assets = root.join("../shared/assets");
    let (source, target, clip) = (
        assets.join("threejs/RobotExpressive.glb"),
        assets.join("quaternius/ModularMen_Casual.glb"),
        "Running",
    );
    if !source.is_file() || !target.is_file() {
        eprintln!("skipping retarget against three.js: the shared assets are absent");
        return;
    }
    let ours = time(runs, &mut || {
        let mut c = Command::new(EXE);
        c.arg("retarget")
            .arg("--source")
            .arg(&source)
            .arg("--target")
            .arg(&target)
            .args(["--clip", clip, "-o"])
            .arg(out.join("retargeted.glb"));
        c
    });
    print!(
        "retarget `{clip}` {} → {}: skelnorm {:.1} ms",
        source.file_name().unwrap().to_string_lossy(),
        target.file_name().unwrap().to_string_lossy(),
        ours.as_secs_f64() * 1e3
    );
    let tools = root.join(".tools");
    let node_ok = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !node_ok || !tools.join("node_modules/three").is_dir() {
        println!("; three.js: skipped (needs node and .tools/node_modules/three)");
        return;
    }
    // An ES module resolves `three` from its own folder: run a copy beside node_modules.
    let script = tools.join("three_retarget.mjs");
    std::fs::copy(root.join("tests/tools/three_retarget.mjs"), &script).unwrap();
    let names = out.join("names.json");
    let pairs = bone_names(&source, &target);
    assert!(
        !pairs.is_empty(),
        "`skelnorm map --json` gave no bone pairs"
    );
    std::fs::write(&names, serde_json::to_vec(&pairs).unwrap()).unwrap();
    let three = time(runs.min(7), &mut || {
        let mut c = Command::new("node");
        c.arg(&script)
            .arg(&source)
            .arg(&target)
            .arg(clip)
            .arg(&names);
        c
    });
    println!(
        ", three.js {:.1} ms ({} bone pairs): {:.1}× faster",
        three.as_secs_f64() * 1e3,
        pairs.len(),
        three.as_secs_f64() / ours.as_secs_f64()
    );
}
