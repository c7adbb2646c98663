import CPCRE2

/// A regular expression of `expect_body` or `expect_header`: PCRE2's syntax, matched against
/// bytes, compiled and matched within `RegexLimits`.
///
/// PCRE2 rather than POSIX `regcomp`: glibc's matcher has no bound, and a pattern such as
/// `(a|aa)*b` on a megabyte body never finished, while compiling `a{1,32767}` took gigabytes.
/// PCRE2 takes limits on both (and reports reaching one), and its syntax is a superset of what
/// operators write as extended regular expressions. Matching is byte-wise (no UTF mode), as
/// POSIX matching in the C locale was: a UTF-8 literal matches itself, `.` is one byte; `.`
/// also matches a line break and `$` is only the end of the text, as in POSIX (DOTALL,
/// DOLLAR_ENDONLY), so `^` and `$` are the start and end of the whole body unless a pattern
/// asks for lines with `(?m)`.
final class BoundedRegex {
    /// How a search ended.
    enum Outcome: Equatable {
        case matched
        case notMatched
        /// The search reached one of `RegexLimits` before it could answer.
        case exceeded(Limit)
        /// PCRE2 reported another error (its text): no answer either.
        case failed(String)
    }

    enum Limit: Equatable, CustomStringConvertible {
        case steps, depth, memory

        var description: String {
            switch self {
            case .steps: "match limit"
            case .depth: "match limit (backtracking depth)"
            case .memory: "match limit (backtracking memory, \(RegexLimits.heapLimitKiB / 1024) MiB)"
            }
        }
    }

    static let compileOptions = UInt32(PCRE2_NEVER_UTF | PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY | PCRE2_AUTO_CALLOUT)

    private let code: OpaquePointer

    /// Compiles `pattern`; throws PCRE2's reason and the byte offset where it stopped.
    init(_ pattern: String) throws(RegexProblem) {
        guard let context = pcre2_compile_context_create_8(nil) else { throw RegexProblem(message: "out of memory") }
        defer { pcre2_compile_context_free_8(context) }
        pcre2_set_max_pattern_length_8(context, RegexLimits.maxPatternLength)
        pcre2_set_parens_nest_limit_8(context, RegexLimits.parensNestLimit)
        var error: Int32 = 0
        var offset = 0
        let bytes = Array(pattern.utf8)
        let compiled = bytes.withUnsafeBufferPointer { text in
            pcre2_compile_8(text.baseAddress, text.count, Self.compileOptions, &error, &offset, context)
        }
        guard let compiled else {
            throw RegexProblem(message: "\(Self.message(for: error)) at offset \(offset)")
        }
        code = compiled
    }

    /// Searches `bytes` for the expression, within `RegexLimits`.
    func search(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        guard let context = pcre2_match_context_create_8(nil) else { return .exceeded(.memory) }
        defer { pcre2_match_context_free_8(context) }
        pcre2_set_match_limit_8(context, RegexLimits.matchLimit)
        pcre2_set_depth_limit_8(context, RegexLimits.depthLimit)
        pcre2_set_heap_limit_8(context, RegexLimits.heapLimitKiB)
        // Every pattern item tried calls this (PCRE2_AUTO_CALLOUT): one step off the budget, and
        // the search ends when none is left.
        var budget = RegexLimits.stepBudget(for: bytes.count)
        guard let data = pcre2_match_data_create_8(1, nil) else { return .exceeded(.memory) }
        defer { pcre2_match_data_free_8(data) }
        let result = withUnsafeMutablePointer(to: &budget) { remaining in
            pcre2_set_callout_8(
                context,
                { _, remaining in
                    let steps = remaining!.assumingMemoryBound(to: Int.self)
                    steps.pointee -= 1
                    return steps.pointee < 0 ? PCRE2_ERROR_MATCHLIMIT : 0
                }, remaining)
            // An empty body still needs a valid pointer: PCRE2 reads nothing of it.
            let empty: UInt8 = 0
            return withUnsafePointer(to: empty) { fallback in
                let start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? fallback
                return pcre2_match_8(code, start, bytes.count, 0, 0, data, context)
            }
        }
        switch result {
        case 0...: return .matched
        case PCRE2_ERROR_NOMATCH: return .notMatched
        case PCRE2_ERROR_DEPTHLIMIT: return .exceeded(.depth)
        case PCRE2_ERROR_HEAPLIMIT, PCRE2_ERROR_NOMEMORY: return .exceeded(.memory)
        case PCRE2_ERROR_MATCHLIMIT: return .exceeded(.steps)
        default: return .failed(Self.message(for: result))
        }
    }

    /// PCRE2's text for an error code ("missing closing parenthesis").
    static func message(for error: Int32) -> String {
        var text = [UInt8](repeating: 0, count: 256)
        let length = pcre2_get_error_message_8(error, &text, text.count)
        guard length > 0 else { return "error \(error)" }
        return String(decoding: text.prefix(Int(length)), as: UTF8.self)
    }

    deinit { pcre2_code_free_8(code) }
}

/// Why a pattern was refused, in PCRE2's words and with its offset (never the pattern itself).
struct RegexProblem: Error {
    var message: String
}
