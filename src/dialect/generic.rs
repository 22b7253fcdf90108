//! `generic`: any NDJSON. It knows no types, so it flags none; its type is read from
//! `--type-field` (default `type`). Dialects without a schema of their own yet use its
//! (empty) checks.

use super::SchemaProblem;
use crate::json::Json;

pub(super) fn check(_obj: Json<'_>, _ty: &str, _problems: &mut Vec<SchemaProblem>) {}
