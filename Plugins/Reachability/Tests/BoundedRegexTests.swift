import Testing

@testable import ReachabilityProbe

/// RE2 through the shim: every search answers, and patterns on which a backtracking matcher
/// tries an exponential number of ways are answered like any other (no timing is asserted:
/// what a slow matcher would show is a wrong or missing answer, which these check).
@Suite struct BoundedRegexTests {
    func search(_ pattern: String, _ body: [UInt8]) throws -> BoundedRegex.Outcome {
        let regex = try BoundedRegex(pattern)
        return body.withUnsafeBytes { regex.search($0) }
    }

    static let mebibyte = 1 << 20
    static func repeated(_ unit: String, _ count: Int) -> [UInt8] {
        Array(Array(repeating: Array(unit.utf8), count: count).joined())
    }

    /// The cases of bench/regex/run.sh: PCRE2 gave up on all but the first, glibc's `regexec`
    /// finishes none of them.
    @Test func theBenchmarksHostileCasesAnswerRightly() throws {
        let a = Self.repeated("a", Self.mebibyte)
        #expect(try search("(a|aa)*b", a) == .notMatched)
        #expect(try search("(a|aa)*b", Array(a.dropLast(2)) + Array("cb".utf8)) == .matched)
        #expect(try search("(.*,){10}x", Self.repeated("a,", Self.mebibyte / 2)) == .notMatched)
        #expect(try search("(.*,){10}x", Array("x".utf8) + Self.repeated("a,", Self.mebibyte / 2 - 1)) == .notMatched)
        // Each starting place once cost just under PCRE2's own match limit.
        let segments = Self.repeated(String(repeating: "a", count: 20) + "c", Self.mebibyte / 21)
        #expect(try search("(a|aa)*b", segments + Array("b".utf8)) == .matched)
        #expect(try search("(a|aa)*b", segments) == .notMatched)
    }

    @Test func patternsThatBacktrackWithoutEndAnswer() throws {
        #expect(try search("(?:a|b)*c", Self.repeated("ab", 200_000) + Array("xc".utf8)) == .matched)
        #expect(try search("(.*,){10}x", Self.repeated("a,", 20) + Array("x".utf8)) == .matched)
        // Once the sample's whole CPU budget on 8 MiB, and no answer.
        let many = Self.repeated("a", 8 << 20)
        #expect(try search("[ab]{0,50}[ab]{0,50}c", many + Array("c".utf8)) == .matched)
        #expect(try search("[ab]{0,50}[ab]{0,50}c", many) == .notMatched)
    }

    /// A pattern whose DFA would need a state for each of 2^20 texts: RE2 empties its cache
    /// again and again, then goes on with its NFA; the answers stay right.
    @Test func patternsBeyondTheDFAsMemoryAnswerThroughTheNFA() throws {
        var generator = SplitMix(seed: 7)
        var body = (0..<(256 << 10)).map { _ in generator.next() & 1 == 0 ? UInt8(ascii: "a") : UInt8(ascii: "b") }
        #expect(try search("(a|b)*a(a|b){20}c", body) == .notMatched)
        body += Array("a".utf8) + Self.repeated("b", 20) + Array("c".utf8)
        #expect(try search("(a|b)*a(a|b){20}c", body) == .matched)
        #expect(try search("(a|b)*a(a|b){21}c", Array(body.suffix(22))) == .notMatched)
    }

    @Test func plainScansOfALargeBodyAnswer() throws {
        let body = Self.repeated("status: starting, version 1.2\n", 70_000)  // 2 MiB
        #expect(try search(#"status: ready"#, body) == .notMatched)
        #expect(try search(#"[a-z]+: [a-z]+, version [0-9]+\.[0-9]+X"#, body) == .notMatched)
        #expect(try search(#"version [0-9]+\.[0-9]+\n$"#, body) == .matched)
        #expect(try search(#"(?m)^status: starting, version 1\.2$"#, body) == .matched)
    }

    @Test func anEmptyPatternMatchesAnything() throws {
        #expect(try search("", []) == .matched)
        #expect(try search("", Array("x".utf8)) == .matched)
    }
}

/// A deterministic stream of numbers (SplitMix64), so a test's body is the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
