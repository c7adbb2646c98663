import PathwatchJSON
import PathwatchProbeKit

/// What a response must hold besides its status: `expect_body`, `expect_json` and
/// `expect_header`, checked when the configuration is loaded (every pointer and expression is
/// parsed once, errors name their JSON path) and judged per response by `ConditionJudge`.
struct ResponseConditions {
    /// `expect_json`: the value at `pointer` must equal `expected`.
    struct JSONExpectation {
        let pointer: JSONPointer
        let expected: JSONValue
    }

    /// `expect_header`: some value of header `name` equals `exact`, or matches `regex`.
    struct HeaderExpectation {
        /// As written in the config, for messages.
        let name: String
        let lowercased: String
        let exact: String?
        let regex: BoundedRegex?
    }

    static let defaultMaxBody = 1 << 20
    /// Far beyond any health answer, low enough that a wrong unit cannot undo the bound.
    static let largestMaxBody = 64 << 20

    var body: BodyPattern?
    var json: [JSONExpectation] = []
    var headers: [HeaderExpectation] = []
    /// The most body bytes kept for `body` and `json`.
    var maxBody = defaultMaxBody

    /// Whether the response body must be kept (up to `maxBody`) to judge the conditions.
    var keepsBody: Bool { body != nil || !json.isEmpty }
    var isEmpty: Bool { !keepsBody && headers.isEmpty }

    init() {}

    /// Validates the condition keys of a target at `path`. `hasBody` is false for HEAD.
    init(_ config: TargetConfig, hasBody: Bool, at path: JSONPath) throws(ProbeConfigError) {
        func fail(_ key: String, _ message: String) -> ProbeConfigError {
            ProbeConfigError(path: path.appending(key), message: message)
        }
        if let text = config.expectBody {
            guard hasBody else { throw fail("expect_body", "a HEAD request has no body to search") }
            do {
                body = try BodyPattern(parsing: text)
            } catch {
                let what = BodyPattern.slashed(text) != nil ? "not a valid regular expression: " : ""
                throw fail("expect_body", what + error.message)
            }
        }
        if let members = config.expectJSON?.members {
            guard hasBody else { throw fail("expect_json", "a HEAD request has no body to read") }
            guard !members.isEmpty else { throw fail("expect_json", "expected at least one \"/pointer\": value") }
            for (pointer, expected) in members {
                do {
                    json.append(JSONExpectation(pointer: try JSONPointer(parsing: pointer), expected: expected))
                } catch {
                    throw ProbeConfigError(
                        path: path.appending("expect_json").appending(pointer), message: error.message)
                }
            }
        }
        if let fields = config.expectHeader?.fields {
            guard !fields.isEmpty else { throw fail("expect_header", "expected at least one \"Name\": \"value\"") }
            var seen: [String: String] = [:]
            for (name, value) in fields {
                let headerPath = path.appending("expect_header").appending(name)
                guard TargetSpec.isToken(name) else {
                    throw ProbeConfigError(
                        path: headerPath, message: "not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)")
                }
                if let other = seen[name.lowercased()] {
                    throw ProbeConfigError(
                        path: headerPath,
                        message: "header names are case-insensitive: \"\(name)\" is \"\(other)\" again")
                }
                seen[name.lowercased()] = name
                var regex: BoundedRegex?
                if let pattern = BodyPattern.slashed(value) {
                    do {
                        regex = try BoundedRegex(pattern)
                    } catch {
                        throw ProbeConfigError(
                            path: headerPath, message: "not a valid regular expression: \(error.message)")
                    }
                }
                headers.append(
                    HeaderExpectation(
                        name: name, lowercased: name.lowercased(), exact: regex == nil ? value : nil, regex: regex))
            }
        }
        if let size = config.maxBody {
            guard keepsBody else {
                throw fail("max_body", "applies only with expect_body or expect_json (nothing else keeps the body)")
            }
            guard size.bytes >= 1, size.bytes <= UInt64(Self.largestMaxBody) else {
                throw fail(
                    "max_body", "expected 1 byte to \(ByteSize(bytes: UInt64(Self.largestMaxBody))), found \(size)")
            }
            maxBody = Int(size.bytes)
        }
    }
}

/// `expect_json` as written: pointers with the values expected there, in document order.
struct JSONExpectations: Decodable {
    var members: [(pointer: String, value: JSONValue)]

    init(from decoder: any Decoder) throws {
        members = try OrderedMembers<JSONValue>(from: decoder).members.map { ($0.name, $0.value) }
    }
}
