/// The bounds every `/…/` pattern of `expect_body` and `expect_header` is compiled and matched
/// under, so that no pattern, however written, and no body, however crafted, can hold a core or
/// grow the process: a search that reaches a limit ends as a failed condition that says so.
/// Fixed rather than configurable: they sit far above what a health check's pattern needs and
/// far below what would delay a sample noticeably (two seconds of CPU a search at most).
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

    /// CPU time of one search, in nanoseconds: PCRE2's backtracking matcher may take
    /// `backtrackingCPU`, and when it reaches a limit the linear-time matcher `linearCPU` more.
    /// PCRE2 counts `matchLimit` afresh at each starting place, so only a bound on the whole
    /// search holds whatever the body's size (`max_body` up to 64 MiB); CPU time rather than a
    /// count of steps, because a step of the backtracking matcher and one of the linear-time
    /// matcher cost very differently, and a loaded machine does not stretch it. Both are also
    /// cut to the sample's deadline.
    static let backtrackingCPU: Int64 = 1_000_000_000
    static let linearCPU: Int64 = 1_000_000_000
    static var searchCPU: Int64 { backtrackingCPU + linearCPU }

    /// Elements of the linear-time matcher's workspace (PCRE2's DFA matcher keeps its active
    /// states there): 400 KiB, for a pattern of thousands of states.
    static let linearWorkspace = 100_000
}
