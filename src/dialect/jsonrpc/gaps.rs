//! What a JSON-RPC message tells the gap trackers: requests and responses by id, matched
//! as JSON values (their compact text: `"1"` and `1` differ), whichever side sent them.

use crate::gaps::{put, Op};
use crate::json::Json;

/// JSON-RPC: requests and responses by id.
pub(in crate::dialect) fn ops(value: Json<'_>, ops: &mut Vec<Op>, text: &mut String) {
    let Some(id) = value.get("id") else { return };
    let key = put(text, &id.to_compact_string());
    if let Some(method) = value.get("method") {
        ops.push(Op::Request {
            key,
            method: put(text, method.as_str().unwrap_or("?")),
        });
    } else if value.has("result") || value.has("error") {
        ops.push(Op::Response { key });
    }
}

#[cfg(test)]
mod tests {
    //! JSON-RPC messages through the trackers.

    use crate::diagnostic::Code;
    use crate::gaps::testing::gaps;

    #[test]
    fn rpc_ids_are_values_and_the_cap_drops_the_oldest() {
        let text = "{\"id\":1,\"method\":\"a\"}\n{\"id\":\"1\",\"result\":{}}\n{\"id\":2,\"method\":\"b\"}\n{\"id\":3,\"method\":\"c\"}\n";
        let got = gaps(text, 2);
        let codes: Vec<(u64, Code)> = got.iter().map(|(l, c, _)| (*l, *c)).collect();
        assert_eq!(
            codes,
            [
                (2, Code::RpcUnmatchedResponse),
                (4, Code::RpcUnanswered),
                (3, Code::RpcUnanswered),
                (4, Code::RpcUnanswered),
            ]
        );
        assert!(got
            .iter()
            .any(|(_, _, m)| m.contains("more than 2 open requests")));
    }
}
