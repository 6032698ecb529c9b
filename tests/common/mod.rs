//! Helpers shared by the integration tests: where fixtures and real assets are, running the
//! binary, and the outside validator when it is installed.
#![allow(
    dead_code,
    reason = "each test crate uses its own subset of these helpers"
)]

pub mod bounds;
pub mod counting;
pub mod fbx_curves;
pub mod legs;
pub mod ops;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every fixture file.
pub fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures"))
        .expect("fixtures/ exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| is_gltf(p))
        .collect();
    v.sort();
    v
}

pub fn is_gltf(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("gltf" | "glb" | "vrm" | "vrma")
    )
}

/// Whether `skelnorm` takes `p` as an input: the glTF family, FBX and BVH.
pub fn is_input(p: &Path) -> bool {
    is_gltf(p) || matches!(p.extension().and_then(|e| e.to_str()), Some("fbx" | "bvh"))
}

// Real assets (`../shared/assets`) are optional: a test that needs one that is missing skips
// that part and says so on the terminal (libtest cannot mark a test skipped at run time, so the
// test itself still shows `ok`):
// - `skipped: <file> (<why>) in <test>`: the test went on with what it has;
// - `SKIPPED: <test>: <file> (<why>)`: the test checked nothing.
// Under `SKELNORM_REQUIRE_ASSETS=1` a missing asset fails the test instead.

fn assets_dir() -> PathBuf {
    root().join("../shared/assets")
}

/// The running test's name (libtest names each test's thread after it).
fn test_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or("this test")
        .to_string()
}

/// Why the real asset `rel` cannot be read, or `None` when it is there.
fn missing(rel: &str) -> Option<&'static str> {
    if !assets_dir().is_dir() {
        Some("../shared/assets absent")
    } else if !assets_dir().join(rel).is_file() {
        Some("not found")
    } else {
        None
    }
}

/// Prints a skip line past libtest's output capture (which shows `eprintln!` output only for
/// failing tests), or fails under `SKELNORM_REQUIRE_ASSETS=1`.
fn report_skip(line: &str) {
    if std::env::var_os("SKELNORM_REQUIRE_ASSETS").is_some() {
        panic!("required asset missing: {line}");
    }
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The real glTF-family assets in `../shared/assets`, or `None` (with a skip line) when the folder
/// is absent.
pub fn assets() -> Option<Vec<PathBuf>> {
    assets_where(is_gltf)
}

/// Every real asset `skelnorm` takes as an input (glTF family, FBX, BVH), or `None` (with a skip
/// line) when the folder is absent.
pub fn input_assets() -> Option<Vec<PathBuf>> {
    assets_where(is_input)
}

fn assets_where(keep: fn(&Path) -> bool) -> Option<Vec<PathBuf>> {
    let dir = assets_dir();
    if !dir.is_dir() {
        report_skip(&format!(
            "skipped: real assets (../shared/assets absent) in {}",
            test_name()
        ));
        return None;
    }
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(&dir)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| keep(p))
        .collect();
    v.sort();
    Some(v)
}

/// One real asset a test checks beside others, or `None` with a `skipped:` line: the test goes
/// on without it.
pub fn asset(rel: &str) -> Option<PathBuf> {
    match missing(rel) {
        None => Some(assets_dir().join(rel)),
        Some(why) => {
            report_skip(&format!("skipped: {rel} ({why}) in {}", test_name()));
            None
        }
    }
}

/// Every real asset a test needs, or `None` with a `SKIPPED:` line per missing file when the
/// test can check nothing without them.
pub fn require<const N: usize>(rels: [&str; N]) -> Option<[PathBuf; N]> {
    let mut all = true;
    for rel in rels {
        if let Some(why) = missing(rel) {
            report_skip(&format!("SKIPPED: {}: {rel} ({why})", test_name()));
            all = false;
        }
    }
    all.then(|| rels.map(|rel| assets_dir().join(rel)))
}

/// The real assets of a test that checks each on its own: those present, a `skipped:` line for
/// each missing one, and a `SKIPPED:` line when none is present.
pub fn require_any(rels: &[&str]) -> Vec<PathBuf> {
    let present: Vec<PathBuf> = rels.iter().filter_map(|rel| asset(rel)).collect();
    if present.is_empty() && !rels.is_empty() {
        report_skip(&format!(
            "SKIPPED: {}: none of its {} real assets is present",
            test_name(),
            rels.len()
        ));
    }
    present
}

/// Fixtures plus real assets.
pub fn all_files() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(assets().unwrap_or_default());
    v
}

/// Every fixture and every real input file of any format skelnorm reads (glTF, VRM, VRMA, FBX,
/// BVH), the real ones when ../shared is there.
pub fn all_inputs() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(input_assets().unwrap_or_default());
    v
}

pub fn skelnorm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skelnorm"))
        .args(args)
        .output()
        .expect("run skelnorm")
}

/// Errors the Khronos validator finds in a file, or `None` (with a message) when it is not
/// installed (`npm install --prefix .tools gltf-validator`, as `.ci/run` does).
pub fn validator_errors(file: &Path) -> Option<u64> {
    let tools = std::env::var_os("SKELNORM_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(".tools"));
    let modules = tools.join("node_modules");
    let script = root().join("../shared/tools/validate.cjs");
    if !modules.join("gltf-validator").is_dir() || !script.is_file() {
        eprintln!(
            "skipping validator check: {} or {} missing",
            modules.display(),
            script.display()
        );
        return None;
    }
    let out = Command::new("node")
        .arg(&script)
        .arg(file)
        .env("NODE_PATH", &modules)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap_or_else(|_| {
        panic!(
            "validator gave no JSON for {}: {text} {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    v["errors"].as_u64()
}

/// The Khronos validator's messages counted per code, all severities (`UNUSED_OBJECT` is an
/// info), or `None` (with a message) when the validator is not installed.
pub fn validator_codes(file: &Path) -> Option<std::collections::BTreeMap<String, u64>> {
    let modules = tools_dir().join("node_modules");
    if !modules.join("gltf-validator").is_dir() {
        skip_tool("validator message counts: gltf-validator missing");
        return None;
    }
    let out = Command::new("node")
        .arg(root().join("tests/tools/issue_codes.cjs"))
        .arg(file)
        .env("NODE_PATH", &modules)
        .output()
        .expect("run node");
    let text = String::from_utf8_lossy(&out.stdout);
    Some(serde_json::from_str(text.trim()).unwrap_or_else(|_| {
        panic!(
            "issue_codes.cjs gave no JSON for {}: {text} {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    }))
}

/// Headless Chromium (Debian's `chromium`, installed by `.ci/run`), or `None` (with a message)
/// when it is not installed.
fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        skip_tool("HTML report in Chromium: chromium missing");
    }
    found
}

/// The DOM of an HTML file after its scripts ran, from headless Chromium, or `None` (with a
/// message) when Chromium is not installed.
pub fn chromium_dom(html: &Path) -> Option<String> {
    let chromium = chromium()?;
    let out = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("file://{}", html.canonicalize().unwrap().display()))
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Drives an HTML report in headless Chromium with `tests/tools/report_html.mjs` (Node, the
/// DevTools protocol on a pipe) as `plan` asks (a warning code to click, text to search, a
/// status to pick, a file whose preview to screenshot twice) and returns what it saw (see the
/// script), or `None` (with a message) when Chromium or Node is not installed.
pub fn chromium_drive(html: &Path, plan: &serde_json::Value) -> Option<serde_json::Value> {
    let chromium = chromium()?;
    if !Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        skip_tool("HTML report in Chromium: node missing");
        return None;
    }
    let out = Command::new("node")
        .arg(root().join("tests/tools/report_html.mjs"))
        .arg(chromium)
        .arg(html.canonicalize().unwrap())
        .arg(plan.to_string())
        .output()
        .expect("run node");
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "report_html.mjs: {e}: {text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(v.get("fatal").is_none(), "report_html.mjs: {v}");
    Some(v)
}

/// Skips a check that needs an outside tool, with a message; under `SKELNORM_REQUIRE_TOOLS=1`
/// (as `.ci/run` sets) a missing tool fails instead.
fn skip_tool(what: &str) {
    if std::env::var_os("SKELNORM_REQUIRE_TOOLS").is_some() {
        panic!("required tool missing: {what}");
    }
    say_once(&format!(
        "skipped: {what} (the outside checks of docs/development.md; .ci/run installs them)"
    ));
}

/// Writes `line` on stderr past libtest's capture (which takes only the print macros' output),
/// once per test binary: a plain `cargo test` shows which outside checks did not run, once each,
/// among the test results.
pub fn say_once(line: &str) {
    static SAID: std::sync::Mutex<std::collections::BTreeSet<String>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let first = SAID
        .lock()
        .map(|mut said| said.insert(line.to_string()))
        .unwrap_or(true);
    if first {
        use std::io::Write;
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
}

fn tools_dir() -> PathBuf {
    std::env::var_os("SKELNORM_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(".tools"))
}

/// three.js's largest difference between playing `input` and `output`, relative to the model's
/// size, or `None` (with a message) when three.js is not installed: where three.js places every
/// skinned vertex (`tests/tools/three_vertices.mjs`, clips played one after another as the shared
/// `../shared/tools/three_check.mjs` plays them). The shared check compares skinning matrices
/// (`J · IBM`), which an output whose vertices moved into a new bind (issue 40: `B · v` with
/// `IBM · B⁻¹`) changes by design while every vertex stays where it was.
pub fn three_check(input: &Path, output: &Path) -> Option<f64> {
    three_vertices(input, output, false)
}

/// The shared `../shared/tools/three_check.mjs` as it is: three.js's largest skinning-matrix
/// (`J · IBM`) difference between playing `input` and `output`, relative to the model's size,
/// with the whole-scene quarter turn it factored out (degrees); `None` (with a message) when
/// three.js is not installed. It holds for outputs whose binds were kept (`--keep-bind`).
pub fn shared_three_check(input: &Path, output: &Path) -> Option<(f64, f64)> {
    let script = root().join("../shared/tools/three_check.mjs");
    if !tools_dir().join("node_modules/three").is_dir() || !script.is_file() {
        skip_tool("three.js check: three or ../shared/tools/three_check.mjs missing");
        return None;
    }
    let v = run_module(&script, &[input, output]);
    Some((v["max_rel_error"].as_f64()?, v["scene_turn_deg"].as_f64()?))
}

/// Runs a Node ES module on `args` from a copy beside `.tools/node_modules` (so it resolves
/// `three`), and parses the one JSON line it prints.
fn run_module(script: &Path, args: &[&Path]) -> serde_json::Value {
    let local = tools_dir().join(script.file_name().unwrap());
    std::fs::copy(script, &local).expect("copy the check script beside node_modules");
    let out = Command::new("node")
        .arg(&local)
        .args(args)
        .output()
        .expect("run node");
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|_| {
        panic!(
            "{} gave no JSON for {}: {text} {}",
            script.display(),
            args.last()
                .map_or(String::new(), |p| p.display().to_string()),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// `tests/tools/three_vrm.mjs`: three-vrm 3.5.5's view of `input` and `output` (loaded as its
/// examples load a VRM), with each VRMA of `anims` played on both; its JSON line (the script's
/// header tells it), or `None` (with a message) when three-vrm is not installed. With `clip`,
/// `output` is a retarget of `anims` onto `input` (the script's `--clip`).
pub fn three_vrm(
    input: &Path,
    output: &Path,
    anims: &[&Path],
    clip: bool,
) -> Option<serde_json::Value> {
    let modules = tools_dir().join("node_modules/@pixiv");
    if !modules.join("three-vrm").is_dir() || !modules.join("three-vrm-animation").is_dir() {
        skip_tool("three-vrm check: @pixiv/three-vrm or @pixiv/three-vrm-animation missing");
        return None;
    }
    let mut args = vec![input, output];
    args.extend_from_slice(anims);
    if clip {
        args.push(Path::new("--clip"));
    }
    Some(run_module(&root().join("tests/tools/three_vrm.mjs"), &args))
}

/// Inputs the three.js checks cannot load in Node (no meshopt or Draco decoder is set, and Node
/// lacks `ProgressEvent` for data URIs).
pub fn three_skips(input: &Path) -> bool {
    let name = input.file_name().unwrap().to_string_lossy();
    name.contains("meshopt") || name.contains("draco") || name.ends_with(".gltf")
}

/// Every clip played on freshly loaded scenes (`tests/tools/three_vertices.mjs --per-clip`):
/// the largest distance of a skinned vertex three.js places from the input's, relative to the
/// model's size, twice (it is unit-free as it is; `tests/tools/three_per_clip.mjs` compared
/// skinning matrices raw and unit-free, which a new bind changes by design, see [`three_check`]),
/// or `None` when three.js is not installed.
pub fn three_per_clip(input: &Path, output: &Path) -> Option<(f64, f64)> {
    let e = three_vertices(input, output, true)?;
    Some((e, e))
}

/// `tests/tools/three_joints.mjs` on a jobs file (its header tells the JSON in and out): given
/// nodes' world positions at given times of given clips as three.js plays them, or `None` (with
/// a message) when three.js is not installed.
pub fn three_joints(jobs: &Path) -> Option<serde_json::Value> {
    if !tools_dir().join("node_modules/three").is_dir() {
        skip_tool("three.js joint positions: three missing");
        return None;
    }
    Some(run_module(
        &root().join("tests/tools/three_joints.mjs"),
        &[jobs],
    ))
}

/// `tests/tools/three_directions.mjs` on a job file (its header tells the JSON in and out): each
/// segment's direction error per frame between a source and a retarget's written output as
/// three.js plays them, or `None` (with a message) when three.js is not installed.
#[allow(dead_code, reason = "each test binary uses part of common")]
pub fn three_directions(job: &Path) -> Option<serde_json::Value> {
    if !tools_dir().join("node_modules/three").is_dir() {
        skip_tool("three.js directions: three missing");
        return None;
    }
    Some(run_module(
        &root().join("tests/tools/three_directions.mjs"),
        &[job],
    ))
}

/// Splits a GLB into JSON and BIN (test-side, independent of the library).
pub fn split_glb(glb: &[u8]) -> (serde_json::Value, Vec<u8>) {
    let jl = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&glb[20..20 + jl]).unwrap();
    let bl = u32::from_le_bytes(glb[20 + jl..24 + jl].try_into().unwrap()) as usize;
    (json, glb[28 + jl..28 + jl + bl].to_vec())
}

/// Joins JSON and BIN into a GLB, padding both to 4 bytes.
pub fn join_glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let mut j = serde_json::to_vec(json).unwrap();
    j.resize(j.len().next_multiple_of(4), b' ');
    let mut b = bin.to_vec();
    b.resize(b.len().next_multiple_of(4), 0);
    let total = 12 + 8 + j.len() + 8 + b.len();
    let mut out = b"glTF".to_vec();
    for n in [2u32, total as u32, j.len() as u32] {
        out.extend_from_slice(&n.to_le_bytes());
    }
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&b);
    out
}

// Blender as the reference importer: the `bpy` module (Blender 5.0.1) in the virtual environment
// `.tools/blender-venv`, as `.ci/run` installs it, and the scripts `tests/tools/blender_joints.py`
// and `tests/tools/blender_export.py`.

/// The Python of `.tools/blender-venv` when `import bpy` works there (checked once per test
/// binary), else `None` with a `skipped: Blender (bpy) not installed` line. Under
/// `SKELNORM_REQUIRE_TOOLS=1` a missing Blender fails instead, unless
/// `SKELNORM_BLENDER_OPTIONAL=1` (which `.ci/run` sets when the install failed).
pub fn blender() -> Option<PathBuf> {
    static FOUND: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    let python = root().join(".tools/blender-venv/bin/python");
    let found = FOUND.get_or_init(|| {
        let ok = python.is_file()
            && Command::new(&python)
                .args(["-c", "import bpy"])
                .output()
                .is_ok_and(|o| o.status.success());
        ok.then(|| python.clone())
    });
    if found.is_none() {
        let line = format!(
            "skipped: the Blender comparisons: Blender (bpy) not installed ({})",
            python.display(),
        );
        if std::env::var_os("SKELNORM_REQUIRE_TOOLS").is_some()
            && std::env::var_os("SKELNORM_BLENDER_OPTIONAL").is_none()
        {
            panic!("required tool missing: {line} in {}", test_name());
        }
        say_once(&line);
    }
    found.clone()
}

/// Blender's import of `input` (.fbx, .bvh, .glb, .gltf), every bone head's world position at
/// every frame of every action, from `tests/tools/blender_joints.py` (its docstring tells the
/// JSON, the Y-up metre coordinates and the time convention), or `None` when Blender is missing.
pub fn blender_joints(input: &Path) -> Option<serde_json::Value> {
    let python = blender()?;
    let dir = tempfile::tempdir().expect("temporary folder");
    let json = dir.path().join("joints.json");
    let out = Command::new(python)
        .arg(root().join("tests/tools/blender_joints.py"))
        .arg(input)
        .arg(&json)
        .output()
        .expect("run blender_joints.py");
    assert!(
        out.status.success(),
        "blender_joints.py failed on {}: {}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&json).expect("blender_joints.py wrote its JSON");
    Some(serde_json::from_str(&text).expect("blender_joints.py JSON"))
}

/// Blender's import of every file of a jobs file, in one process, with the glTF importer's
/// defaults, from `tests/tools/blender_outputs.py` (its docstring tells the JSON in and out):
/// import errors, armatures and bones, actions and frame ranges, and given nodes' positions at
/// given times; or `None` when Blender is missing.
pub fn blender_outputs(jobs: &Path) -> Option<serde_json::Value> {
    let python = blender()?;
    let json = jobs.with_extension("blender.json");
    let out = Command::new(python)
        .arg(root().join("tests/tools/blender_outputs.py"))
        .arg(jobs)
        .arg(&json)
        .output()
        .expect("run blender_outputs.py");
    assert!(
        out.status.success(),
        "blender_outputs.py failed on {}: {}",
        jobs.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&json).expect("blender_outputs.py wrote its JSON");
    Some(serde_json::from_str(&text).expect("blender_outputs.py JSON"))
}

/// Blender's export of the glTF `input` to `output` (.fbx: every action a take; .bvh: the action
/// `clip`, or the first), from `tests/tools/blender_export.py`, or `None` when Blender is missing.
pub fn blender_export(input: &Path, output: &Path, clip: Option<&str>) -> Option<()> {
    let python = blender()?;
    let mut cmd = Command::new(python);
    cmd.arg(root().join("tests/tools/blender_export.py"))
        .arg(input)
        .arg(output);
    if let Some(clip) = clip {
        cmd.args(["--clip", clip]);
    }
    let out = cmd.output().expect("run blender_export.py");
    assert!(
        out.status.success() && output.is_file(),
        "blender_export.py failed on {}: {}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(())
}

/// A copy of the glTF/GLB/VRM file `input` in `dir` whose whole scene is turned by the unit
/// quaternion `turn` (x, y, z, w): one new node with that rotation holds every scene's roots.
/// The reference a turned output must play like (glTF ignores skinned meshes' node transforms,
/// so their joints carry the turn). Made on the JSON alone, independently of skelnorm's writer.
pub fn turned_copy(input: &Path, turn: [f32; 4], dir: &Path) -> PathBuf {
    let bytes = std::fs::read(input).expect("the input reads");
    let glb = bytes.starts_with(b"glTF");
    let (mut json, bin) = if glb {
        split_glb(&bytes)
    } else {
        let json: serde_json::Value = serde_json::from_slice(&bytes).expect("glTF JSON");
        let external = json["buffers"]
            .as_array()
            .into_iter()
            .chain(json["images"].as_array())
            .flatten()
            .any(|b| b["uri"].as_str().is_some_and(|u| !u.starts_with("data:")));
        assert!(
            !external,
            "turned_copy: {} has external files",
            input.display()
        );
        (json, Vec::new())
    };
    let nodes = json["nodes"].as_array_mut().expect("nodes");
    let turn_node = nodes.len();
    nodes.push(serde_json::json!({ "name": "turned_copy", "rotation": turn }));
    let mut roots = Vec::new();
    for scene in json["scenes"].as_array_mut().expect("scenes") {
        let list = scene["nodes"].take();
        roots.extend(list.as_array().into_iter().flatten().cloned());
        scene["nodes"] = serde_json::json!([turn_node]);
    }
    // A node that is a root of several scenes is one child of the turn.
    let mut seen = std::collections::HashSet::new();
    roots.retain(|r| seen.insert(r.to_string()));
    json["nodes"][turn_node]["children"] = serde_json::Value::Array(roots);
    let name = input.file_name().expect("a file name");
    let out = dir.join(format!("turned_{}", name.to_string_lossy()));
    let bytes = if glb {
        join_glb(&json, &bin)
    } else {
        serde_json::to_vec(&json).expect("JSON")
    };
    std::fs::write(&out, bytes).expect("the copy writes");
    out
}

/// Every file below `dir`, by path relative to it, with its bytes.
pub fn file_bytes(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).expect("below dir").to_path_buf();
            (rel, std::fs::read(e.path()).expect("a file reads"))
        })
        .collect()
}

/// A command's `--json` report (one file, `skelnorm/2`) seen from one stage: the stage's part
/// (`inspect`, `map`, `normalize`, `retarget`, `convert`) with the file's own fields beside it
/// (`file` for the input, `output`, `target`, sizes, warnings); `map`'s list as `skeletons`.
#[allow(dead_code, reason = "each test binary uses part of common")]
pub fn file_stage(report: &serde_json::Value, stage: &str) -> serde_json::Value {
    assert_eq!(
        report["schema"], "skelnorm/2",
        "a skelnorm/2 report: {report}"
    );
    let file = &report["files"][0];
    let mut out = match &file[stage] {
        serde_json::Value::Array(a) => serde_json::json!({ "skeletons": a }),
        serde_json::Value::Object(o) => serde_json::Value::Object(o.clone()),
        other => {
            let text = report.to_string();
            panic!(
                "the report has no `{stage}` part ({other}): {}",
                &text[..text.len().min(600)]
            )
        }
    };
    let o = out.as_object_mut().unwrap();
    o.insert("file".into(), file["input"].clone());
    for key in ["output", "target", "size_before", "size_after", "warnings"] {
        if let Some(v) = file.get(key) {
            o.entry(key).or_insert(v.clone());
        }
    }
    out
}

/// A file normalized in memory, with the map of its first skeleton (the retarget tests' rigs).
pub struct Normalized {
    pub model: skelnorm::model::Model,
    pub map: skelnorm::mapping::BoneMap,
}

/// Reads `path`, normalizes it with the defaults and maps its first skeleton.
pub fn normalized(path: &Path) -> Normalized {
    use skelnorm::mapping::{map_skeleton, MapOptions};
    use skelnorm::pipeline::{normalize, NormalizeOptions};
    let profile = skelnorm::profile::Profile::humanoid();
    let mut doc = skelnorm::gltf_io::read(path).unwrap();
    normalize(&mut doc.model, profile, &NormalizeOptions::default()).unwrap();
    let map = map_skeleton(&doc.model.skeletons[0], profile, &MapOptions::default());
    Normalized {
        model: doc.model,
        map,
    }
}

/// The first skeleton of `n` as a retarget side on the humanoid profile.
pub fn rig(n: &Normalized) -> skelnorm::retarget::Rig<'_> {
    skelnorm::retarget::Rig {
        skeleton: &n.model.skeletons[0],
        map: &n.map,
        profile: skelnorm::profile::Profile::humanoid(),
    }
}

/// `skelnorm retarget --source SOURCE --target TARGET -o OUT --json EXTRA…`, which must succeed: the
/// retarget stage of its report ([`file_stage`]).
pub fn retarget_stage(
    source: &Path,
    target: &Path,
    out: &Path,
    extra: &[&str],
) -> serde_json::Value {
    let mut args = vec![
        "retarget",
        "--source",
        source.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    let run = skelnorm(&args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    file_stage(&r, "retarget")
}

/// Every edit bone's head after Blender's import of each file of a jobs file (`{"files":
/// [path, ...]}`) with the glTF importer's defaults, in one process, from
/// `tests/tools/blender_binds.py` (its docstring tells the JSON); or `None` when Blender is
/// missing.
pub fn blender_binds(jobs: &Path) -> Option<serde_json::Value> {
    let python = blender()?;
    let json = jobs.with_extension("binds.json");
    let out = Command::new(python)
        .arg(root().join("tests/tools/blender_binds.py"))
        .arg(jobs)
        .arg(&json)
        .output()
        .expect("run blender_binds.py");
    assert!(
        out.status.success(),
        "blender_binds.py failed on {}: {}",
        jobs.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&json).expect("blender_binds.py wrote its JSON");
    Some(serde_json::from_str(&text).expect("blender_binds.py JSON"))
}

/// The glTF rest of each file of a jobs file as three.js shows it (mesh bounds, bone positions),
/// from `tests/tools/three_rest.mjs`; or `None` (with a message) when three.js is not installed.
pub fn three_rest(jobs: &Path) -> Option<serde_json::Value> {
    if !tools_dir().join("node_modules/three").is_dir() {
        skip_tool("three.js rest: three missing");
        return None;
    }
    Some(run_module(
        &root().join("tests/tools/three_rest.mjs"),
        &[jobs],
    ))
}

/// `tests/tools/three_vertices.mjs`: the largest distance between the skinned vertices of
/// `input` and `output` as three.js places them, without animation and over every clip (each on
/// fresh scenes with `per_clip`), relative to the input's size, with a whole-scene quarter turn
/// factored out; or `None` (with a message) when three.js is not installed.
pub fn three_vertices(input: &Path, output: &Path, per_clip: bool) -> Option<f64> {
    if !tools_dir().join("node_modules/three").is_dir() {
        skip_tool("three.js vertex check: three missing");
        return None;
    }
    let script = root().join("tests/tools/three_vertices.mjs");
    let flag = Path::new("--per-clip");
    let args: Vec<&Path> = match per_clip {
        true => vec![input, output, flag],
        false => vec![input, output],
    };
    let v = run_module(&script, &args);
    v["max_rel_error"].as_f64()
}

/// Undoes in `output` (a file as read back) the move of its skins' vertices into a new bind that
/// writing `written` (the model written, its skins' `bake` set) made: each inverse bind matrix
/// written as `IBM · B⁻¹` becomes `IBM` again (within an f32 rounding), so the skinning matrices
/// compare with the input's as the model's did.
pub fn unbake(written: &skelnorm::model::Model, output: &mut skelnorm::model::Model) {
    for (w, o) in written.skeletons.iter().zip(&mut output.skeletons) {
        for (ws, os) in w.skins.iter().zip(&mut o.skins) {
            if ws.bake.len() != os.inverse_bind_matrices.len() {
                continue;
            }
            for (ibm, b) in os.inverse_bind_matrices.iter_mut().zip(&ws.bake) {
                *ibm = (ibm.as_dmat4() * b.as_dmat4()).as_mat4();
            }
        }
    }
}

/// The worst of a report's `segments` (a clip's `measured.segments`): its `worst_deg` and bone,
/// (0, "") when there is none.
pub fn worst_segment(segments: &[serde_json::Value]) -> (f64, &str) {
    segments
        .iter()
        .map(|g| {
            (
                g["worst_deg"].as_f64().unwrap(),
                g["bone"].as_str().unwrap(),
            )
        })
        .fold((0.0, ""), |a, b| if b.0 > a.0 { b } else { a })
}
