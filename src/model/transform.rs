//! Translation-rotation-scale transforms.

use glam::{Mat4, Quat, Vec3};

/// A local transform as glTF stores it: translation, rotation, then scale (`T · R · S`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Translation in the parent's units.
    pub translation: Vec3,
    /// Rotation, unit quaternion.
    pub rotation: Quat,
    /// Scale per axis.
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// The identity transform.
    pub const IDENTITY: Transform = Transform {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// A pure translation.
    pub fn from_translation(translation: Vec3) -> Self {
        Transform {
            translation,
            ..Self::IDENTITY
        }
    }

    /// The matrix `T · R · S`.
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Decomposes a matrix (shear, if any, is lost).
    pub fn from_mat4(m: &Mat4) -> Self {
        if m.determinant().abs() < 1e-20 {
            // Degenerate (a zero scale hides a node): keep translation and axis lengths.
            let scale = Vec3::new(m.x_axis.length(), m.y_axis.length(), m.z_axis.length());
            return Transform {
                translation: m.w_axis.truncate(),
                rotation: Quat::IDENTITY,
                scale,
            };
        }
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        Transform {
            translation,
            rotation: rotation.normalize(),
            scale,
        }
    }

    /// Checks that the transform is finite and its rotation unit length (within 1e-3).
    pub fn check(&self) -> Result<(), &'static str> {
        if !(self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()) {
            return Err("is not finite");
        }
        if (self.rotation.length() - 1.0).abs() > 1e-3 {
            return Err("rotation is not unit length");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_matrix() {
        let t = Transform {
            translation: Vec3::new(1.0, 2.0, 3.0),
            rotation: Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.2, 1.1),
            scale: Vec3::splat(0.01),
        };
        let back = Transform::from_mat4(&t.to_mat4());
        assert!((back.translation - t.translation).length() < 1e-5);
        assert!(back.rotation.dot(t.rotation).abs() > 1.0 - 1e-6);
        assert!((back.scale - t.scale).length() < 1e-7);
    }
}
