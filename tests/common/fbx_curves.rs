//! Float curves in an ASCII FBX file, written the way Unreal's FBX exporter writes its animation
//! curves (FbxAnimationExport: an `FbxDoubleDT` property created on the root bone's node with
//! the animatable and user-defined flags, its curve on the take's layer) and its importer reads
//! them back (SkeletalMeshEdit.cpp: every user-defined, animated property of a skeleton node
//! becomes a curve named by its curve node). Blender 5's exporter writes custom properties
//! only as static `A+U` values, never animated, so the tests add the curves to the text:
//! - on the node's `Model`, in `Properties70`: `P: "<name>", "double", "Number", "A+U", <v0>`;
//! - an `AnimationCurveNode` named `<name>` whose `Properties70` holds
//!   `P: "d|<name>", "Number", "", "A", <v0>`, connected `OO` to the `AnimationLayer` and `OP`
//!   to the model's property `<name>`;
//! - an `AnimationCurve` with the keys (FBX ticks, linear), connected `OP` to the curve node's
//!   `d|<name>`.

/// FBX time units per second.
const KTIME: f64 = 46_186_158_000.0;

/// A key's `KeyAttrFlags` for linear interpolation (what Blender writes: linear, tangents
/// auto-clamped), one flag set shared by every key.
const LINEAR: u32 = 24836;

/// The id of the object `kind` named `name` (`Model`, `Model::Hips`), from its declaration line.
fn object_id(text: &str, kind: &str, name: &str) -> u64 {
    let head = format!("\t{kind}: ");
    let quoted = format!("\"{name}\"");
    text.lines()
        .find(|l| l.starts_with(&head) && l.contains(&quoted))
        .and_then(|l| l[head.len()..].split(',').next())
        .and_then(|id| id.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

/// The byte offset of the `}` line closing the top-level block that starts with `head`.
fn block_end(text: &str, head: &str) -> usize {
    let start = text.find(head).unwrap_or_else(|| panic!("no {head}"));
    start + text[start..].find("\n}\n").unwrap() + 1
}

/// `text` (an ASCII FBX 7.x file with one animation layer) with float curves on the node named
/// `node`: each `(name, keys)` with keys as `(seconds, value)`, linear.
pub fn add_float_curves(text: &str, node: &str, curves: &[(&str, Vec<(f32, f32)>)]) -> String {
    let model = object_id(text, "Model", &format!("Model::{node}"));
    let layer_line = text
        .lines()
        .find(|l| l.starts_with("\tAnimationLayer: "))
        .expect("an animation layer");
    let layer: u64 = layer_line["\tAnimationLayer: ".len()..]
        .split(',')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let (mut props, mut objects, mut links) = (String::new(), String::new(), String::new());
    // Ids past any this function gave before (one per curve node already in the file).
    let base = 9_100_000_000 + 2 * text.matches("\tAnimationCurveNode: ").count() as u64;
    for (k, (name, keys)) in curves.iter().enumerate() {
        let v0 = keys[0].1;
        let (node_id, curve_id) = (base + 2 * k as u64, base + 2 * k as u64 + 1);
        props.push_str(&format!(
            "\t\t\tP: \"{name}\", \"double\", \"Number\", \"A+U\", {v0}\n"
        ));
        let times: Vec<String> = keys
            .iter()
            .map(|(t, _)| format!("{}", (f64::from(*t) * KTIME).round() as i64))
            .collect();
        let values: Vec<String> = keys.iter().map(|(_, v)| format!("{v}")).collect();
        objects.push_str(&format!(
            "\tAnimationCurveNode: {node_id}, \"AnimCurveNode::{name}\", \"\" {{\n\
             \t\tProperties70:  {{\n\
             \t\t\tP: \"d|{name}\", \"Number\", \"\", \"A\", {v0}\n\
             \t\t}}\n\
             \t}}\n\
             \tAnimationCurve: {curve_id}, \"AnimCurve::\", \"\" {{\n\
             \t\tDefault: {v0}\n\
             \t\tKeyVer: 4008\n\
             \t\tKeyTime: *{n} {{\n\t\t\ta: {times}\n\t\t}}\n\
             \t\tKeyValueFloat: *{n} {{\n\t\t\ta: {values}\n\t\t}}\n\
             \t\tKeyAttrFlags: *1 {{\n\t\t\ta: {LINEAR}\n\t\t}}\n\
             \t\tKeyAttrDataFloat: *4 {{\n\t\t\ta: 0,0,0,0\n\t\t}}\n\
             \t\tKeyAttrRefCount: *1 {{\n\t\t\ta: {n}\n\t\t}}\n\
             \t}}\n",
            n = keys.len(),
            times = times.join(","),
            values = values.join(","),
        ));
        links.push_str(&format!(
            "\tC: \"OO\", {node_id}, {layer}\n\
             \tC: \"OP\", {node_id}, {model}, \"{name}\"\n\
             \tC: \"OP\", {curve_id}, {node_id}, \"d|{name}\"\n"
        ));
    }
    let mut out = text.to_string();
    // From the end of the file backwards, so the offsets found stay right.
    let at = block_end(&out, "\nConnections:  {");
    out.insert_str(at, &links);
    let at = block_end(&out, "\nObjects:  {");
    out.insert_str(at, &objects);
    let decl = out
        .find(&format!("\tModel: {model}, "))
        .expect("the model's declaration");
    let at = decl
        + out[decl..]
            .find("Properties70:  {\n")
            .expect("its properties")
        + 17;
    out.insert_str(at, &props);
    out
}

/// A two-bone skeleton (`Root`, `Hips` above it) with one clip, `Walk`, that moves the hips up
/// over 1 s, at 30 fps, in centimetres, Y up; the root also has an animated property that is
/// not user-defined (`Visibility`) and a user-defined one that is not animated (`Static`).
pub const MINIMAL: &str = r#"; FBX 7.4.0 project file
FBXHeaderExtension:  {
	FBXHeaderVersion: 1003
	FBXVersion: 7400
	Creator: "skelnorm tests"
}
GlobalSettings:  {
	Version: 1000
	Properties70:  {
		P: "UpAxis", "int", "Integer", "", 1
		P: "UpAxisSign", "int", "Integer", "", 1
		P: "FrontAxis", "int", "Integer", "", 2
		P: "FrontAxisSign", "int", "Integer", "", 1
		P: "CoordAxis", "int", "Integer", "", 0
		P: "CoordAxisSign", "int", "Integer", "", 1
		P: "UnitScaleFactor", "double", "Number", "", 1.0
		P: "TimeMode", "enum", "", "", 6
	}
}
Objects:  {
	NodeAttribute: 11, "NodeAttribute::Root", "LimbNode" {
		TypeFlags: "Skeleton"
	}
	NodeAttribute: 12, "NodeAttribute::Hips", "LimbNode" {
		TypeFlags: "Skeleton"
	}
	Model: 1, "Model::Root", "LimbNode" {
		Version: 232
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A", 0.0, 0.0, 0.0
			P: "Visibility", "Visibility", "", "A", 1
			P: "Static", "double", "Number", "A+U", 3.0
		}
	}
	Model: 2, "Model::Hips", "LimbNode" {
		Version: 232
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A", 0.0, 100.0, 0.0
		}
	}
	AnimationStack: 100, "AnimStack::Walk", "" {
		Properties70:  {
			P: "LocalStop", "KTime", "Time", "", 46186158000
			P: "ReferenceStop", "KTime", "Time", "", 46186158000
		}
	}
	AnimationLayer: 101, "AnimLayer::Walk", "" {
	}
	AnimationCurveNode: 200, "AnimCurveNode::T", "" {
		Properties70:  {
			P: "d|X", "Number", "", "A", 0.0
			P: "d|Y", "Number", "", "A", 100.0
			P: "d|Z", "Number", "", "A", 0.0
		}
	}
	AnimationCurve: 201, "AnimCurve::", "" {
		Default: 100.0
		KeyVer: 4008
		KeyTime: *2 {
			a: 0,46186158000
		}
		KeyValueFloat: *2 {
			a: 100,110
		}
		KeyAttrFlags: *1 {
			a: 24836
		}
		KeyAttrDataFloat: *4 {
			a: 0,0,0,0
		}
		KeyAttrRefCount: *1 {
			a: 2
		}
	}
	AnimationCurveNode: 210, "AnimCurveNode::Visibility", "" {
		Properties70:  {
			P: "d|Visibility", "Number", "", "A", 1.0
		}
	}
	AnimationCurve: 211, "AnimCurve::", "" {
		Default: 1.0
		KeyVer: 4008
		KeyTime: *2 {
			a: 0,46186158000
		}
		KeyValueFloat: *2 {
			a: 1,0
		}
		KeyAttrFlags: *1 {
			a: 24836
		}
		KeyAttrDataFloat: *4 {
			a: 0,0,0,0
		}
		KeyAttrRefCount: *1 {
			a: 2
		}
	}
}
Connections:  {
	C: "OO", 1, 0
	C: "OO", 2, 1
	C: "OO", 11, 1
	C: "OO", 12, 2
	C: "OO", 101, 100
	C: "OO", 200, 101
	C: "OP", 200, 2, "Lcl Translation"
	C: "OP", 201, 200, "d|Y"
	C: "OO", 210, 101
	C: "OP", 210, 1, "Visibility"
	C: "OP", 211, 210, "d|Visibility"
}
"#;

/// Objects and connections of a triangle mesh `name` at the top of the scene skinned to the
/// bones `bones` (model id, name, world translation at bind; one cluster each, every vertex at
/// weight 1), ids from `base`: what makes the bones a skeleton of their own.
fn skinned_triangle(name: &str, base: u64, bones: &[(u64, &str, [f32; 3])]) -> (String, String) {
    let (model, geometry, skin) = (base, base + 1, base + 2);
    let mut objects = format!(
        "\tModel: {model}, \"Model::{name}\", \"Mesh\" {{\n\t\tVersion: 232\n\t\tProperties70:  {{\n\t\t}}\n\t}}\n\
         \tGeometry: {geometry}, \"Geometry::{name}\", \"Mesh\" {{\n\
         \t\tVertices: *9 {{\n\t\t\ta: 0,100,0,10,100,0,0,110,0\n\t\t}}\n\
         \t\tPolygonVertexIndex: *3 {{\n\t\t\ta: 0,1,-3\n\t\t}}\n\
         \t\tGeometryVersion: 124\n\t}}\n\
         \tDeformer: {skin}, \"Deformer::{name}\", \"Skin\" {{\n\t\tVersion: 101\n\t}}\n"
    );
    let mut links = format!(
        "\tC: \"OO\", {model}, 0\n\tC: \"OO\", {geometry}, {model}\n\tC: \"OO\", {skin}, {geometry}\n"
    );
    for (k, (bone, bone_name, [x, y, z])) in bones.iter().enumerate() {
        let cluster = base + 3 + k as u64;
        objects.push_str(&format!(
            "\tDeformer: {cluster}, \"SubDeformer::{bone_name}\", \"Cluster\" {{\n\
             \t\tVersion: 100\n\
             \t\tIndexes: *3 {{\n\t\t\ta: 0,1,2\n\t\t}}\n\
             \t\tWeights: *3 {{\n\t\t\ta: 1,1,1\n\t\t}}\n\
             \t\tTransform: *16 {{\n\t\t\ta: 1,0,0,0,0,1,0,0,0,0,1,0,{},{},{},1\n\t\t}}\n\
             \t\tTransformLink: *16 {{\n\t\t\ta: 1,0,0,0,0,1,0,0,0,0,1,0,{x},{y},{z},1\n\t\t}}\n\
             \t}}\n",
            -x, -y, -z
        ));
        links.push_str(&format!(
            "\tC: \"OO\", {cluster}, {skin}\n\tC: \"OO\", {bone}, {cluster}\n"
        ));
    }
    (objects, links)
}

/// [`MINIMAL`] with a second skeleton beside the first, `Root2` with `Hips2` below it, that
/// `Walk` moves too (its hips up from 90 to 95 cm), each skinned to a triangle of its own (two
/// skins over bones of different trees: two skeletons), and a null `Controls` at the top of the
/// scene in no skeleton: a file with two characters, each with its own clip of `Walk`.
pub fn two_skeletons() -> String {
    let objects = r#"	NodeAttribute: 13, "NodeAttribute::Root2", "LimbNode" {
		TypeFlags: "Skeleton"
	}
	NodeAttribute: 14, "NodeAttribute::Hips2", "LimbNode" {
		TypeFlags: "Skeleton"
	}
	Model: 3, "Model::Root2", "LimbNode" {
		Version: 232
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A", 200.0, 0.0, 0.0
		}
	}
	Model: 4, "Model::Hips2", "LimbNode" {
		Version: 232
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A", 0.0, 90.0, 0.0
		}
	}
	Model: 5, "Model::Controls", "Null" {
		Version: 232
		Properties70:  {
		}
	}
	AnimationCurveNode: 220, "AnimCurveNode::T", "" {
		Properties70:  {
			P: "d|X", "Number", "", "A", 0.0
			P: "d|Y", "Number", "", "A", 90.0
			P: "d|Z", "Number", "", "A", 0.0
		}
	}
	AnimationCurve: 221, "AnimCurve::", "" {
		Default: 90.0
		KeyVer: 4008
		KeyTime: *2 {
			a: 0,46186158000
		}
		KeyValueFloat: *2 {
			a: 90,95
		}
		KeyAttrFlags: *1 {
			a: 24836
		}
		KeyAttrDataFloat: *4 {
			a: 0,0,0,0
		}
		KeyAttrRefCount: *1 {
			a: 2
		}
	}
"#;
    let links = "\tC: \"OO\", 3, 0\n\tC: \"OO\", 4, 3\n\tC: \"OO\", 13, 3\n\tC: \"OO\", 14, 4\n\
                 \tC: \"OO\", 5, 0\n\tC: \"OO\", 220, 101\n\tC: \"OP\", 220, 4, \"Lcl Translation\"\n\
                 \tC: \"OP\", 221, 220, \"d|Y\"\n";
    let (one, one_links) = skinned_triangle(
        "Body",
        600,
        &[(1, "Root", [0.0, 0.0, 0.0]), (2, "Hips", [0.0, 100.0, 0.0])],
    );
    let (two, two_links) = skinned_triangle(
        "Body2",
        700,
        &[
            (3, "Root2", [200.0, 0.0, 0.0]),
            (4, "Hips2", [200.0, 90.0, 0.0]),
        ],
    );
    let mut out = MINIMAL.to_string();
    let at = block_end(&out, "\nConnections:  {");
    out.insert_str(at, &format!("{links}{one_links}{two_links}"));
    let at = block_end(&out, "\nObjects:  {");
    out.insert_str(at, &format!("{objects}{one}{two}"));
    out
}

/// [`MINIMAL`] as Mixamo writes a character: skinned, its hips bound 10 cm below where the file
/// poses them (bind pose 90 cm, `Lcl Translation` 100 cm), with a second stack, `Take 001`
/// (1/24 s to 1 s, like Mixamo's), whose one layer has no curve node: a take that keys nothing.
pub fn empty_take_posed_off_bind() -> String {
    let objects = "\tAnimationStack: 300, \"AnimStack::Take 001\", \"\" {\n\t\tProperties70:  {\n\
                   \t\t\tP: \"LocalStart\", \"KTime\", \"Time\", \"\", 1924423250\n\
                   \t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\", 46186158000\n\t\t}\n\t}\n\
                   \tAnimationLayer: 301, \"AnimLayer::BaseLayer\", \"\" {\n\t}\n";
    let (body, body_links) = skinned_triangle(
        "Body",
        600,
        &[(1, "Root", [0.0, 0.0, 0.0]), (2, "Hips", [0.0, 90.0, 0.0])],
    );
    let mut out = MINIMAL.to_string();
    let at = block_end(&out, "\nConnections:  {");
    out.insert_str(at, &format!("\tC: \"OO\", 301, 300\n{body_links}"));
    let at = block_end(&out, "\nObjects:  {");
    out.insert_str(at, &format!("{objects}{body}"));
    out
}
