import PathwatchJSON
import PathwatchProbeKit

/// Judges a response against its target's conditions, right when its transfer finishes (so the
/// kept body can be freed before the next one fills the handle). Each failure is one message
/// that names the condition and shows what was seen, bounded (`MessageFormat.seenLimit`); a
/// header value is shown only when its name cannot hold a credential, and what the config
/// expected of a header is never repeated.
struct ConditionJudge {
    let conditions: ResponseConditions

    /// The failures, in the order expect_body, expect_json, expect_header; empty when all hold.
    func failures(body: [UInt8], cut: Bool, headers: [String: [String]]) -> [String] {
        var out: [String] = []
        if let pattern = conditions.body {
            switch body.withUnsafeBytes({ pattern.search($0) }) {
            case .matched: break
            case .notMatched: out.append("expect_body \(pattern.label): \(notFound(body, cut: cut))")
            case .failed(let reason): out.append("expect_body \(pattern.label): the search failed (\(reason))")
            }
        }
        if !conditions.json.isEmpty { out += jsonFailures(body, cut: cut) }
        for expectation in conditions.headers {
            if let failure = headerFailure(expectation, values: headers[expectation.lowercased] ?? []) {
                out.append(failure)
            }
        }
        return out
    }

    /// "not found in the body (2 bytes): \"ok\"", or in the first `max_body` bytes when cut.
    func notFound(_ body: [UInt8], cut: Bool) -> String {
        guard !body.isEmpty else { return "the body is empty" }
        let seen = body.withUnsafeBytes { MessageFormat.seen($0) }
        if cut {
            return "not found in the first \(MessageFormat.size(body.count)) (max_body; the rest was not read): \(seen)"
        }
        return "not found in the body (\(MessageFormat.size(body.count))): \(seen)"
    }

    func jsonFailures(_ body: [UInt8], cut: Bool) -> [String] {
        guard !body.isEmpty else { return ["expect_json: the body is empty, not JSON"] }
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes: body)
        } catch {
            let seen = body.withUnsafeBytes { MessageFormat.seen($0) }
            if cut {
                return [
                    "expect_json: the body is not complete JSON, cut at max_body (\(MessageFormat.size(body.count))): \(seen)"
                ]
            }
            let reason = MessageFormat.bounded(error.description, limit: MessageFormat.seenLimit)
            return ["expect_json: the body is not JSON (\(reason)): \(seen)"]
        }
        var out: [String] = []
        for expectation in conditions.json {
            let pointer = MessageFormat.bounded(expectation.pointer.description, limit: MessageFormat.configLimit)
            let expected = MessageFormat.bounded(
                JSONSerializer.serialize(expectation.expected), limit: MessageFormat.configLimit)
            guard let found = expectation.pointer.resolve(in: document) else {
                out.append("expect_json \(pointer): missing (expected \(expected))")
                continue
            }
            guard !Self.same(found, expectation.expected) else { continue }
            let shown = MessageFormat.bounded(JSONSerializer.serialize(found), limit: MessageFormat.seenLimit)
            out.append("expect_json \(pointer): expected \(expected), found \(shown)")
        }
        return out
    }

    func headerFailure(_ expectation: ResponseConditions.HeaderExpectation, values: [String]) -> String? {
        let name = expectation.name
        guard !values.isEmpty else { return "expect_header \(name): missing" }
        var unanswered: String?
        let matched = values.contains { value in
            if let exact = expectation.exact { return value == exact }
            guard let regex = expectation.regex else { return false }
            switch Array(value.utf8).withUnsafeBytes({ regex.search($0) }) {
            case .matched: return true
            case .notMatched: return false
            case .failed(let reason): unanswered = "the search failed (\(reason))"
            }
            return false
        }
        guard !matched else { return nil }
        // A search that failed is not "no match": say so (the value itself stays unshown).
        if let unanswered { return "expect_header \(name): \(unanswered)" }
        if Self.mayHoldSecret(expectation.lowercased) {
            return "expect_header \(name): no match (the value is not shown: this header may hold a credential)"
        }
        let shown = values.map { "\"\(MessageFormat.bounded($0, limit: MessageFormat.seenLimit))\"" }.prefix(3)
        return "expect_header \(name): no match, found \(shown.joined(separator: ", "))"
            + (values.count > 3 ? ", …" : "")
    }

    /// Header names whose values are credentials or sessions (lower-cased).
    static func mayHoldSecret(_ name: String) -> Bool {
        ["cookie", "auth", "token", "secret", "key", "session", "password", "credential", "signature"].contains {
            name.contains($0)
        }
    }

    /// JSON equality as people mean it: numbers by value (integers digit for digit, however
    /// large), objects regardless of member order.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            return x.count == y.count
                && x.members.allSatisfy { member in y[member.key].map { same(member.value, $0) } ?? false }
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.number(let x), .largeInteger(let y)), (.largeInteger(let y), .number(let x)):
            // An integer literal at or beyond 2^53 against a number written with a fraction or
            // an exponent (1e16): exact through Int64 where the double is an integer in range;
            // beyond it, both sides were written as approximations or exceed any counter.
            if let integer = Int64(exactly: x) { return String(integer) == y }
            return Double(y) == x
        default:
            return a == b
        }
    }
}
