//! The Rust runtime retargeter (`skelnorm::retarget::Retargeter`) over one clip, for the Python
//! package's tests (issue 18): the poses `skelnorm.Retargeter` must give, float for float. Uses
//! only the Rust library, as a Rust program would.
//!
//! `runtime_poses SRC TGT FPS OUT [SETTINGS.ron]`: SRC and TGT are normalized files (as
//! `skelnorm normalize` writes them); SRC's first clip is sampled at `Clip::sample_times(FPS)`
//! with `Pose::sample_into`, each pose retargeted onto TGT's first skeleton, each side mapped by
//! the settings' profile and maps. OUT gets raw little-endian float32: the target's local
//! rotations (N, J, 4) in (x, y, z, w) order, then its local translations (N, J, 3).
//!
//! The Python `Retargeter` takes the source's rotations and the hips' translation only, so the
//! clip may animate no other translation and no scale: that is an error here.

use skelnorm::mapping::map_skeleton;
use skelnorm::model::Pose;
use skelnorm::retarget::{Retargeter, Rig};
use skelnorm::settings::Settings;
use std::error::Error;
use std::path::Path;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [src, tgt, fps, out, rest @ ..] = args.as_slice() else {
        return Err("usage: runtime_poses SRC TGT FPS OUT [SETTINGS.ron]".into());
    };
    let settings = match rest.first() {
        Some(file) => Settings::load(Path::new(file))?,
        None => Settings::default(),
    };
    let r = settings.resolve()?;
    let read = |p: &str| skelnorm::io::read(Path::new(p), &Default::default());
    let (src, tgt) = (read(src)?.model, read(tgt)?.model);
    let clip = src.clips.first().ok_or("the source has no clip")?;
    let ss = src
        .get_skeleton(clip.skeleton)
        .ok_or("the clip's skeleton is missing")?;
    let ts = tgt.skeletons.first().ok_or("the target has no skeleton")?;
    let (sm, tm) = (
        map_skeleton(ss, &r.profile, &r.source_map),
        map_skeleton(ts, &r.profile, &r.target_map),
    );
    let mut retargeter = Retargeter::new(
        &Rig {
            skeleton: ss,
            map: &sm,
            profile: &r.profile,
        },
        &Rig {
            skeleton: ts,
            map: &tm,
            profile: &r.profile,
        },
        &r.retarget,
    )?;
    let hips = retargeter.plan().source_hips().index();
    for (b, tracks) in clip.tracks.iter().enumerate() {
        if tracks.scale.is_some() || (tracks.translation.is_some() && b != hips) {
            return Err(format!(
                "the clip animates `{}` beyond its rotation",
                ss.bones[b].name
            )
            .into());
        }
    }
    let (mut source, mut target) = (Pose::rest(ss), Pose::rest(ts));
    let mut bytes = Vec::new();
    let mut translations = Vec::new();
    for time in clip.sample_times(Some(fps.parse()?)) {
        source.sample_into(clip, time);
        retargeter.retarget(&source, &mut target)?;
        for l in &target.locals {
            bytes.extend(l.rotation.to_array().iter().flat_map(|v| v.to_le_bytes()));
            translations.extend(
                l.translation
                    .to_array()
                    .iter()
                    .flat_map(|v| v.to_le_bytes()),
            );
        }
    }
    bytes.extend(translations);
    std::fs::write(out, bytes)?;
    Ok(())
}
