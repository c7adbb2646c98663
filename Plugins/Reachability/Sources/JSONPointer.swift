import PathwatchJSON
import PathwatchProbeKit

/// An RFC 6901 JSON pointer ("/checks/0/ok"), parsed once from the config so a malformed one is
/// refused at load rather than failing every sample.
struct JSONPointer: Equatable, CustomStringConvertible {
    /// The reference tokens, unescaped ("~1" is "/", "~0" is "~").
    let tokens: [String]
    /// As written in the config, for messages.
    let text: String

    /// "" is the whole document; anything else starts with "/". Throws why it is not a pointer.
    init(parsing text: String) throws(PointerProblem) {
        self.text = text
        guard !text.isEmpty else {
            tokens = []
            return
        }
        guard text.hasPrefix("/") else {
            throw PointerProblem("a JSON pointer starts with \"/\" (like \"/status\"), or is \"\" for the whole body")
        }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            // "~" is only ever "~0" or "~1"; "~1" is unescaped before "~0" (RFC 6901 §4), so
            // "~01" is the text "~1".
            var token = ""
            var scalars = raw.unicodeScalars.makeIterator()
            while let scalar = scalars.next() {
                guard scalar == "~" else {
                    token.unicodeScalars.append(scalar)
                    continue
                }
                switch scalars.next() {
                case "0": token.append("~")
                case "1": token.append("/")
                default: throw PointerProblem("\"~\" must be followed by 0 (for \"~\") or 1 (for \"/\")")
                }
            }
            tokens.append(token)
        }
        self.tokens = tokens
    }

    /// The value the pointer refers to in `document`, or nil when there is none. An array index
    /// is decimal digits without a leading zero; "-" (past the end) never refers to a value.
    func resolve(in document: JSONValue) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let object):
                guard let member = object[token] else { return nil }
                current = member
            case .array(let items):
                guard let index = Self.arrayIndex(token), index < items.count else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    static func arrayIndex(_ token: String) -> Int? {
        guard !token.isEmpty, token.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            token == "0" || !token.hasPrefix("0")
        else { return nil }
        return Int(token)
    }

    var description: String { text.isEmpty ? "\"\"" : text }
}

/// Why a pointer was refused.
struct PointerProblem: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
