//! Damaged and hostile files (issue 2): each kind of damage gives exit 1 and a clear error that
//! names the file and the problem, never a panic and never an output file.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

use common::{join_glb as join, split_glb as split};

fn base() -> Vec<u8> {
    std::fs::read(common::root().join("fixtures/mixamo.glb")).unwrap()
}

fn with_json(f: impl FnOnce(&mut Value)) -> Vec<u8> {
    let (mut j, b) = split(&base());
    f(&mut j);
    join(&j, &b)
}

fn with_bin(f: impl FnOnce(&Value, &mut Vec<u8>)) -> Vec<u8> {
    let (j, mut b) = split(&base());
    f(&j, &mut b);
    join(&j, &b)
}

/// Byte offset of accessor `a`'s data in the BIN chunk.
fn accessor_offset(j: &Value, a: usize) -> usize {
    let acc = &j["accessors"][a];
    let view = &j["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    (view["byteOffset"].as_u64().unwrap_or(0) + acc["byteOffset"].as_u64().unwrap_or(0)) as usize
}

fn corpus() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let good = base();
    let mut v: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", vec![], "empty"),
        (
            "random bytes",
            (0..999u32)
                .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
                .collect(),
            "not a glTF",
        ),
        (
            "truncated glb",
            good[..good.len() / 2].to_vec(),
            "truncated",
        ),
        ("truncated header", good[..10].to_vec(), "truncated header"),
        (
            "wrong magic",
            [b"glTX".as_slice(), &good[4..]].concat(),
            "not a glTF",
        ),
        (
            "glb version 1",
            {
                let mut g = good.clone();
                g[4] = 1;
                g
            },
            "version 1",
        ),
        (
            "header length too small",
            {
                let mut g = good.clone();
                g[8..12].copy_from_slice(&8u32.to_le_bytes());
                g
            },
            "too small",
        ),
        (
            "chunk past the end",
            {
                let mut g = good.clone();
                g[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
                g
            },
            "past the end",
        ),
        (
            "bad json",
            {
                let mut g = good.clone();
                g[20] = b'[';
                g[21] = b'}';
                g
            },
            "invalid JSON",
        ),
        (
            "json not an object",
            join(&json!([1, 2]), &[]),
            "not a JSON object",
        ),
        (
            "no asset version",
            with_json(|j| {
                j["asset"] = json!({});
            }),
            "asset.version",
        ),
        (
            "glTF 1.0",
            with_json(|j| {
                j["asset"]["version"] = "1.0".into();
            }),
            "only 2.x",
        ),
        (
            "child out of range",
            with_json(|j| {
                j["nodes"][1]["children"] = json!([9999]);
            }),
            "index out of range",
        ),
        (
            "node cycle",
            with_json(|j| {
                j["nodes"][0]["children"] = json!([]);
                j["nodes"][5]["children"] = json!([1]);
            }),
            "cycle",
        ),
        (
            "node with two parents",
            with_json(|j| {
                j["nodes"][0]["children"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!(3));
            }),
            "two parents",
        ),
        (
            "node is its own child",
            with_json(|j| {
                j["nodes"][2]["children"] = json!([2]);
            }),
            "its own child",
        ),
        (
            "infinite translation",
            with_json(|j| {
                j["nodes"][2]["translation"] = json!([1e39, 0, 0]);
            }),
            "not finite",
        ),
        (
            "non-unit rotation",
            with_json(|j| {
                j["nodes"][2]["rotation"] = json!([0, 0, 0, 5]);
            }),
            "unit quaternion",
        ),
        (
            "skin joint out of range",
            with_json(|j| {
                j["skins"][0]["joints"][0] = json!(100000);
            }),
            "index out of range",
        ),
        (
            "accessor past its view",
            with_json(|j| {
                j["accessors"][0]["count"] = json!(100000);
            }),
            "read past the end of buffer view",
        ),
        (
            "absurd count",
            with_json(|j| {
                let a = j["skins"][0]["inverseBindMatrices"].as_u64().unwrap() as usize;
                j["accessors"][a]["count"] = json!(4000000000u64);
            }),
            "4000000000 elements",
        ),
        (
            "view past its buffer",
            with_json(|j| {
                j["bufferViews"][0]["byteLength"] = json!(99999999);
            }),
            "reads past the end of buffer 0",
        ),
        (
            "buffer longer than data",
            with_json(|j| {
                j["buffers"][0]["byteLength"] = json!(99999999);
            }),
            "bytes are there",
        ),
        (
            "missing buffer file",
            with_json(|j| {
                j["buffers"][0]["uri"] = "missing.bin".into();
            }),
            "cannot open",
        ),
        (
            "uri leaves the folder",
            with_json(|j| {
                j["buffers"][0]["uri"] = "../../etc/passwd".into();
            }),
            "leaves the document's folder",
        ),
        (
            "absolute uri",
            with_json(|j| {
                j["buffers"][0]["uri"] = "/etc/passwd".into();
            }),
            "refused URI",
        ),
        (
            "network uri",
            with_json(|j| {
                j["buffers"][0]["uri"] = "https://example.com/x.bin".into();
            }),
            "no schemes",
        ),
        (
            "image uri leaves the folder",
            with_json(|j| {
                j["images"] = json!([{ "uri": "../secret.png" }]);
            }),
            "leaves the document's folder",
        ),
        (
            "sampler output count",
            with_json(|j| {
                let s = &j["animations"][0]["samplers"][0];
                let (i, o) = (
                    s["input"].as_u64().unwrap() as usize,
                    s["output"].as_u64().unwrap() as usize,
                );
                let n = j["accessors"][i]["count"].as_u64().unwrap();
                j["accessors"][o]["count"] = json!(n - 1);
            }),
            "output values for",
        ),
        (
            "unknown interpolation",
            with_json(|j| {
                j["animations"][0]["samplers"][0]["interpolation"] = "SMOOTH".into();
            }),
            "invalid value",
        ),
        (
            "decreasing key times",
            with_bin(|j, b| {
                let i = j["animations"][0]["samplers"][0]["input"].as_u64().unwrap() as usize;
                let at = accessor_offset(j, i) + 4;
                b[at..at + 4].copy_from_slice(&(-5.0f32).to_le_bytes());
            }),
            "not finite and increasing",
        ),
        (
            "NaN in inverse bind matrix",
            with_bin(|j, b| {
                let a = j["skins"][0]["inverseBindMatrices"].as_u64().unwrap() as usize;
                let at = accessor_offset(j, a);
                b[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
            }),
            "non-finite matrix",
        ),
        (
            "accessor of the wrong type",
            with_json(|j| {
                let a = j["skins"][0]["inverseBindMatrices"].as_u64().unwrap() as usize;
                j["accessors"][a]["type"] = "VEC3".into();
            }),
            "MAT4 is expected",
        ),
        (
            "sampler index out of range",
            with_json(|j| {
                j["animations"][0]["channels"][0]["sampler"] = json!(999);
            }),
            "index out of range",
        ),
    ];
    // Found by `cargo fuzz`: gltf-json's own validation indexed this without a bounds check.
    v.push((
        "POSITION accessor out of range",
        with_json(|j| {
            j["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(77777);
        }),
        "accessor index out of range",
    ));
    // Found by `cargo fuzz`: gltf-json's validation does not check channel target nodes.
    v.push((
        "channel target node out of range",
        with_json(|j| {
            j["animations"][0]["channels"][0]["target"]["node"] = json!(4242);
        }),
        "target.node: index out of range",
    ));
    // A meshopt view on a fallback buffer that holds no data is bounded by no buffer: its
    // length is what would be allocated for it (this one aborted the process before).
    v.push((
        "meshopt view longer than the decompression limit",
        with_json(|j| {
            let a = j["animations"][0]["samplers"][0]["input"].as_u64().unwrap() as usize;
            let count = j["accessors"][a]["count"].clone();
            let view = j["accessors"][a]["bufferView"].as_u64().unwrap() as usize;
            let fallback = j["buffers"].as_array().unwrap().len();
            j["buffers"].as_array_mut().unwrap().push(json!({
                "byteLength": 1u64 << 40,
                "extensions": {"EXT_meshopt_compression": {"fallback": true}}
            }));
            j["bufferViews"][view] = json!({
                "buffer": fallback, "byteOffset": 0, "byteLength": 1u64 << 40,
                "extensions": {"EXT_meshopt_compression": {
                    "buffer": 0, "byteOffset": 0, "byteLength": 64, "byteStride": 4,
                    "count": count, "mode": "ATTRIBUTES"
                }}
            });
            j["extensionsUsed"] = json!(["EXT_meshopt_compression"]);
        }),
        "decompressed data would exceed 512 MiB",
    ));
    v.push((
        "text that is not json",
        b"{ this is not json".to_vec(),
        "invalid JSON",
    ));
    v
}

fn check(dir: &Path, name: &str, bytes: &[u8], expect: &str, n: usize) {
    let file: PathBuf = dir.join(format!("damaged{n}.glb"));
    std::fs::write(&file, bytes).unwrap();
    let f = file.to_str().unwrap();
    let lib = skelnorm::gltf_io::read(&file);
    assert!(lib.is_err(), "{name}: the library accepted it");
    for args in [
        vec!["inspect", f],
        vec!["convert", f, dir.join("out.glb").to_str().unwrap()],
    ] {
        let run = common::skelnorm(&args);
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(
            run.status.code(),
            Some(1),
            "{name} ({}): exit {:?}, stderr {err}",
            args[0],
            run.status.code()
        );
        assert!(!err.contains("panicked"), "{name}: panic: {err}");
        assert!(
            err.starts_with(&format!("skelnorm: {f}: ")),
            "{name}: error does not name the file: {err}"
        );
        assert!(
            err.contains(expect),
            "{name}: expected `{expect}` in: {err}"
        );
        assert!(
            !dir.join("out.glb").exists(),
            "{name}: an output was written"
        );
    }
    assert_eq!(
        std::fs::read(&file).unwrap(),
        bytes,
        "{name}: the input was modified"
    );
}

#[test]
fn damaged_files_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus();
    assert!(corpus.len() >= 20);
    for (n, (name, bytes, expect)) in corpus.iter().enumerate() {
        check(dir.path(), name, bytes, expect, n);
    }
}

#[test]
fn every_truncation_of_a_file_is_an_error_not_a_panic() {
    let good = base();
    let path = Path::new("cut.glb");
    let res = skelnorm::gltf_io::Resources::None;
    for cut in (0..good.len()).step_by(97) {
        assert!(
            skelnorm::gltf_io::read_bytes(&good[..cut], path, &res).is_err(),
            "cut at {cut} was accepted"
        );
    }
}

#[test]
fn problems_outside_what_skelnorm_reads_are_warnings() {
    let bytes = with_json(|j| {
        j["materials"] = json!([{ "alphaMode": "SOMETIMES" }]);
        j["meshes"][0]["primitives"][0]["material"] = json!(0);
    });
    let doc = skelnorm::gltf_io::read_bytes(
        &bytes,
        Path::new("m.glb"),
        &skelnorm::gltf_io::Resources::None,
    )
    .expect("an invalid material does not stop the read");
    assert!(
        doc.warnings
            .iter()
            .any(|w| w.message.contains("materials[0]")),
        "{:?}",
        doc.warnings
    );
}
