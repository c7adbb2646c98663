/// The bounds every `/…/` pattern of `expect_body` and `expect_header` is compiled under. A
/// search needs none of its own: RE2 answers in one pass over the text, in time linear in its
/// length (each byte costs at most the compiled program's size), never backtracking, so it
/// always answers and no body can make it give up. Fixed rather than configurable: far above
/// what a health check's pattern needs.
enum RegexLimits {
    /// Longest pattern accepted, in bytes, checked before RE2 reads it.
    static let maxPatternLength = 4096
    /// RE2's `max_mem` while a pattern is first compiled, 256 KiB: a program of some 22,000
    /// instructions at most (`[ab]{0,1000}` written 11 times is too large: "pattern too large").
    /// RE2 stops as soon as a program passes it; but what RE2 does with a program once compiled
    /// takes time that grows faster than the program (about half a second at this bound, a
    /// minute at 200,000 instructions, which `maxMemory` alone would allow), and the program's
    /// size is what a search may cost per byte.
    static let programBudget: Int64 = 256 << 10
    /// RE2's `max_mem` of the expression then kept, 16 MiB: its program (within `programBudget`)
    /// and the caches of RE2's DFA, built as a search needs states and emptied when full. A
    /// search that would empty them too often goes on with RE2's NFA: slower per byte, still one
    /// pass over the text.
    static let maxMemory: Int64 = 16 << 20
}
