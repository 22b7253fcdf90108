//! The walks the agents' text readers share (`src/dialect/<agent>/texts.rs`, dispatched by
//! [`super::Dialect::for_each_text`]): the human text of a record, for `filter --grep`.
//! Each calls `f` on a piece of text (a value where a string is expected: `f` passes over
//! anything else) until `f` returns true, and returns whether it did.

use crate::json::{Json, Kind};

/// The string at `key` of `v`.
pub(super) fn str_at<'a>(v: Json<'a>, key: &str) -> Option<&'a str> {
    v.str(key)
}

/// `f` on the value at `key`, if there is one.
pub(super) fn at<'a>(v: Json<'a>, key: &str, f: &mut dyn FnMut(Json<'a>) -> bool) -> bool {
    v.get(key).is_some_and(f)
}

/// `f` on every string value in `v`, at any depth (object keys excluded): the human text
/// of an agent whose records are mostly text, and of JSON-RPC and generic records, which
/// have no known text fields.
pub(super) fn strings<'a>(v: Option<Json<'a>>, f: &mut dyn FnMut(Json<'a>) -> bool) -> bool {
    let Some(v) = v else {
        return false;
    };
    let mut done = false;
    match v.kind() {
        Kind::String => return f(v),
        Kind::Object => v.for_each_entry(|_, child| {
            if !done {
                done = strings(Some(child), f);
            }
        }),
        Kind::Array => v.for_each_element(|child| {
            if !done {
                done = strings(Some(child), f);
            }
        }),
        _ => {}
    }
    done
}

/// `f` on the `key` string of each element of an array.
pub(super) fn each_at<'a>(
    array: Option<Json<'a>>,
    key: &str,
    f: &mut dyn FnMut(Json<'a>) -> bool,
) -> bool {
    let mut done = false;
    if let Some(a) = array {
        a.for_each_element(|e| {
            if !done {
                done = at(e, key, f);
            }
        });
    }
    done
}

/// `f` on every string of a record ([`strings`]): the `texts` of an agent whose records
/// are mostly text, and of JSON-RPC and generic records.
pub(super) fn all_strings<'a>(v: Json<'a>, f: &mut dyn FnMut(Json<'a>) -> bool) -> bool {
    strings(Some(v), f)
}
