//! Generated multi-MB GLBs with many clips, for the whole-process benchmarks (issue 19): the
//! `mixamo.glb` fixture (mesh, skin, Mixamo names) with clips added until the file reaches a
//! given size. Each added clip is one of the fixture's clips resampled at 30 fps (LINEAR) over
//! 10 s at its own speed, so the keys differ from clip to clip, as in a real motion library.

use glam::{Quat, Vec3};
use skelnorm::gltf_io;
use skelnorm::model::{Clip, Interpolation, Track, TrackValue};
use std::path::{Path, PathBuf};

/// Frames per second and seconds of each added clip.
const FPS: f32 = 30.0;
const SECONDS: f32 = 10.0;

fn resample<T: TrackValue>(track: &Track<T>, speed: f32, period: f32) -> Track<T> {
    let frames = (SECONDS * FPS) as usize + 1;
    let times: std::sync::Arc<[f32]> = (0..frames).map(|f| f as f32 / FPS).collect();
    let values = times
        .iter()
        .map(|&t| track.sample((t * speed) % period.max(1e-3)))
        .collect();
    Track {
        interpolation: Interpolation::Linear,
        times,
        values,
    }
}

fn added_clip(base: &Clip, k: usize) -> Clip {
    let speed = 0.6 + 0.07 * (k % 13) as f32;
    let period = base.duration();
    let mut clip = base.clone();
    clip.name = format!("{}_{k:03}", base.name);
    clip.source = None;
    clip.opaque.clear();
    for t in &mut clip.tracks {
        t.translation = t
            .translation
            .as_ref()
            .map(|x| resample::<Vec3>(x, speed, period));
        t.rotation = t
            .rotation
            .as_ref()
            .map(|x| resample::<Quat>(x, speed, period));
        t.scale = t.scale.as_ref().map(|x| resample::<Vec3>(x, speed, period));
    }
    clip
}

/// Writes `fixtures/mixamo.glb` with clips added until it holds at least `bytes` bytes, as
/// `dir/many_clips_<MB>mb.glb`, and returns its path. The same size gives the same file.
pub fn write(dir: &Path, bytes: u64) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = root.join("fixtures/mixamo.glb");
    let doc = gltf_io::read(&fixture).expect("fixture reads");
    let out = dir.join(format!("many_clips_{}mb.glb", bytes / 1_000_000));
    let base = doc.model.clips.clone();
    // Each added clip's share of the file, measured on a first one.
    let mut probe = doc.clone();
    probe.model.clips.push(added_clip(&base[0], 0));
    probe.write(&out).expect("writes");
    let per_clip = std::fs::metadata(&out).expect("written").len()
        - std::fs::metadata(&fixture).expect("fixture").len();
    let fixture_len = std::fs::metadata(&fixture).expect("fixture").len();
    let clips = bytes.saturating_sub(fixture_len).div_ceil(per_clip.max(1)) as usize;
    let mut doc = doc;
    for k in 0..clips {
        doc.model.clips.push(added_clip(&base[k % base.len()], k));
    }
    doc.write(&out).expect("writes");
    out
}
