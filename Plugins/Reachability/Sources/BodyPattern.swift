/// `expect_body`: text the kept body must contain, or, written `"/…/"`, a regular expression
/// (RE2's syntax, matched in linear time: see `BoundedRegex`) it must match.
struct BodyPattern {
    enum Kind {
        case substring([UInt8])
        case regex(BoundedRegex)
    }

    let kind: Kind
    /// How the condition reads in a message: `"healthy"` or `/ready/`, one line, bounded.
    let label: String

    /// Throws why `text` cannot be used: empty, or an expression RE2 refuses.
    init(parsing text: String) throws(RegexProblem) {
        if let pattern = Self.slashed(text) {
            guard !pattern.isEmpty else {
                throw RegexProblem(message: "the regular expression between the slashes is empty")
            }
            kind = .regex(try BoundedRegex(pattern))
            label = MessageFormat.bounded("/\(pattern)/", limit: MessageFormat.configLimit)
        } else {
            guard !text.isEmpty else { throw RegexProblem(message: "must not be empty") }
            kind = .substring(Array(text.utf8))
            label = MessageFormat.quoted(text)
        }
    }

    /// The expression inside `/…/`, or nil for plain text ("/" alone is text).
    static func slashed(_ text: String) -> String? {
        guard text.count >= 2, text.hasPrefix("/"), text.hasSuffix("/") else { return nil }
        return String(text.dropFirst().dropLast())
    }

    /// Whether `body` holds the text or matches the expression; only a search that ran out of
    /// memory does not answer.
    func search(_ body: UnsafeRawBufferPointer) -> BoundedRegex.Outcome {
        switch kind {
        case .substring(let needle): BodySearch.contains(body, needle) ? .matched : .notMatched
        case .regex(let regex): regex.search(body)
        }
    }
}
