use super::*;

fn accepts(s: &str) -> bool {
    Doc::new().parse(s, 128)
}

#[test]
fn grammar_follows_serde_json() {
    let cases = [
        r#"{"a":1}"#,
        r#" [1, -0, 0.5, 1e5, 1E-5, -1.5e+3, "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"] "#,
        r#"{"a":{"b":[[],{}]},"a":null}"#,
        "true",
        "1E400",
        "1e-400",
        "01",
        "1.",
        ".5",
        "-",
        "[1,]",
        r#"{"a":1,}"#,
        r#"{"a" 1}"#,
        r#""\ud800""#,
        r#""\udc00""#,
        r#""\ud800\u0041""#,
        r#""\x""#,
        "\"a\u{1}\"",
        "\"tab\there\"",
        "[1 2]",
        "{}x",
        "nul",
        "\u{feff}{}",
        "[\"é😀\"]",
        &"9".repeat(400),
        &format!("0.{}", "9".repeat(400)),
    ];
    for case in cases {
        let theirs = serde_json::from_str::<serde_json::Value>(case).is_ok();
        assert_eq!(accepts(case), theirs, "{case:?}");
    }
}

/// `len` bytes of `pool`, the same for a seed.
fn random_bytes(seed: u64, len: usize, pool: &[u8]) -> Vec<u8> {
    let mut rng = crate::test_rng::Rng::new(seed | 1);
    (0..len).map(|_| pool[rng.below(pool.len())]).collect()
}

type Masks = (u64, u64, u64, u64);
type MaskMaker = (&'static str, fn(&[u8; 64]) -> Masks);

/// Every way of making a block's masks, on this CPU.
fn mask_makers() -> Vec<MaskMaker> {
    #[allow(unused_mut)]
    let mut makers: Vec<MaskMaker> = vec![("portable", portable_masks)];
    #[cfg(target_arch = "x86_64")]
    {
        #[allow(unsafe_code)]
        fn sse2(block: &[u8; 64]) -> Masks {
            // SAFETY: SSE2 is part of x86-64.
            unsafe { sse2_masks(block) }
        }
        makers.push(("sse2", sse2));
        if std::arch::is_x86_feature_detected!("avx2") {
            #[allow(unsafe_code)]
            fn avx2(block: &[u8; 64]) -> Masks {
                // SAFETY: only pushed after the CPU was found to have AVX2.
                unsafe { avx2_masks(block, &mut utf8::Utf8::new(), &MaskBytes::new()) }
            }
            makers.push(("avx2", avx2));
        }
    }
    makers
}

type Stage1 = (&'static str, fn(&[u8], &mut Doc) -> bool);

/// Every compilation of stage 1 this CPU can run, SSE2's last. `stage1` takes the
/// first; the tests hold every one to the plain code and to the standard library.
fn stage1_paths() -> Vec<Stage1> {
    #[allow(unused_mut)]
    let mut paths: Vec<Stage1> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if has!("avx512bw") && has!("avx512vl") && has!("avx2") && has!("pclmulqdq") {
            #[allow(unsafe_code)]
            fn avx512(b: &[u8], doc: &mut Doc) -> bool {
                // SAFETY: only listed after the CPU was found to have these features.
                unsafe { stage1_avx512(b, doc) }
            }
            paths.push(("avx512", avx512));
        }
        if has!("avx2") && has!("pclmulqdq") {
            #[allow(unsafe_code)]
            fn avx2(b: &[u8], doc: &mut Doc) -> bool {
                // SAFETY: only listed after the CPU was found to have these features.
                unsafe { stage1_avx2(b, doc) }
            }
            paths.push(("avx2", avx2));
        }
        #[allow(unsafe_code)]
        fn sse2(b: &[u8], doc: &mut Doc) -> bool {
            // SAFETY: SSE2 is part of x86-64.
            unsafe { stage1_sse2(b, doc) }
        }
        paths.push(("sse2", sse2));
    }
    paths
}

#[test]
fn block_masks_match_the_bytes() {
    let all: Vec<u8> = (0..=255).collect();
    for (name, masks) in mask_makers() {
        for seed in 0..200 {
            let bytes = random_bytes(seed, 64, &all);
            let block: &[u8; 64] = bytes.first_chunk().expect("64 bytes");
            let (q, s, c, n) = masks(block);
            for (i, &b) in bytes.iter().enumerate() {
                assert_eq!(
                    q >> i & 1 == 1,
                    b == b'"',
                    "{name}: quote at {i} of {bytes:?}"
                );
                assert_eq!(s >> i & 1 == 1, b == b'\\', "{name}: backslash at {i}");
                assert_eq!(c >> i & 1 == 1, b < 0x20, "{name}: control at {i}: {b:#x}");
                assert_eq!(n >> i & 1 == 1, b == b'n', "{name}: n at {i}");
            }
        }
    }
}

/// Every compiled path gives what the plain code gives, and `stage1` takes one of them.
#[test]
fn stage1_is_the_same_on_every_path() {
    let pool = b"\\\"\"an u0/\x01{}[]:,\xc3\xa9";
    let paths = stage1_paths();
    for seed in 0..300u64 {
        let raw = random_bytes(seed, 1 + (seed as usize * 13) % 400, pool);
        // Mostly not UTF-8 (a lone 0xC3 or 0xA9): the verdict alone, then the masks
        // of the same bytes made UTF-8 (each bad byte an U+FFFD).
        let repaired = String::from_utf8_lossy(&raw).into_owned().into_bytes();
        for bytes in [raw, repaired] {
            let mut plain = Doc::new();
            let strings_ok = stage1_body!(&bytes, &mut plain, portable_masks, prefix_xor);
            let is_utf8 = std::str::from_utf8(&bytes).is_ok();
            let expected = is_utf8 && strings_ok;
            let mut taken = Doc::new();
            assert_eq!(stage1(&bytes, &mut taken), expected, "{bytes:?}");
            for (name, path) in &paths {
                let mut doc = Doc::new();
                assert_eq!(path(&bytes, &mut doc), expected, "{name}: {bytes:?}");
                if !is_utf8 {
                    // A path may stop at the UTF-8 verdict.
                    continue;
                }
                assert_eq!(doc.quotes, plain.quotes, "{name}");
                assert_eq!(doc.slashes, plain.slashes, "{name}");
                assert_eq!(doc.unicode, plain.unicode, "{name}");
                assert_eq!(doc.solidus, plain.solidus, "{name}");
            }
            if is_utf8 {
                assert_eq!(taken.quotes, plain.quotes);
                assert_eq!(taken.slashes, plain.slashes);
            }
        }
    }
}

/// Stage 1's UTF-8 verdict is the standard library's, on every path: every sequence of
/// up to four of the bytes where UTF-8's rules change, after every number of ASCII
/// bytes that puts it across the edge of a 32-byte vector or a 64-byte block, and
/// followed by ASCII, by more of the same, or by nothing (the end of the record).
#[test]
fn utf8_in_stage1_is_std_s_verdict() {
    let edges: &[u8] = &[
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
        0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF8, 0xFF,
    ];
    let mut sequences: Vec<Vec<u8>> = Vec::new();
    for &a in edges {
        sequences.push(vec![a]);
        for &b in edges {
            sequences.push(vec![a, b]);
            if a >= 0xC0 {
                for &c in edges {
                    sequences.push(vec![a, b, c]);
                    if a >= 0xF0 && (0x80..0xC0).contains(&b) && (0x80..0xC0).contains(&c) {
                        for &d in edges {
                            sequences.push(vec![a, b, c, d]);
                        }
                    }
                }
            }
        }
    }
    let paths = stage1_paths();
    let mut checked = 0;
    let mut valid = 0;
    // Miri runs every 97th sequence at two places (each takes it a while).
    let leads: &[usize] = if cfg!(miri) {
        &[30, 62]
    } else {
        &[0, 1, 29, 30, 31, 32, 60, 61, 62, 63, 64, 95]
    };
    let step = if cfg!(miri) { 97 } else { 1 };
    for seq in sequences.iter().step_by(step) {
        for &lead in leads {
            for tail in [&b""[..], b"a", "é".as_bytes(), seq] {
                let mut bytes = vec![b'a'; lead];
                bytes.extend_from_slice(seq);
                bytes.extend_from_slice(tail);
                let theirs = std::str::from_utf8(&bytes).is_ok();
                let mut doc = Doc::new();
                assert_eq!(stage1(&bytes, &mut doc), theirs, "{bytes:x?}");
                for (name, path) in &paths {
                    assert_eq!(path(&bytes, &mut doc), theirs, "{name}: {bytes:x?}");
                }
                checked += 1;
                valid += usize::from(theirs);
            }
        }
    }
    assert!(
        (checked > 100_000 || cfg!(miri)) && valid > checked / 50,
        "{valid} of {checked}"
    );
    // A character may also end exactly at a block's end, or begin in the padding of a
    // last short block.
    for len in (60..=200).step_by(if cfg!(miri) { 29 } else { 1 }) {
        let mut text: String = "a".repeat(len);
        text.push('😀');
        let cut = &text.as_bytes()[..text.len() - 1];
        assert!(stage1(text.as_bytes(), &mut Doc::new()), "{len}");
        assert!(!stage1(cut, &mut Doc::new()), "cut at {len}");
        for (name, path) in &paths {
            assert!(path(text.as_bytes(), &mut Doc::new()), "{name}: {len}");
            assert!(!path(cut, &mut Doc::new()), "{name}: cut at {len}");
        }
    }
}

/// Stage 1's quotes are the quotes not escaped by an odd run of backslashes, across
/// block boundaries too: checked against a byte-by-byte reading.
#[test]
fn escaped_quotes_match_a_byte_by_byte_reading() {
    for seed in 0..500 {
        let len = 1 + (seed as usize * 7) % 300;
        let bytes = random_bytes(seed, len, b"\\\\\\\"\"a ");
        let mut doc = Doc::new();
        stage1(&bytes, &mut doc);
        let mut escaped = false;
        for (i, &b) in bytes.iter().enumerate() {
            let bit = doc.quotes[i / 64] >> (i % 64) & 1 == 1;
            assert_eq!(bit, b == b'"' && !escaped, "byte {i} of {bytes:?}");
            escaped = b == b'\\' && !escaped;
        }
    }
}

/// Random texts made of JSON's pieces: the tape parser accepts exactly what
/// serde_json accepts, and reads back the same strings.
#[test]
fn random_texts_get_serde_jsons_verdict() {
    let pieces: [&str; 24] = [
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "\"k\"",
        "\\",
        "\\\"",
        "\\u00e9",
        "\\ud83d",
        "\\ude00",
        "1",
        "-0",
        "2.5e3",
        "true",
        "null",
        " ",
        "\n",
        "\u{1}",
        "é",
        "x",
        "\"a\\\\b\"",
    ];
    let mut accepted = 0;
    let runs = if cfg!(miri) { 500 } else { 20_000u64 };
    for seed in 0..runs {
        let picks = random_bytes(
            seed,
            1 + (seed as usize % 12),
            &(0..24).collect::<Vec<u8>>(),
        );
        let text: String = picks.iter().map(|&p| pieces[usize::from(p)]).collect();
        let theirs = serde_json::from_str::<serde_json::Value>(&text);
        let mut doc = Doc::new();
        assert_eq!(doc.parse(&text, 128), theirs.is_ok(), "{text:?}");
        if let Ok(serde_json::Value::String(s)) = theirs {
            accepted += 1;
            assert_eq!(doc.text(&text, &doc.nodes[0]), s, "{text:?}");
        }
    }
    assert!(
        accepted > runs / 200,
        "the pieces make valid strings too: {accepted}"
    );
}

/// One `Doc` reused from record to record, as the pipeline reuses it (stage 1 does not
/// zero the last record's masks first), reads every record as a fresh one does: long
/// records and short ones in turn, strings full of quotes and backslashes, some records
/// cut short.
#[test]
fn a_reused_doc_reads_as_a_fresh_one() {
    let mut reused = Doc::new();
    let runs = if cfg!(miri) { 100 } else { 4_000u64 };
    let mut parsed = 0;
    for seed in 0..runs {
        let len = match seed % 3 {
            0 => 200 + seed as usize % 900,
            1 => seed as usize % 40,
            _ => 60 + seed as usize % 70,
        };
        let text = String::from_utf8(random_bytes(seed, len, b"ab\"\\ \n{}:,")).unwrap_or_default();
        let value = serde_json::json!({"k": text, "n": [1, {"s": text.len()}]});
        let mut record = value.to_string().into_bytes();
        if seed % 5 == 0 {
            record.truncate(record.len() * 2 / 3);
        }
        let mut fresh = Doc::new();
        let theirs = fresh.parse_bytes(&record, 128).is_some();
        let ours = reused.parse_bytes(&record, 128).is_some();
        assert_eq!(ours, theirs, "seed {seed}");
        if !theirs {
            continue;
        }
        parsed += 1;
        let shape = |d: &Doc| -> Vec<(Tag, u32, u32)> {
            d.nodes.iter().map(|n| (n.tag, n.a, n.b)).collect()
        };
        assert_eq!(shape(&reused), shape(&fresh), "seed {seed}");
        let src = std::str::from_utf8(&record).unwrap_or_default();
        for (r, f) in reused.nodes.iter().zip(&fresh.nodes) {
            if matches!(r.tag, Tag::Str | Tag::Escaped) {
                assert_eq!(reused.text(src, r), fresh.text(src, f), "seed {seed}");
            }
        }
    }
    assert!(parsed > runs / 2, "most records are whole: {parsed}");
}

/// Long strings dense with escapes of every kind (so escapes meet at the edges of the
/// mask's words, and `\\\\` is followed by other escapes) read as serde_json reads them.
#[test]
fn long_escaped_strings_read_as_serde_json_reads_them() {
    let pieces: [&str; 12] = [
        "\\n",
        "\\\\",
        "\\\"",
        "\\u00e9",
        "\\ud83d\\ude00",
        "\\/",
        "\\t",
        "a",
        "bc",
        "é",
        "\\\\n",
        " ",
    ];
    let runs = if cfg!(miri) { 50 } else { 3_000u64 };
    for seed in 0..runs {
        let picks = random_bytes(seed, seed as usize % 300, &(0..12).collect::<Vec<u8>>());
        let body: String = picks.iter().map(|&p| pieces[usize::from(p)]).collect();
        let text = format!("[\"{body}\"]");
        let theirs: Vec<String> = serde_json::from_str(&text).expect("valid JSON");
        let mut doc = Doc::new();
        assert!(doc.parse(&text, 8), "{text}");
        assert_eq!(doc.text(&text, &doc.nodes[1]), theirs[0], "{text}");
    }
}

#[test]
fn string_ends_match_the_two_searches() {
    let quotes = [0x8000_0000_0000_0001u64, 0, 0x10, 1 << 63];
    let slash_sets = [[0u64; 4], [!0; 4], [0, 1 << 5, 0, 0], [0x2, 0, 0x8, 0x4000]];
    for slashes in slash_sets {
        for from in 0..256 {
            let expect = next_bit(&quotes, from).map(|end| (end, any_bit(&slashes, from, end)));
            assert_eq!(string_end(&quotes, &slashes, from), expect, "from {from}");
        }
    }
}

#[test]
fn bit_searches_match_a_scan() {
    let bits = [0x8000_0000_0000_0001u64, 0, 0x10, 1 << 63];
    let set = |i: usize| bits[i / 64] >> (i % 64) & 1 == 1;
    for from in 0..256 {
        let expect = (from..256).find(|&i| set(i));
        assert_eq!(next_bit(&bits, from), expect, "next from {from}");
        for to in from..=256 {
            let expect = (from..to).any(set);
            assert_eq!(any_bit(&bits, from, to), expect, "any in {from}..{to}");
        }
    }
}

#[test]
fn depth_is_bounded() {
    let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(Doc::new().parse(&nest(4), 4));
    assert!(!Doc::new().parse(&nest(5), 4));
    let deep = if cfg!(miri) { 500 } else { 100_000 };
    assert!(!Doc::new().parse(&"[".repeat(deep), 128));
}

/// The raw text of a string is offered for copying exactly when it is what serde_json
/// writes for the string's value: one case per kind of escape.
#[test]
fn canonical_raw_is_offered_only_where_serde_json_writes_the_same() {
    let cases = [
        ("\"plain é 😀 \u{7f}\"", true),
        (r#""""#, true),
        (r#""a\"b\\c\nd\re\tf\bg\fh""#, true),
        (r#""\u0000\u0001\u001f\u000b\u001b""#, true),
        (r#""\/""#, false),
        (r#""a\u00e9""#, false),
        (r#""\u001F""#, false),
        (r#""\u001B""#, false),
        (r#""\ud83d\ude00""#, false),
        (r#""\u0008""#, false),
        (r#""\u0009""#, false),
        (r#""\u000a""#, false),
        (r#""\u000c""#, false),
        (r#""\u000d""#, false),
        (r#""\u0020""#, false),
        (r#""\u007f""#, false),
        (r#""\u0022""#, false),
        (r#""\u005c""#, false),
        (r#""\\/""#, true),
        (r#""\\u00e9""#, true),
    ];
    for (literal, canonical) in cases {
        let mut doc = Doc::new();
        assert!(doc.parse(literal, 8), "{literal}");
        let raw = doc.canonical_raw(literal, &doc.nodes[0]);
        assert_eq!(raw.is_some(), canonical, "{literal}");
        let value: String = serde_json::from_str(literal).expect("valid");
        let theirs = serde_json::to_string(&value).expect("serde_json writes");
        if let Some(raw) = raw {
            assert_eq!(format!("\"{raw}\""), theirs, "{literal}");
        }
    }
}

/// An escape stage 1 listed is looked for in its own string only: the strings around
/// one with `\/` or `\u00e9` are still copied, and the one holding it is not.
#[test]
fn canonical_raw_looks_at_its_own_string_only() {
    let src = r#"["a\nb", "\/", "c\"d", "\u00e9", "\u0001", {"k\/": "\t"}]"#;
    let mut doc = Doc::new();
    assert!(doc.parse(src, 8));
    let offered: Vec<Option<&str>> = doc.nodes[1..]
        .iter()
        .filter(|n| matches!(n.tag, Tag::Str | Tag::Escaped))
        .map(|n| doc.canonical_raw(src, n))
        .collect();
    let expect = [
        Some(r"a\nb"),
        None,
        Some(r#"c\"d"#),
        None,
        Some(r"\u0001"),
        None,
        Some(r"\t"),
    ];
    assert_eq!(offered, expect);
    assert_eq!(doc.canonical_raw(src, &doc.nodes[0]), None, "not a string");
}

#[test]
fn escapes_are_unescaped_when_read() {
    let src = r#"["a\"b\\c\/\b\f\n\r\t\u00e9\ud83d\ude00", "plain"]"#;
    let mut doc = Doc::new();
    assert!(doc.parse(src, 8));
    let expect: Vec<String> = serde_json::from_str(src).expect("valid");
    let texts: Vec<&str> = doc.nodes[1..].iter().map(|n| doc.text(src, n)).collect();
    assert_eq!(texts, expect);
    assert_eq!(doc.nodes[0].a, 2, "two elements");
    assert_eq!(doc.nodes[0].b, 2, "two nodes after the array");
}
