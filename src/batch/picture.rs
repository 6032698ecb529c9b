//! The data of the report's skeleton pictures: rest joint positions before and after, and the
//! mapping (profile bone, confidence) of every bone.

use crate::mapping::{map_in_model, BoneMap, MapOptions};
use crate::model::{BoneId, Model, Skeleton};
use crate::pipeline::NormalizeReport;
use crate::profile::Profile;
use crate::report::{Picture, PictureBone};

/// One picture per skeleton the run considered.
pub fn pictures(
    before: &Model,
    after: &Model,
    report: &NormalizeReport,
    profile: &Profile,
) -> Vec<Picture> {
    report
        .skeletons
        .iter()
        .map(|s| {
            let after = (s.skipped.is_none()).then(|| after.skeleton(s.index));
            picture(
                before.skeleton(s.index),
                after,
                &s.bone_map,
                profile,
                s.mapping.missing_required.clone(),
            )
        })
        .collect()
}

/// Pictures of a model no skeleton of which fits the profile: each skeleton as it is, with
/// what maps and what is missing.
pub fn unfit(model: &Model, profile: &Profile, options: &MapOptions) -> Vec<Picture> {
    model
        .skeleton_ids()
        .map(|k| {
            let s = model.skeleton(k);
            let map = map_in_model(model, k, profile, options);
            let missing = map
                .missing_required(profile)
                .iter()
                .map(|&p| profile.bone(p).name.clone())
                .collect();
            picture(s, None, &map, profile, missing)
        })
        .collect()
}

fn picture(
    before: &Skeleton,
    after: Option<&Skeleton>,
    map: &BoneMap,
    profile: &Profile,
    missing: Vec<String>,
) -> Picture {
    let wa = before.rest_world();
    let wb = after.map(Skeleton::rest_world);
    let bones = before
        .bones
        .iter()
        .enumerate()
        .map(|(i, bone)| {
            let mapped = map.profile_bone_of(BoneId(i as u32));
            PictureBone {
                name: bone.name.clone(),
                parent: bone.parent.map(|p| p.index()),
                before: wa[i].w_axis.truncate().to_array(),
                after: wb.as_ref().map(|w| w[i].w_axis.truncate().to_array()),
                profile: mapped.map(|p| profile.bone(p).name.clone()),
                confidence: mapped
                    .and_then(|p| map.entries[p.index()].as_ref())
                    .map(|m| m.confidence),
            }
        })
        .collect();
    Picture {
        skeleton: before.name.clone(),
        bones,
        missing,
    }
}
