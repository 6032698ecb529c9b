//! Fuzzes the reader: any bytes must give a document or an error, never a panic, a hang or a
//! huge allocation. A document that reads must also write (to memory) and read back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skelnorm::gltf_io::{read_bytes, Resources};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    if let Ok(doc) = read_bytes(data, Path::new("fuzz.glb"), &Resources::None) {
        let _ = skelnorm::inspect::inspect(&doc.model);
        let _ = doc.to_parts(None);
    }
});
