import CRE2Shim

/// RE2's refusal of a pattern, worded for a configuration error: what is wrong, and the byte
/// offset in the pattern where, never the pattern itself (an `expect_header` pattern may hold a
/// secret). The constructs RE2 leaves out are named (`RefusedConstruct`); any other refusal is
/// said in RE2's words.
struct RegexRefusal: Error {
    let kind: pw_re2_error
    /// RE2's words for `kind` ("missing )").
    let reason: String
    /// The part of the pattern RE2 blamed (its error_arg): what names the construct and finds
    /// the offset, never shown.
    let fragment: [UInt8]

    func message(for pattern: [UInt8]) -> String {
        let offset = offset(in: pattern)
        if let construct = RefusedConstruct(kind: kind, fragment: fragment, pattern: pattern, offset: offset) {
            return construct.message(at: offset)
        }
        let place = offset.map { " at offset \($0)" } ?? ""
        switch kind {
        case PW_RE2_REPEAT_SIZE:
            return "\(reason)\(place) (a repeat count is at most 1000, nested counts multiplied)"
        case PW_RE2_PATTERN_TOO_LARGE:
            return
                "\(reason) (its program needs more than \(RegexLimits.programBudget >> 10) KiB; a repeat copies what it repeats)"
        default:
            return reason + place
        }
    }

    /// Where RE2 stopped in `pattern`. RE2 reads left to right and refuses at the first fault,
    /// having read the fragment it blames and perhaps a byte or two more: every prefix of the
    /// pattern from there on is refused alike, and a shorter one is not (it ends before the
    /// fault, or inside what it reads as something else: a class, a `\Q…\E` quote, an escape).
    /// The fault is the fragment's last occurrence that ends within the shortest such prefix.
    /// Nil when RE2 blames the whole pattern (a parenthesis left open or closed once too often).
    func offset(in pattern: [UInt8]) -> Int? {
        switch kind {
        case PW_RE2_TRAILING_BACKSLASH: return pattern.count - 1
        case PW_RE2_MISSING_PAREN, PW_RE2_UNEXPECTED_PAREN, PW_RE2_PATTERN_TOO_LARGE, PW_RE2_OUT_OF_MEMORY:
            return nil
        default: break
        }
        guard !fragment.isEmpty, fragment.count <= pattern.count else { return nil }
        var read = pattern.count
        while read > fragment.count, refusesAlike(Array(pattern[..<(read - 1)])) { read -= 1 }
        return stride(from: read - fragment.count, through: 0, by: -1).first {
            pattern[$0..<$0 + fragment.count].elementsEqual(fragment)
        }
    }

    /// Whether RE2 refuses `prefix` as it refused the whole pattern, parsing it alone (nothing
    /// compiled).
    func refusesAlike(_ prefix: [UInt8]) -> Bool {
        let again = Self.filled(room: prefix.count) { problem in
            prefix.withUnsafeBufferPointer { pw_re2_parses($0.baseAddress, $0.count, &problem) == 1 }
        }
        return again?.kind == kind && again?.fragment == fragment
    }

    /// The refusal `call` fills in (a problem with room for `room` bytes of fragment), or nil
    /// when it returns true: it did not refuse.
    static func filled(room: Int, _ call: (inout pw_re2_problem) -> Bool) -> RegexRefusal? {
        var fragment = [UInt8](repeating: 0, count: room)
        var problem = pw_re2_problem()
        let accepted = fragment.withUnsafeMutableBufferPointer { space in
            problem.fragment = space.baseAddress
            problem.fragment_capacity = space.count
            return call(&problem)
        }
        guard !accepted else { return nil }
        return RegexRefusal(
            kind: problem.kind, reason: problem.reason.map { String(cString: $0) } ?? "unexpected error",
            fragment: Array(fragment.prefix(problem.fragment_length)))
    }
}
