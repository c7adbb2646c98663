/// The bounds every `/…/` pattern of `expect_body` and `expect_header` is compiled and matched
/// under, so that no pattern, however written, and no body, however crafted, can hold a core or
/// grow the process: a search that reaches a limit ends as a failed condition that says so.
/// Fixed rather than configurable: they sit far above what a health check's pattern needs and
/// far below what would delay a sample noticeably (about a second of CPU at most).
enum RegexLimits {
    /// Longest pattern accepted, in bytes (pcre2_set_max_pattern_length). Compiling is then
    /// bounded too: PCRE2 caps a repeat count at 65,535 and a compiled pattern at 64 KiB of code
    /// (its link size), and refuses what would exceed either ("regular expression is too large").
    static let maxPatternLength = 4096
    /// Deepest nesting of parentheses (pcre2_set_parens_nest_limit; PCRE2's default is 250),
    /// which bounds the compiler's own recursion.
    static let parensNestLimit: UInt32 = 64

    /// Backtracking steps PCRE2 may take from one starting position of the body
    /// (pcre2_set_match_limit).
    static let matchLimit: UInt32 = 10_000_000
    /// Nested backtracking points held at once (pcre2_set_depth_limit).
    static let depthLimit: UInt32 = 100_000
    /// Memory for those backtracking points, in KiB (pcre2_set_heap_limit): 16 MiB.
    static let heapLimitKiB: UInt32 = 16 * 1024

    /// PCRE2 counts `matchLimit` afresh at each starting position, so a body can make every
    /// position cost just under it. The whole search is therefore also bounded: every pattern
    /// item PCRE2 tries is counted (an automatic callout), and the search ends after this many
    /// steps plus `stepsPerByte` for each byte searched. A simple pattern takes 3 to 4 steps a
    /// byte, so a plain scan of any body fits; 20 million steps take well under a second.
    static let searchSteps = 10_000_000
    static let stepsPerByte = 10

    /// The steps a search of `bytes` bytes may take in all.
    static func stepBudget(for bytes: Int) -> Int { searchSteps + stepsPerByte * bytes }
}
