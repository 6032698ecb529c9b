//! The data of the report's skeleton pictures: rest joint positions before and after, and the
//! mapping (profile bone, confidence) of every bone.

use crate::model::{BoneId, Model};
use crate::pipeline::NormalizeReport;
use crate::profile::Profile;
use crate::report::{Picture, PictureBone};

/// One picture per skeleton the run considered.
pub fn pictures(before: &Model, after: &Model, report: &NormalizeReport, profile: &Profile) -> Vec<Picture> {
    report
        .skeletons
        .iter()
        .map(|s| {
            let (a, b) = (&before.skeletons[s.index], &after.skeletons[s.index]);
            let (wa, wb) = (a.rest_world(), b.rest_world());
            let normalized = s.skipped.is_none();
            let bones = a
                .bones
                .iter()
                .enumerate()
                .map(|(i, bone)| {
                    let mapped = s.bone_map.profile_bone_of(BoneId(i as u32));
                    PictureBone {
                        name: bone.name.clone(),
                        parent: bone.parent.map(|p| p.index()),
                        before: wa[i].w_axis.truncate().to_array(),
                        after: normalized.then(|| wb[i].w_axis.truncate().to_array()),
                        profile: mapped.map(|p| profile.bone(p).name.clone()),
                        confidence: mapped
                            .and_then(|p| s.bone_map.entries[p.index()].as_ref())
                            .map(|m| m.confidence),
                    }
                })
                .collect();
            Picture {
                skeleton: s.skeleton.clone(),
                bones,
                missing: s.mapping.missing_required.clone(),
            }
        })
        .collect()
}
