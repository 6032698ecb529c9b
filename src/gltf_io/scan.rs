//! Finding the items of a JSON array and the members of a JSON object in its text without
//! parsing it (issue 19), for text already checked to parse (`lazy.rs`) that holds no
//! backslash: then a string ends at the next quote, and brackets inside strings are skipped
//! with them. What it finds is what serde_json's parser finds (a test compares them).

use super::lazy::{is_space, skip_space};

/// Where the value starting at `i` ends (one past its last byte).
pub(crate) fn value_end(text: &[u8], i: usize) -> usize {
    match text.get(i) {
        Some(b'"') => string_end(text, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < text.len() {
                match text[j] {
                    b'"' => {
                        j = string_end(text, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            text.len()
        }
        _ => {
            let mut j = i;
            while j < text.len() && !matches!(text[j], b',' | b'}' | b']') && !is_space(text[j]) {
                j += 1;
            }
            j
        }
    }
}

/// Where the string whose opening quote is at `i` ends (past its closing quote).
fn string_end(text: &[u8], i: usize) -> usize {
    match memchr::memchr(b'"', &text[i + 1..]) {
        Some(n) => i + n + 2,
        None => text.len(),
    }
}

/// The items of the array `text` (its whole text), each item's text; `None` when `text` is no
/// array.
pub(crate) fn items(text: &[u8]) -> Option<Vec<&[u8]>> {
    items_with(text, |i| value_end(text, i))
}

/// [`items`], each item's end found by `item_end` (given where it starts in `text`, it returns
/// where it ends, as `value_end` would), which may split the item as it goes: each byte of the
/// array is then scanned once.
pub(crate) fn items_with(text: &[u8], item_end: impl FnMut(usize) -> usize) -> Option<Vec<&[u8]>> {
    items_at(text, skip_space(text, 0), item_end).map(|(items, _)| items)
}

/// The items of the array starting at `i` of `text` (each found by `item_end`, see
/// [`items_with`]) and where the array ends; `None` when no array starts there.
fn items_at(
    text: &[u8],
    mut i: usize,
    mut item_end: impl FnMut(usize) -> usize,
) -> Option<(Vec<&[u8]>, usize)> {
    if text.get(i) != Some(&b'[') {
        return None;
    }
    let mut out = Vec::new();
    i = skip_space(text, i + 1);
    if text.get(i) == Some(&b']') {
        return Some((out, i + 1));
    }
    loop {
        let end = item_end(i);
        out.push(&text[i..end]);
        i = skip_space(text, end);
        match text.get(i) {
            Some(b',') => i = skip_space(text, i + 1),
            Some(b']') => return Some((out, i + 1)),
            _ => return None,
        }
    }
}

/// The object starting at `i` of `text`, split: its members (as [`members`] finds them in its
/// text), the items of the values of its first members `split` (as [`items`] finds them; none
/// when they are no arrays), and where it ends. Those values are split as they are scanned,
/// not skipped then split: each byte of the object is scanned once. `None` when no object
/// starts there.
#[allow(
    clippy::type_complexity,
    reason = "the members, the items split, the end: named where it is read"
)]
pub(crate) fn object_at<'t, const N: usize>(
    text: &'t [u8],
    i: usize,
    split: [&str; N],
) -> Option<(Vec<(&'t str, &'t [u8])>, [Option<Vec<&'t [u8]>>; N], usize)> {
    let mut members = Vec::with_capacity(8);
    let mut parts = [const { None }; N];
    let end = walk_members_at(
        text,
        i,
        |key, at| {
            let j = split
                .iter()
                .zip(&parts)
                .position(|(k, part)| part.is_none() && key == k.as_bytes());
            match j.and_then(|j| Some((j, items_at(text, at, |k| value_end(text, k))?))) {
                Some((j, (items, end))) => {
                    parts[j] = Some(items);
                    end
                }
                None => value_end(text, at),
            }
        },
        |key, value| {
            members.push((key_str(key)?, value));
            Some(false)
        },
    )?;
    Some((members, parts, end))
}

/// The members of the object `text` (its whole text), each key and its value's text; `None`
/// when `text` is no object.
#[cfg(test)]
pub(crate) fn members(text: &[u8]) -> Option<Vec<(&str, &[u8])>> {
    members_as(text, |key, value| (key, value))
}

/// The members of the object `text` (its whole text), each key and its value's text made one
/// item by `item`; `None` when `text` is no object.
pub(crate) fn members_as<'t, T>(
    text: &'t [u8],
    item: impl Fn(&'t str, &'t [u8]) -> T,
) -> Option<Vec<T>> {
    // Room for the members of most glTF objects, grown no more.
    let mut out = Vec::with_capacity(8);
    walk_members(text, |key, value| {
        out.push(item(key_str(key)?, value));
        Some(false)
    })?;
    Some(out)
}

/// The key `key` (a key's text between its quotes) as a `str`: the keys of glTF's accessors,
/// buffer views and animations by a comparison, any other checked as UTF-8.
fn key_str(key: &[u8]) -> Option<&str> {
    Some(match key {
        b"bufferView" => "bufferView",
        b"byteOffset" => "byteOffset",
        b"componentType" => "componentType",
        b"count" => "count",
        b"type" => "type",
        b"min" => "min",
        b"max" => "max",
        b"normalized" => "normalized",
        b"buffer" => "buffer",
        b"byteLength" => "byteLength",
        b"byteStride" => "byteStride",
        b"target" => "target",
        b"name" => "name",
        b"channels" => "channels",
        b"samplers" => "samplers",
        _ => std::str::from_utf8(key).ok()?,
    })
}

/// The value of the first member `key` of the object `text` (its whole text), found without
/// splitting the object; `None` when it has none or `text` is no object. For text with no key
/// given twice, what [`field`] finds in its [`members`].
pub(crate) fn member<'t>(text: &'t [u8], key: &str) -> Option<&'t [u8]> {
    let mut found = None;
    walk_members(text, |k, value| {
        let hit = k == key.as_bytes();
        if hit {
            found = Some(value);
        }
        Some(hit)
    })?;
    found
}

/// The values of the first members `keys` of the object `text` (its whole text), found by one
/// walk that stops once it has them all: what [`member`] finds of each key.
pub(crate) fn fields<'t, const N: usize>(text: &'t [u8], keys: [&str; N]) -> [Option<&'t [u8]>; N] {
    let mut found = [None; N];
    let mut missing = N;
    // A walk that gives up leaves what it found before (as [`member`], stopped at a hit).
    let _ = walk_members(text, |k, value| {
        for (key, slot) in keys.iter().zip(&mut found) {
            if slot.is_none() && k == key.as_bytes() {
                *slot = Some(value);
                missing -= 1;
            }
        }
        Some(missing == 0)
    });
    found
}

/// Walks the members of the object `text` (its whole text), giving `visit` each key's text
/// (between its quotes) and its value's text until it returns `Some(true)` (stop) or `None`
/// (give up); `None` when `text` is no object or `visit` gave up.
fn walk_members<'t>(
    text: &'t [u8],
    visit: impl FnMut(&'t [u8], &'t [u8]) -> Option<bool>,
) -> Option<()> {
    walk_members_at(text, skip_space(text, 0), |_, i| value_end(text, i), visit).map(|_| ())
}

/// [`walk_members`] of the object starting at `i` of `text`, each value's end found by
/// `value_end_at` (given its key and where it starts); where the object ends (where the walk
/// stopped, when `visit` stopped it).
fn walk_members_at<'t>(
    text: &'t [u8],
    mut i: usize,
    mut value_end_at: impl FnMut(&'t [u8], usize) -> usize,
    mut visit: impl FnMut(&'t [u8], &'t [u8]) -> Option<bool>,
) -> Option<usize> {
    if text.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_space(text, i + 1);
    if text.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        if text.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(text, i);
        let key = text.get(i + 1..key_end - 1)?;
        i = skip_space(text, key_end);
        if text.get(i) != Some(&b':') {
            return None;
        }
        i = skip_space(text, i + 1);
        let end = value_end_at(key, i);
        if visit(key, &text[i..end])? {
            return Some(end);
        }
        i = skip_space(text, end);
        match text.get(i) {
            Some(b',') => i = skip_space(text, i + 1),
            Some(b'}') => return Some(i + 1),
            _ => return None,
        }
    }
}

/// The value `text` (checked JSON) as `Value::as_u64` reads it parsed: a non-negative integer
/// written without fraction or exponent that fits in a `u64`, else `None`. Up to 19 digits
/// (which always fit) are read here, anything else is parsed by serde_json.
pub(crate) fn as_u64(text: &[u8]) -> Option<u64> {
    let digits = !text.is_empty() && text.len() <= 19 && text.iter().all(u8::is_ascii_digit);
    if digits && (text[0] != b'0' || text.len() == 1) {
        return Some(text.iter().fold(0, |n, d| n * 10 + u64::from(d - b'0')));
    }
    serde_json::from_slice::<serde_json::Value>(text)
        .ok()?
        .as_u64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    /// The value of member `key` of an object's `members`.
    fn field<'t>(members: &[(&str, &'t [u8])], key: &str) -> Option<&'t [u8]> {
        members.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }

    /// What serde_json finds in `text`: its items or members, as text.
    fn serde_items(text: &str) -> Option<Vec<&str>> {
        let items: Vec<&RawValue> = serde_json::from_str(text).ok()?;
        Some(items.into_iter().map(RawValue::get).collect())
    }

    fn serde_members(text: &str) -> Option<Vec<(&str, &str)>> {
        let map: Vec<(&str, &RawValue)> =
            serde_json::from_str::<indexmap::IndexMap<&str, &RawValue>>(text)
                .ok()?
                .into_iter()
                .collect();
        Some(map.into_iter().map(|(k, v)| (k, v.get())).collect())
    }

    fn check(text: &str) {
        let bytes = text.as_bytes();
        let at = skip_space(bytes, 0);
        let split = members(bytes).map(|m| {
            let keys: Vec<&str> = m.iter().map(|(k, _)| *k).collect();
            let first = keys.first().copied().unwrap_or("none");
            let second = keys.get(1).copied().unwrap_or("none");
            let part = |key: &str| field(&m, key).and_then(items);
            let expected = (m.clone(), [part(first), part(second)], value_end(bytes, at));
            (expected, [first, second])
        });
        match split {
            Some((expected, keys)) => assert_eq!(object_at(bytes, at, keys), Some(expected)),
            None => assert_eq!(object_at(bytes, at, ["a"]), None, "{text}"),
        }
        if let Some(m) = members(text.as_bytes()) {
            for (key, _) in &m {
                assert_eq!(member(text.as_bytes(), key), field(&m, key), "{text}");
            }
            for (a, _) in &m {
                for (b, _) in m.iter().chain([&("no such key", &b""[..])]) {
                    let pair = fields(text.as_bytes(), [a, b]);
                    let expected = [member(text.as_bytes(), a), member(text.as_bytes(), b)];
                    assert_eq!(pair, expected, "{text}");
                }
            }
            assert_eq!(member(text.as_bytes(), "no such key"), None);
        } else {
            assert_eq!(member(text.as_bytes(), "a"), None, "{text}");
            assert_eq!(fields(text.as_bytes(), ["a", "b"]), [None, None], "{text}");
        }
        let as_str = |v: Vec<&[u8]>| -> Vec<String> {
            v.into_iter()
                .map(|b| String::from_utf8(b.to_vec()).unwrap())
                .collect()
        };
        let ours = items(text.as_bytes()).map(as_str);
        let theirs = serde_items(text).map(|v| v.into_iter().map(String::from).collect());
        assert_eq!(ours, theirs, "{text}");
        let ours: Option<Vec<(String, String)>> = members(text.as_bytes()).map(|m| {
            m.into_iter()
                .map(|(k, v)| (k.to_string(), String::from_utf8(v.to_vec()).unwrap()))
                .collect()
        });
        let theirs = serde_members(text).map(|m| {
            m.into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        });
        assert_eq!(ours, theirs, "{text}");
    }

    #[test]
    fn key_strs_are_the_keys() {
        for key in [
            "bufferView",
            "byteOffset",
            "componentType",
            "count",
            "type",
            "min",
            "max",
            "normalized",
            "buffer",
            "byteLength",
            "byteStride",
            "target",
            "name",
            "channels",
            "samplers",
            "",
            "é",
            "bufferview",
            "extras",
        ] {
            assert_eq!(key_str(key.as_bytes()), Some(key));
        }
        assert_eq!(key_str(b"\xff"), None);
    }

    #[test]
    fn reads_u64s_as_serde_json_does() {
        for text in [
            "0",
            "7",
            "42",
            "1234567890123456789",
            "9999999999999999999",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "-0",
            "-3",
            "1.0",
            "1e2",
            "0.5",
            "007",
            "00",
            "",
            "\"5\"",
            "true",
            "null",
            "[1]",
            " 5",
            "5 ",
        ] {
            let theirs = serde_json::from_str::<serde_json::Value>(text)
                .ok()
                .and_then(|v| v.as_u64());
            assert_eq!(as_u64(text.as_bytes()), theirs, "{text}");
        }
    }

    #[test]
    fn finds_what_serde_json_finds() {
        for text in [
            "[]",
            " [ ] ",
            "{}",
            " { } ",
            "[1,2.5e3,-0.0,true,false,null]",
            "[ 1 , \"a]\" , {\"x\":[1,{\"}\":\"{\"}]} , [[],[[]]] ]",
            "{\"a\":1,\"b\" : [ 1, 2 ] ,\"c\":{\"d\":\"]}\"},\"e\":\"\",\"f\":-1e-7}",
            "\n{\n\t\"é\": \"ü\",\r\n \"z\":{}\n}\n",
            "[{\"bufferView\":0,\"min\":[1,2],\"type\":\"VEC3\"},{\"count\":3}]",
            "1",
            "\"s\"",
        ] {
            check(text);
        }
    }

    #[test]
    fn finds_what_serde_json_finds_in_every_fixture_and_asset() {
        let mut checked = 0;
        super::super::container::each_fixture_and_asset_json(|_, json| {
            let text = std::str::from_utf8(json).expect("UTF-8");
            if text.contains('\\') {
                return;
            }
            // Every object and array in it, at every depth.
            fn walk(text: &str, found: &mut usize) {
                check(text);
                *found += 1;
                let bytes = text.as_bytes();
                let parts: Vec<&[u8]> = match (items(bytes), members(bytes)) {
                    (Some(items), _) => items,
                    (_, Some(members)) => members.into_iter().map(|(_, v)| v).collect(),
                    _ => return,
                };
                for p in parts {
                    walk(std::str::from_utf8(p).expect("UTF-8"), found);
                }
            }
            walk(text, &mut checked);
        });
        assert!(checked >= 1000, "only {checked} values checked");
    }
}
