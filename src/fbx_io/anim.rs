//! FBX animation stacks as glTF animations, baked by ufbx.

use super::{quat, transform, vec3, FbxError, FbxInfo};
use crate::gltf_io::build::{Builder, ChannelKeys};
use crate::model::Transform;
use glam::Quat;

/// One clip per animation stack, baked at the scene's frame rate, starting at 0.
pub(super) fn add_animations(
    scene: &ufbx::Scene,
    rests: &[Transform],
    b: &mut Builder,
    nodes: &[Option<usize>],
    info: &mut FbxInfo,
) -> Result<(), FbxError> {
    let fps = if scene.settings.frames_per_second > 0.0 {
        scene.settings.frames_per_second
    } else {
        30.0
    };
    for stack in scene.anim_stacks.iter() {
        let opts = ufbx::BakeOpts {
            resample_rate: fps,
            trim_start_time: true,
            ..Default::default()
        };
        let baked = ufbx::bake_anim(scene, &stack.anim, opts).map_err(|e| {
            FbxError(format!(
                "animation `{}`: {}",
                stack.element.name.as_ref(),
                e.description.as_ref()
            ))
        })?;
        let mut channels = Vec::new();
        let mut baked_nodes = vec![false; scene.nodes.len()];
        for bn in baked.nodes.iter() {
            if let Some(seen) = baked_nodes.get_mut(bn.typed_id as usize) {
                *seen = true;
            }
            if scene.nodes.get(bn.typed_id as usize).is_none() {
                continue;
            };
            let Some(target) = nodes[bn.typed_id as usize] else {
                continue;
            };
            let rest = rests[bn.typed_id as usize];
            let times =
                |t: &mut dyn Iterator<Item = f64>| t.map(|x| x as f32).collect::<Vec<f32>>();
            let keep = |constant: bool, same: bool| !(constant && same);
            if keep(
                bn.constant_translation,
                bn.translation_keys
                    .first()
                    .is_none_or(|k| vec3(k.value).abs_diff_eq(rest.translation, 1e-6)),
            ) {
                channels.push(ChannelKeys {
                    node: target,
                    path: "translation",
                    interpolation: "LINEAR",
                    times: times(&mut bn.translation_keys.iter().map(|k| k.time)),
                    values: bn
                        .translation_keys
                        .iter()
                        .flat_map(|k| vec3(k.value).to_array())
                        .collect(),
                });
            }
            if keep(
                bn.constant_rotation,
                bn.rotation_keys
                    .first()
                    .is_none_or(|k| quat(k.value).abs_diff_eq(rest.rotation, 1e-6)),
            ) {
                let mut prev = Quat::IDENTITY;
                let mut values = Vec::with_capacity(bn.rotation_keys.len() * 4);
                for (i, k) in bn.rotation_keys.iter().enumerate() {
                    let mut q = quat(k.value).normalize();
                    if i > 0 && prev.dot(q) < 0.0 {
                        q = -q;
                    }
                    prev = q;
                    values.extend(q.to_array());
                }
                channels.push(ChannelKeys {
                    node: target,
                    path: "rotation",
                    interpolation: "LINEAR",
                    times: times(&mut bn.rotation_keys.iter().map(|k| k.time)),
                    values,
                });
            }
            if keep(
                bn.constant_scale,
                bn.scale_keys
                    .first()
                    .is_none_or(|k| vec3(k.value).abs_diff_eq(rest.scale, 1e-6)),
            ) {
                channels.push(ChannelKeys {
                    node: target,
                    path: "scale",
                    interpolation: "LINEAR",
                    times: times(&mut bn.scale_keys.iter().map(|k| k.time)),
                    values: bn
                        .scale_keys
                        .iter()
                        .flat_map(|k| vec3(k.value).to_array())
                        .collect(),
                });
            }
        }
        // Nodes the clip does not move hold their own transform while it plays, which differs
        // from their rest where the rest is the bind pose.
        for node in scene.nodes.iter() {
            let id = node.element.typed_id as usize;
            let (Some(target), false) = (nodes[id], baked_nodes[id]) else {
                continue;
            };
            let (own, rest) = (transform(&node.local_transform), rests[id]);
            let held = [
                (
                    "translation",
                    own.translation.to_array().to_vec(),
                    !own.translation.abs_diff_eq(rest.translation, 1e-6),
                ),
                (
                    "rotation",
                    own.rotation.to_array().to_vec(),
                    !own.rotation.abs_diff_eq(rest.rotation, 1e-6),
                ),
                (
                    "scale",
                    own.scale.to_array().to_vec(),
                    !own.scale.abs_diff_eq(rest.scale, 1e-6),
                ),
            ];
            for (path, values, differs) in held {
                if differs {
                    channels.push(ChannelKeys {
                        node: target,
                        path,
                        interpolation: "LINEAR",
                        times: vec![0.0],
                        values,
                    });
                }
            }
        }
        if channels.is_empty() {
            info.notes.push(format!(
                "animation `{}` moves nothing and was left out",
                stack.element.name.as_ref()
            ));
            continue;
        }
        b.animation(stack.element.name.as_ref(), &channels);
    }
    Ok(())
}
