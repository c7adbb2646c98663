import CRE2Shim

/// A regular expression of `expect_body` or `expect_header`: RE2's syntax, matched against
/// bytes in time linear in their number (`CRE2Shim`, `RegexLimits`).
///
/// RE2 rather than a backtracking matcher (PCRE2, glibc's `regexec`): those try the ways
/// through a pattern one after another, exponentially many on some texts (`(a|aa)*b` on a
/// megabyte of `a`), so they need limits, and a search that reaches one answers nothing. RE2
/// follows every way at once in one pass over the text, so every search answers; the price is
/// what needs backtracking (back-references, look-around), which RE2 refuses when the pattern
/// is read (`RegexRefusal`). Matching is byte-wise (Latin-1 in RE2's terms), as POSIX matching
/// in the C locale was: a UTF-8 literal matches its bytes, `.` is one byte; `.` also matches a
/// line break and `$` is only the end of the text, so `^` and `$` are the start and end of the
/// whole body unless a pattern asks for lines with `(?m)`.
final class BoundedRegex {
    /// How a search ended.
    enum Outcome: Equatable {
        case matched
        case notMatched
        /// Memory ran out during the search (a plug-in child's heap limit): no answer.
        case failed(String)
    }

    private let expression: OpaquePointer

    /// Compiles `pattern`; throws what is wrong with it and where (`RegexRefusal`), never the
    /// pattern itself.
    init(_ pattern: String) throws(RegexProblem) {
        let bytes = Array(pattern.utf8)
        guard bytes.count <= RegexLimits.maxPatternLength else {
            throw RegexProblem(
                message: "the pattern is longer than the limit of \(RegexLimits.maxPatternLength) bytes")
        }
        switch Self.compile(bytes) {
        case .success(let compiled): expression = compiled
        case .failure(let refusal): throw RegexProblem(message: refusal.message(for: bytes))
        }
    }

    /// `pattern` compiled with the plug-in's options within `RegexLimits`, or RE2's refusal.
    static func compile(_ pattern: [UInt8]) -> Result<OpaquePointer, RegexRefusal> {
        var compiled: OpaquePointer?
        let refusal = RegexRefusal.filled(room: pattern.count) { problem in
            compiled = pattern.withUnsafeBufferPointer { text in
                pw_re2_compile(
                    text.baseAddress, text.count, RegexLimits.programBudget, RegexLimits.maxMemory, &problem)
            }
            return compiled != nil
        }
        if let compiled { return .success(compiled) }
        return .failure(refusal ?? RegexRefusal(kind: PW_RE2_INTERNAL, reason: "unexpected error", fragment: []))
    }

    /// Whether `bytes` hold a match anywhere: RE2's DFA in one pass over them (its NFA, also in
    /// one pass, when the DFA's memory runs out), stopping at the first match.
    func search(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        switch pw_re2_match(expression, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) {
        case 1: .matched
        case 0: .notMatched
        default: .failed("out of memory")
        }
    }

    deinit { pw_re2_free(expression) }
}

/// Why a pattern was refused, in RE2's words or ours, with its offset (never the pattern itself).
struct RegexProblem: Error {
    var message: String
}
