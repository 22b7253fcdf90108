//! Token prices: what `stats` estimates a session's cost with when the agent reported none
//! (docs/REFERENCE.md, "Token and cost rules").
//!
//! The built-in table is a dated snapshot of LiteLLM's MIT-licensed
//! `model_prices_and_context_window_backup.json` (`data/pricing/`, compiled in): the newest
//! release merged over an older one that still lists retired models, trimmed to the chat
//! models coding agents call and to the price fields. `--pricing FILE` replaces it with any
//! file in LiteLLM's format. Nothing is ever fetched.
//!
//! Model names resolve as ccusage resolves them: the exact name, then with a provider
//! prefix added or removed, then without a date suffix, then the longest table name that
//! contains it or that it contains (both at least 5 characters). Only a whole name or its
//! whole `/`-segments are looked up: a name with an empty segment (`foo/`, `x//`, `/`)
//! or a short piece (`a/b`) is unpriced, never priced as whatever table name holds it.
//! The arithmetic is ccusage's too: each token kind at its
//! price, the part of a request's count above 200k tokens at the `_above_200k_tokens` price
//! where the table has one.

use serde_json::Value;
use std::collections::HashMap;

/// The built-in table (LiteLLM's format plus an `ndjq_pricing` entry naming its source).
const BUILTIN: &str = include_str!("../data/pricing/litellm-1.109.1.json");

/// The highest price per token a table may give: $10,000 per million tokens, 16 times the
/// dearest model LiteLLM lists (o1-pro output, $600). A table above it (or with a negative
/// or non-numeric price) is refused: 1e308 would turn every sum into infinity
/// (docs/REFERENCE.md, `--pricing`).
pub const MAX_PRICE_PER_TOKEN: f64 = 0.01;

/// The price fields a table is read for.
const PRICE_FIELDS: [&str; 9] = [
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_creation_input_token_cost",
    "cache_read_input_token_cost",
    "input_cost_per_token_above_200k_tokens",
    "output_cost_per_token_above_200k_tokens",
    "cache_creation_input_token_cost_above_200k_tokens",
    "cache_read_input_token_cost_above_200k_tokens",
    "cache_creation_input_token_cost_above_1hr",
];

/// Requests above this many tokens of a kind pay the tiered price for the excess.
const TIER_THRESHOLD: u64 = 200_000;

/// USD per token of each kind, with the prices above [`TIER_THRESHOLD`] where tiered.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cache_creation: f64,
    pub cache_read: f64,
    pub input_above: Option<f64>,
    pub output_above: Option<f64>,
    pub cache_creation_above: Option<f64>,
    pub cache_read_above: Option<f64>,
    /// Cache writes to the 1-hour cache (Anthropic), else the cache write price.
    pub cache_creation_1h: Option<f64>,
}

/// Token counts to price: non-cached input, output, cache writes, cache reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Billed {
    pub input: u64,
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
    /// The part of `cache_creation` written to the 1-hour cache.
    pub cache_creation_1h: u64,
}

fn tiered(n: u64, base: f64, above: Option<f64>, tiers: bool) -> f64 {
    match above {
        Some(a) if tiers && n > TIER_THRESHOLD => {
            TIER_THRESHOLD as f64 * base + (n - TIER_THRESHOLD) as f64 * a
        }
        _ => n as f64 * base,
    }
}

impl Price {
    /// The cost of one request's tokens (`tiers`: its counts are one request's, so the
    /// 200k tiers apply; an aggregate over many requests is priced at the base prices).
    pub fn cost(&self, t: Billed, tiers: bool) -> f64 {
        tiered(t.input, self.input, self.input_above, tiers)
            + tiered(t.output, self.output, self.output_above, tiers)
            + tiered(
                t.cache_creation.saturating_sub(t.cache_creation_1h),
                self.cache_creation,
                self.cache_creation_above,
                tiers,
            )
            + t.cache_creation_1h as f64 * self.cache_creation_1h.unwrap_or(self.cache_creation)
            + tiered(t.cache_read, self.cache_read, self.cache_read_above, tiers)
    }

    /// Refuses an entry whose price fields are not prices: each present and not null must
    /// be a number from 0 to [`MAX_PRICE_PER_TOKEN`].
    fn check_entry(model: &str, v: &Value) -> Result<(), String> {
        let Some(obj) = v.as_object() else {
            return Ok(());
        };
        for field in PRICE_FIELDS {
            let Some(x) = obj.get(field).filter(|x| !x.is_null()) else {
                continue;
            };
            let ok = x
                .as_f64()
                .is_some_and(|p| p.is_finite() && (0.0..=MAX_PRICE_PER_TOKEN).contains(&p));
            if !ok {
                return Err(format!(
                    "model `{}`: `{field}` is {x}; a price is a number of USD per token from 0 \
                     to {MAX_PRICE_PER_TOKEN} ($10,000 per million tokens)",
                    model.escape_debug()
                ));
            }
        }
        Ok(())
    }

    fn from_entry(v: &Value) -> Option<Price> {
        let f = |k: &str| v.get(k).and_then(Value::as_f64);
        let input = f("input_cost_per_token")?;
        let output = f("output_cost_per_token")?;
        Some(Price {
            input,
            output,
            // A table without a cache price charges those tokens as input.
            cache_creation: f("cache_creation_input_token_cost").unwrap_or(input),
            cache_read: f("cache_read_input_token_cost").unwrap_or(input),
            input_above: f("input_cost_per_token_above_200k_tokens"),
            output_above: f("output_cost_per_token_above_200k_tokens"),
            cache_creation_above: f("cache_creation_input_token_cost_above_200k_tokens"),
            cache_read_above: f("cache_read_input_token_cost_above_200k_tokens"),
            cache_creation_1h: f("cache_creation_input_token_cost_above_1hr"),
        })
    }
}

/// A price table: model name to prices, and where it comes from.
#[derive(Debug, Clone, Default)]
pub struct PriceTable {
    /// What the report names in `pricing`: source, version and date, or the file given.
    pub name: String,
    prices: HashMap<String, Price>,
}

/// Provider prefixes a model name is tried with and without.
const PREFIXES: [&str; 6] = [
    "anthropic/",
    "openai/",
    "gemini/",
    "dashscope/",
    "xai/",
    "deepseek/",
];

/// The shortest name, of a model or of a table entry, matched loosely (one containing
/// the other): a shorter one is contained in too many.
const LOOSE_MIN_CHARS: usize = 5;

/// `name` without a trailing `-YYYYMMDD` or `-YYYY-MM-DD`.
fn without_date(name: &str) -> Option<&str> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((head, tail)) = name.rsplit_once('-') {
        if tail.len() == 8 && digits(tail) {
            return Some(head);
        }
    }
    let b = name.as_bytes();
    if b.len() > 11 && b[b.len() - 11] == b'-' {
        let date = &name[b.len() - 10..];
        let parts: Vec<&str> = date.split('-').collect();
        if parts.len() == 3 && parts[0].len() == 4 && parts.iter().all(|p| digits(p)) {
            return Some(&name[..b.len() - 11]);
        }
    }
    None
}

impl PriceTable {
    /// The table compiled into the binary.
    pub fn builtin() -> PriceTable {
        // The built-in data is checked by a test; a broken build gets an empty table.
        // Read into typed entries rather than a tree of `Value`s: every `stats` run
        // starts with it, and the tree of 100 KB of JSON cost a millisecond.
        PriceTable::parse_typed(BUILTIN.as_bytes())
            .unwrap_or_else(|| PriceTable::parse(BUILTIN.as_bytes(), "").unwrap_or_default())
    }

    /// [`PriceTable::parse`] of a table whose prices are all valid numbers (the built-in
    /// one, which a test compares with the general reader's); `None` for any other.
    fn parse_typed(bytes: &[u8]) -> Option<PriceTable> {
        #[derive(serde::Deserialize)]
        struct Entry {
            input_cost_per_token: Option<f64>,
            output_cost_per_token: Option<f64>,
            cache_creation_input_token_cost: Option<f64>,
            cache_read_input_token_cost: Option<f64>,
            input_cost_per_token_above_200k_tokens: Option<f64>,
            output_cost_per_token_above_200k_tokens: Option<f64>,
            cache_creation_input_token_cost_above_200k_tokens: Option<f64>,
            cache_read_input_token_cost_above_200k_tokens: Option<f64>,
            cache_creation_input_token_cost_above_1hr: Option<f64>,
            source: Option<String>,
            versions: Option<Vec<String>>,
            date: Option<String>,
        }
        let entries: HashMap<String, Entry> = serde_json::from_slice(bytes).ok()?;
        let mut table = PriceTable::default();
        for (model, e) in entries {
            if model == "ndjq_pricing" {
                table.name = format!(
                    "{}, {}, {}",
                    e.source.as_deref().unwrap_or(""),
                    e.versions.unwrap_or_default().join(" + "),
                    e.date.as_deref().unwrap_or("")
                );
                continue;
            }
            let prices = [
                e.input_cost_per_token,
                e.output_cost_per_token,
                e.cache_creation_input_token_cost,
                e.cache_read_input_token_cost,
                e.input_cost_per_token_above_200k_tokens,
                e.output_cost_per_token_above_200k_tokens,
                e.cache_creation_input_token_cost_above_200k_tokens,
                e.cache_read_input_token_cost_above_200k_tokens,
                e.cache_creation_input_token_cost_above_1hr,
            ];
            // What the general reader would refuse, it reads.
            let valid = |p: f64| p.is_finite() && (0.0..=MAX_PRICE_PER_TOKEN).contains(&p);
            if model == "sample_spec" || !prices.iter().flatten().all(|&p| valid(p)) {
                return None;
            }
            let (Some(input), Some(output)) = (e.input_cost_per_token, e.output_cost_per_token)
            else {
                continue;
            };
            let price = Price {
                input,
                output,
                cache_creation: e.cache_creation_input_token_cost.unwrap_or(input),
                cache_read: e.cache_read_input_token_cost.unwrap_or(input),
                input_above: e.input_cost_per_token_above_200k_tokens,
                output_above: e.output_cost_per_token_above_200k_tokens,
                cache_creation_above: e.cache_creation_input_token_cost_above_200k_tokens,
                cache_read_above: e.cache_read_input_token_cost_above_200k_tokens,
                cache_creation_1h: e.cache_creation_input_token_cost_above_1hr,
            };
            table.prices.insert(model, price);
        }
        Some(table)
    }

    /// A table in LiteLLM's format (`{"model": {"input_cost_per_token": …}}`); `name`
    /// names it unless it carries an `ndjq_pricing` entry.
    pub fn parse(bytes: &[u8], name: &str) -> Result<PriceTable, String> {
        let v: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        let obj = v
            .as_object()
            .ok_or_else(|| "not a JSON object of models".to_string())?;
        let mut table = PriceTable {
            name: name.to_string(),
            prices: HashMap::new(),
        };
        if let Some(meta) = obj.get("ndjq_pricing") {
            let source = meta.get("source").and_then(Value::as_str).unwrap_or("");
            let versions: Vec<&str> = meta
                .get("versions")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let date = meta.get("date").and_then(Value::as_str).unwrap_or("");
            table.name = format!("{source}, {}, {date}", versions.join(" + "));
        }
        for (model, entry) in obj {
            if model == "sample_spec" {
                continue; // LiteLLM's description of its own fields
            }
            Price::check_entry(model, entry)?;
            if let Some(p) = Price::from_entry(entry) {
                table.prices.insert(model.clone(), p);
            }
        }
        Ok(table)
    }

    pub fn len(&self) -> usize {
        self.prices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.prices.is_empty()
    }

    /// The prices of `model`, resolved as the module documentation says.
    pub fn price(&self, model: &str) -> Option<Price> {
        self.resolve(model).map(|k| self.prices[k])
    }

    /// The table name `model` resolves to.
    pub fn resolve(&self, model: &str) -> Option<&str> {
        let get = |k: &str| self.prices.get_key_value(k).map(|(k, _)| k.as_str());
        if model.is_empty() || model.starts_with('<') {
            return None;
        }
        if let Some(k) = get(model) {
            return Some(k);
        }
        // A name with an empty `/`-segment (`foo/`, `x//`, `/`) names no model: its last
        // segment, empty, is in every table name.
        if model.split('/').any(str::is_empty) {
            return None;
        }
        for p in PREFIXES {
            if let Some(k) = get(&format!("{p}{model}")) {
                return Some(k);
            }
        }
        let bare = model.rsplit('/').next().unwrap_or(model);
        if let Some(k) = get(bare) {
            return Some(k);
        }
        if let Some(k) = without_date(bare).and_then(get) {
            return Some(k);
        }
        // The longest table name (without a provider, at least 5 characters) that
        // contains the model's, or that the model's contains; a model's name shorter than
        // that (`a/b`) is a piece of too many to choose.
        if bare.chars().count() < LOOSE_MIN_CHARS {
            return None;
        }
        let lower = bare.to_ascii_lowercase();
        self.prices
            .keys()
            .filter(|k| !k.contains('/') && k.len() >= LOOSE_MIN_CHARS)
            .filter(|k| {
                let k = k.to_ascii_lowercase();
                k.contains(&lower) || lower.contains(&k)
            })
            .max_by(|a, b| a.len().cmp(&b.len()).then_with(|| b.cmp(a)))
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_table_prices_current_and_retired_models() {
        let t = PriceTable::builtin();
        assert!(t.len() > 300, "{}", t.len());
        assert!(t.name.contains("litellm 1.109.1"), "{}", t.name);
        for m in [
            "claude-sonnet-4-20250514",
            "claude-opus-4-1-20250805",
            "claude-opus-4-6",
            "claude-haiku-4-5-20251001",
            "gpt-5-codex",
            "gemini-2.5-pro",
        ] {
            assert!(t.price(m).is_some(), "{m} unpriced");
        }
        let p = t.price("claude-sonnet-4-20250514").expect("priced");
        assert_eq!(p.input, 3e-6);
        assert_eq!(p.cache_read, 3e-7);
        assert_eq!(p.input_above, Some(6e-6));
    }

    /// The typed reader of the built-in table gives what the general reader gives.
    #[test]
    fn builtin_table_read_typed_is_the_general_reading() {
        let typed = PriceTable::parse_typed(BUILTIN.as_bytes()).expect("typed");
        let general = PriceTable::parse(BUILTIN.as_bytes(), "").expect("general");
        assert_eq!(typed.name, general.name);
        assert_eq!(typed.prices, general.prices);
        // A table the general reader refuses is not read typed either.
        let bad = br#"{"m": {"input_cost_per_token": -1, "output_cost_per_token": 0}}"#;
        assert!(PriceTable::parse_typed(bad).is_none());
        assert!(PriceTable::parse(bad, "").is_err());
    }

    #[test]
    fn names_resolve_with_prefixes_and_dates() {
        let t = PriceTable::builtin();
        assert_eq!(
            t.resolve("anthropic/claude-sonnet-4-20250514"),
            Some("claude-sonnet-4-20250514")
        );
        assert_eq!(t.resolve("<synthetic>"), None);
        // Whole names and whole segments only.
        assert_eq!(
            t.resolve("openrouter/claude-sonnet-4-20250514"),
            Some("claude-sonnet-4-20250514")
        );
        for no_name in [
            "foo/",
            "x//",
            "/",
            "a/b",
            "openai/g",
            "//claude-sonnet-4",
            "a//b",
        ] {
            assert_eq!(t.resolve(no_name), None, "{no_name}");
        }
        assert_eq!(without_date("gpt-5-2025-08-07"), Some("gpt-5"));
        assert_eq!(without_date("model-x-20250101"), Some("model-x"));
        assert_eq!(without_date("claude-opus-4-6"), None);
    }

    #[test]
    fn tiers_apply_per_request_above_200k() {
        let p = Price {
            input: 1.0,
            input_above: Some(2.0),
            ..Price::default()
        };
        let t = Billed {
            input: 200_010,
            ..Billed::default()
        };
        assert_eq!(p.cost(t, true), 200_000.0 + 20.0);
        assert_eq!(p.cost(t, false), 200_010.0);
    }
}
