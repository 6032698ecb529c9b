//! Fuzzes the BVH reader: any text must give a model or an error, never a panic, a hang or a
//! huge allocation. A file that reads must also write and read back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skelnorm::bvh_io::{read, write, BvhOptions, BvhWriteOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(bvh) = read(text, &BvhOptions::default()) {
        let skeleton = &bvh.model.skeletons[0];
        if let Some(clip) = bvh.model.clips.first() {
            if let Ok(out) = write(skeleton, clip, &BvhWriteOptions::default()) {
                let _ = read(&out, &BvhOptions::default());
            }
        }
    }
});
