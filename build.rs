//! Turns the built-in profile, `profiles/humanoid.ron` (its one source), into JSON for the
//! library to embed: the same `ProfileFile`, which serde_json parses several times faster than
//! RON parses its text (issue 19: loading the built-in profile was a tenth of normalizing a
//! small file). A file that does not parse stops the build with RON's error.

#[allow(
    dead_code,
    reason = "the build script reads only the types, not their helpers"
)]
#[path = "src/profile/spec.rs"]
mod spec;

fn main() {
    const RON: &str = "profiles/humanoid.ron";
    println!("cargo:rerun-if-changed={RON}");
    println!("cargo:rerun-if-changed=src/profile/spec.rs");
    let text = std::fs::read_to_string(RON).unwrap_or_else(|e| panic!("{RON}: {e}"));
    let file: spec::ProfileFile =
        ron::from_str(&text).unwrap_or_else(|e| panic!("{RON}: not a valid profile: {e}"));
    let json = serde_json::to_string(&file).unwrap_or_else(|e| panic!("{RON}: {e}"));
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("humanoid.json"), json).unwrap_or_else(|e| panic!("{e}"));
}
