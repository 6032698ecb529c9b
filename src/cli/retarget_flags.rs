//! The retarget flags that add or set operations (`--plant`, `--stride`, `--pin`, ...), and the
//! parsers of their values.

use super::retarget::RetargetArgs;
use skelnorm::retarget::{
    Contacts, FilterOp, FloorOp, MirrorOp, Op, PinOp, PinSpace, PlantOp, PoleOp, StrideOp,
    Treadmill,
};

impl RetargetArgs {
    /// Adds the ops the flags ask for to `ops`, before a `Mirror` op the settings list (it
    /// stays last); `--mirror` adds one at the end.
    pub fn apply_ops(&self, ops: &mut Vec<Op>) {
        let listed = |ops: &[Op], name: &str| ops.iter().any(|x| x.name() == name);
        let add = |ops: &mut Vec<Op>, op: Op| {
            let at = ops.iter().position(|x| matches!(x, Op::Mirror(_)));
            ops.insert(at.unwrap_or(ops.len()), op);
        };
        for (asked, op) in [
            (self.plant, Op::Plant(PlantOp::default())),
            (self.floor, Op::Floor(FloorOp::default())),
            (self.filter, Op::Filter(FilterOp::default())),
            (self.pole, Op::Pole(PoleOp::default())),
        ] {
            if asked && !listed(ops, op.name()) {
                add(ops, op);
            }
        }
        if self.treadmill.is_some() || self.contacts.is_some() {
            // Set on the `Plant` op the settings list, else on one added with its defaults.
            if !listed(ops, "plant") {
                add(ops, Op::Plant(PlantOp::default()));
            }
            let plant = ops.iter_mut().find_map(|x| match x {
                Op::Plant(p) => Some(p),
                _ => None,
            });
            if let Some(p) = plant {
                if let Some(treadmill) = self.treadmill {
                    p.treadmill = treadmill;
                }
                if let Some(contacts) = &self.contacts {
                    p.contacts = contacts.clone();
                }
            }
        }
        if let Some((forward, sideways)) = self.stride {
            let listed = ops.iter_mut().find_map(|x| match x {
                Op::Stride(w) => Some(w),
                _ => None,
            });
            match listed {
                Some(w) => (w.forward, w.sideways) = (forward, sideways),
                None => add(
                    ops,
                    Op::Stride(StrideOp {
                        forward,
                        sideways,
                        ..StrideOp::default()
                    }),
                ),
            }
        }
        for pin in &self.pins {
            add(ops, Op::Pin(pin.clone()));
        }
        if self.mirror && !listed(ops, "mirror") {
            ops.push(Op::Mirror(MirrorOp::default()));
        }
    }
}

/// A flag's number: finite, or an error quoting the text.
fn number(t: &str) -> Result<f32, String> {
    match t.trim().parse::<f32>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("`{t}` is not a number")),
    }
}

/// `--stride FORWARD[,SIDEWAYS]`: two finite factors, the second 1 when not given.
pub fn parse_stride(text: &str) -> Result<(f32, f32), String> {
    match text.split_once(',') {
        Some((f, s)) => Ok((number(f)?, number(s)?)),
        None => Ok((number(text)?, 1.0)),
    }
}

/// `--treadmill detect|off|X,Z`: how planting finds the ground of a clip that runs in place.
pub fn parse_treadmill(text: &str) -> Result<Treadmill, String> {
    match text.trim() {
        "detect" => return Ok(Treadmill::Detect),
        "off" => return Ok(Treadmill::Off),
        _ => {}
    }
    match text.split_once(',') {
        Some((x, z)) => Ok(Treadmill::Velocity([number(x)?, number(z)?])),
        None => Err("expected `detect`, `off` or a velocity X,Z such as `0,-1.2`".into()),
    }
}

/// `--contacts detect|LEFT,RIGHT[,THRESHOLD]`: where planting's contacts come from.
pub fn parse_contacts(text: &str) -> Result<Contacts, String> {
    if text.trim() == "detect" {
        return Ok(Contacts::Detect);
    }
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let threshold = match parts.get(2) {
        None => 0.5,
        Some(t) => number(t)?,
    };
    match parts[..] {
        [left, right] | [left, right, _] if !left.is_empty() && !right.is_empty() => {
            Ok(Contacts::Curves {
                left: left.into(),
                right: right.into(),
                threshold,
            })
        }
        _ => Err(
            "expected `detect` or two curve names LEFT,RIGHT[,THRESHOLD], such as `FootLock_L,FootLock_R`"
                .into(),
        ),
    }
}

/// `--pin BONE=FROM[:global|rest]`: the bone, the bone it follows, and the space (bone names
/// may hold colons, as `mixamorig:RightHand` does: only a last `:global` or `:rest` counts).
pub fn parse_pin(text: &str) -> Result<PinOp, String> {
    let Some((bone, rest)) = text.split_once('=') else {
        return Err("expected BONE=FROM[:global|rest], such as `Sword=RightHand:global`".into());
    };
    let (from, space) = if let Some(f) = rest.strip_suffix(":global") {
        (f, PinSpace::Global)
    } else if let Some(f) = rest.strip_suffix(":rest") {
        (f, PinSpace::RestRelative)
    } else {
        (rest, PinSpace::RestRelative)
    };
    let (bone, from) = (bone.trim(), from.trim());
    if bone.is_empty() || from.is_empty() {
        return Err(format!(
            "`{text}`: both bones are needed, as in BONE=FROM[:global|rest]"
        ));
    }
    Ok(PinOp {
        bone: bone.to_string(),
        from: from.to_string(),
        space,
        ..PinOp::default()
    })
}
