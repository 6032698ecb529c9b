//! Rigs and maps built in code for the tests of every stage: the profile's own skeleton with
//! its rests disturbed, skinned, under an armature node, and the map that pairs it with the
//! profile by name.

use super::{BoneMap, Mapped, Origin};
use crate::model::{Bone, BoneId, Skeleton, Skin, Transform};
use crate::profile::Profile;
use glam::{Mat4, Quat};

/// The profile's reference skeleton (bone `i` is glTF node `i + 1`, the armature node 0), with rests disturbed by `noise` (one rotation per bone).
pub(crate) fn rig(noise: &[Quat], base: Mat4) -> Skeleton {
    let p = Profile::humanoid();
    let rest_globals = {
        let mut s = Skeleton {
            name: "rig".into(),
            bones: Vec::new(),
            skins: Vec::new(),
            attachments: Vec::new(),
            base,
            base_nodes: vec![0],
            declared: None,
        };
        for (i, b) in p.bones.iter().enumerate() {
            s.bones.push(Bone {
                name: b.name.clone(),
                parent: b.parent.map(|q| BoneId(q.0)),
                rest: Transform {
                    rotation: (b.reference.rotation * noise[i % noise.len()]).normalize(),
                    ..b.reference
                },
                is_joint: true,
                weighted: Some(true),
                node: Some(i as u32 + 1),
            });
        }
        s
    };
    let mut s = rest_globals;
    let world = s.rest_world();
    s.skins.push(Skin {
        name: "skin".into(),
        joints: (0..s.bones.len() as u32).map(BoneId).collect(),
        inverse_bind_matrices: world.iter().map(|m| m.inverse()).collect(),
        source: Some(0),
        bake: Vec::new(),
        fixed_vertices: None,
        meshless: false,
    });
    s
}

/// The map of `rig` by profile names, leaving every `skip`-th optional bone unmapped (0: none).
pub(crate) fn identity_map(s: &Skeleton, skip: usize) -> BoneMap {
    let p = Profile::humanoid();
    BoneMap {
        entries: p
            .ids()
            .map(|id| {
                // Leave every `skip`-th optional bone unmapped (an in-between bone).
                let unmapped = skip > 0 && !p.bone(id).required && id.index() % skip == 0;
                (!unmapped).then(|| Mapped {
                    bone: s.find(&p.bone(id).name).unwrap(),
                    confidence: 1.0,
                    origin: Origin::Auto,
                    reason: "test".into(),
                })
            })
            .collect(),
        warnings: Vec::new(),
    }
}
