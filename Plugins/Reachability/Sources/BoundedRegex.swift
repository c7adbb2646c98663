import CPCRE2
import PathwatchJSON
import PathwatchProbeKit

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
        /// The search's CPU time (`RegexLimits.backtrackingCPU` and `linearCPU`).
        case cpu
        /// The sample's deadline came first.
        case deadline

        var description: String {
            switch self {
            case .steps: "match limit"
            case .depth: "match limit (backtracking depth)"
            case .memory: "match limit (backtracking memory, \(RegexLimits.heapLimitKiB / 1024) MiB)"
            case .cpu: "match limit (\(ConfigDuration(nanoseconds: RegexLimits.searchCPU)) of CPU)"
            case .deadline: "match limit (the sample's deadline)"
            }
        }
    }

    static let compileOptions = UInt32(PCRE2_NEVER_UTF | PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY | PCRE2_AUTO_CALLOUT)
    static let linearOptions = UInt32(PCRE2_NEVER_UTF | PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY)

    private let code: OpaquePointer
    /// The same expression for the linear-time matcher (see `linearSearch`); nil when it does
    /// not compile so (a pattern that ends inside a `\Q…` quote or an `(?x)` comment).
    private let anywhere: OpaquePointer?

    /// Compiles `pattern`; throws PCRE2's reason and the byte offset where it stopped.
    init(_ pattern: String) throws(RegexProblem) {
        var error: Int32 = 0
        var offset = 0
        guard let compiled = Self.compile(pattern, options: Self.compileOptions, extra: 0, &error, &offset) else {
            throw RegexProblem(message: "\(Self.message(for: error)) at offset \(offset)")
        }
        code = compiled
        anywhere = Self.compile(Self.anywhere(pattern), options: Self.linearOptions, extra: 1, &error, &offset)
    }

    /// `pattern` compiled within `RegexLimits`, the wrapper's `extra` parentheses allowed for.
    private static func compile(
        _ pattern: String, options: UInt32, extra: UInt32, _ error: inout Int32, _ offset: inout Int
    ) -> OpaquePointer? {
        guard let context = pcre2_compile_context_create_8(nil) else { return nil }
        defer { pcre2_compile_context_free_8(context) }
        pcre2_set_max_pattern_length_8(context, RegexLimits.maxPatternLength + (extra > 0 ? 64 : 0))
        pcre2_set_parens_nest_limit_8(context, RegexLimits.parensNestLimit + extra)
        let bytes = Array(pattern.utf8)
        return bytes.withUnsafeBufferPointer { text in
            pcre2_compile_8(text.baseAddress, text.count, options, &error, &offset, context)
        }
    }

    /// `pattern` matched from the start of the text after any number of bytes,
    /// `(?s:(?C1).)*?(?:…)`, the leading `(*…)` settings kept in front, where PCRE2 reads them.
    /// The callout comes once a byte passed, not before every item tried (the linear matcher's
    /// work on a byte is bounded by the pattern's states, and an automatic callout would triple
    /// it).
    static func anywhere(_ pattern: String) -> String {
        var settings = ""
        var rest = Substring(pattern)
        while rest.hasPrefix("(*"), let close = rest.firstIndex(of: ")") {
            settings += rest[...close]
            rest = rest[rest.index(after: close)...]
        }
        return settings + "(?s:(?C1).)*?(?:" + rest + ")"
    }

    /// Searches `bytes` for the expression within `RegexLimits` and what is left before
    /// `deadline` (the running sample's). PCRE2's backtracking matcher answers first, fast for
    /// what health checks write (it skips to the bytes a pattern needs); when it reaches a limit
    /// (a pattern that backtracks without end on this text), the linear-time matcher answers,
    /// which follows every way through the pattern at once in one pass over the text. A search
    /// that reaches a limit in both is neither a match nor a miss.
    func search(_ bytes: UnsafeRawBufferPointer, deadline: Deadline? = Deadline.current) -> Outcome {
        let wallStop =
            deadline.map { MonotonicClock.nowNanoseconds() + $0.allowing(.seconds(3600)).nanoseconds } ?? Int64.max
        // An empty body still needs a valid pointer: PCRE2 reads nothing of it.
        let empty: UInt8 = 0
        return withUnsafePointer(to: empty) { fallback in
            let start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? fallback
            let first = backtrackingSearch(start, bytes.count, wallStop: wallStop)
            guard case .exceeded(let limit) = first, limit != .deadline, let anywhere else { return first }
            return Self.linearSearch(anywhere, start, bytes.count, wallStop: wallStop) ?? first
        }
    }

    private func backtrackingSearch(_ start: UnsafePointer<UInt8>, _ count: Int, wallStop: Int64) -> Outcome {
        guard let context = Self.matchContext() else { return .exceeded(.memory) }
        defer { pcre2_match_context_free_8(context) }
        guard let data = pcre2_match_data_create_8(1, nil) else { return .exceeded(.memory) }
        defer { pcre2_match_data_free_8(data) }
        var allowance = SearchAllowance(cpu: RegexLimits.backtrackingCPU, wallStop: wallStop)
        let result = SearchAllowance.withCallout(on: context, &allowance) {
            pcre2_match_8(code, start, count, 0, 0, data, context)
        }
        return Self.outcome(of: result, allowance) ?? .failed(Self.message(for: result))
    }

    /// What a matcher's result says: a match, none, or a limit reached; nil for any other error.
    private static func outcome(of result: Int32, _ allowance: SearchAllowance) -> Outcome? {
        switch result {
        case 0...: .matched
        case PCRE2_ERROR_NOMATCH: .notMatched
        case PCRE2_ERROR_CALLOUT: .exceeded(allowance.reached ?? .cpu)
        case PCRE2_ERROR_DEPTHLIMIT: .exceeded(.depth)
        case PCRE2_ERROR_HEAPLIMIT, PCRE2_ERROR_NOMEMORY: .exceeded(.memory)
        case PCRE2_ERROR_MATCHLIMIT: .exceeded(.steps)
        default: nil
        }
    }

    /// PCRE2's DFA matcher over `anywhere(pattern)` anchored at the start, stopping at the
    /// first match: one pass, each byte costing at most the pattern's states, never a
    /// backtrack. Nil when it cannot answer: an item it does not support (a back-reference),
    /// its workspace too small; the backtracking answer stands then.
    private static func linearSearch(
        _ anywhere: OpaquePointer, _ start: UnsafePointer<UInt8>, _ count: Int, wallStop: Int64
    ) -> Outcome? {
        guard let context = matchContext() else { return nil }
        defer { pcre2_match_context_free_8(context) }
        guard let data = pcre2_match_data_create_8(1, nil) else { return nil }
        defer { pcre2_match_data_free_8(data) }
        var workspace = [Int32](repeating: 0, count: RegexLimits.linearWorkspace)
        var allowance = SearchAllowance(cpu: RegexLimits.linearCPU, wallStop: wallStop)
        let result = SearchAllowance.withCallout(on: context, &allowance) {
            workspace.withUnsafeMutableBufferPointer { space in
                pcre2_dfa_match_8(
                    anywhere, start, count, 0, UInt32(PCRE2_ANCHORED | PCRE2_DFA_SHORTEST), data, context,
                    space.baseAddress, space.count)
            }
        }
        return outcome(of: result, allowance)
    }

    /// A match context with `RegexLimits`' backtracking limits.
    private static func matchContext() -> OpaquePointer? {
        guard let context = pcre2_match_context_create_8(nil) else { return nil }
        pcre2_set_match_limit_8(context, RegexLimits.matchLimit)
        pcre2_set_depth_limit_8(context, RegexLimits.depthLimit)
        pcre2_set_heap_limit_8(context, RegexLimits.heapLimitKiB)
        return context
    }

    /// PCRE2's text for an error code ("missing closing parenthesis").
    static func message(for error: Int32) -> String {
        var text = [UInt8](repeating: 0, count: 256)
        let length = pcre2_get_error_message_8(error, &text, text.count)
        guard length > 0 else { return "error \(error)" }
        return String(decoding: text.prefix(Int(length)), as: UTF8.self)
    }

    deinit {
        pcre2_code_free_8(code)
        if let anywhere { pcre2_code_free_8(anywhere) }
    }
}

/// Why a pattern was refused, in PCRE2's words and with its offset (never the pattern itself).
struct RegexProblem: Error {
    var message: String
}
