import Testing

@testable import ReachabilityProbe

/// What RE2 refuses, and how the refusal reads: RE2's reason or the construct named, with the
/// byte offset where it is, and never the pattern itself.
@Suite struct RegexRefusalTests {
    func refusal(_ pattern: String) -> String? {
        do {
            _ = try BoundedRegex(pattern)
            return nil
        } catch {
            return error.message
        }
    }

    static let linear = "is not supported: patterns are matched in linear time (RE2), without backtracking"

    /// What needs a backtracking matcher, refused with what it is, where, and why.
    @Test(arguments: [
        (#"(ab)\1"#, #"a back-reference \1 at offset 4"#),
        (#"(?P<x>a)\k<x>"#, #"a back-reference \k at offset 8"#),
        (#"(?P<x>a)(?P=x)"#, "a back-reference (?P=name) at offset 8"),
        ("a(?=b)", "a look-ahead (?=…) at offset 1"),
        ("a(?!b)", "a negative look-ahead (?!…) at offset 1"),
        ("(?<=a)b", "a look-behind (?<=…) at offset 0"),
        ("(?<!a)b", "a negative look-behind (?<!…) at offset 0"),
        ("(?>a+)b", "an atomic group (?>…) at offset 0"),
        ("xa*+b", "a possessive repeat (*+, ++, ?+, {n}+) at offset 2"),
        ("a{2}+", "a possessive repeat (*+, ++, ?+, {n}+) at offset 1"),
        ("(a|(?R))", "recursion or a subroutine call at offset 3"),
        ("(a)(?1)", "recursion or a subroutine call at offset 3"),
        ("(a)(?-1)", "recursion or a subroutine call at offset 3"),
        ("(?(1)a|b)", "a conditional group (?(…)…) at offset 0"),
        ("(?C1)a", "a callout (?C…) at offset 0"),
        ("x(*SKIP)y", "a (*…) verb or setting at offset 1"),
        ("(*UTF)a", "a (*…) verb or setting at offset 0"),
    ])
    func whatNeedsBacktrackingIsRefusedAndNamed(pattern: String, says: String) {
        let message = refusal(pattern)
        #expect(message?.hasPrefix("\(says) \(Self.linear)") == true, "\(pattern): \(message ?? "accepted")")
    }

    /// Other dialects' spellings: named, with RE2's where there is one.
    @Test func otherSpellingsAreNamedWithRE2s() {
        #expect(
            refusal("(?<state>UP)")
                == "a named group (?<name>…) at offset 0 is not RE2's syntax; write (?P<name>…) or (?:…)")
        #expect(refusal(#"ok\Z"#)?.hasPrefix(#"the escape \Z at offset 2 is not RE2's syntax; write \z"#) == true)
        #expect(refusal(#"a\G"#) == #"the escape \G at offset 1 is not RE2's syntax"#)
        #expect(refusal("(?x) a b") == "the flag x at offset 0 is not RE2's: it knows i, m, s and U")
        #expect(refusal("(?#note)a") == "a comment (?#…) at offset 0 is not RE2's syntax")
    }

    /// The offset is where RE2 stopped, in bytes of the pattern as written: the same text
    /// quoted, in a class or escaped earlier does not count, nor does a UTF-8 letter count as one.
    @Test func theOffsetIsWhereRE2Stopped() {
        #expect(refusal(#"\Qa(?=\E(?=b)"#)?.hasPrefix("a look-ahead (?=…) at offset 8 ") == true)
        #expect(refusal("[(?=]x(?=y)")?.hasPrefix("a look-ahead (?=…) at offset 6 ") == true)
        #expect(refusal(#"\(?=x(?=y)"#)?.hasPrefix("a look-ahead (?=…) at offset 5 ") == true)
        #expect(refusal("caf\u{e9}(?=s)")?.hasPrefix("a look-ahead (?=…) at offset 5 ") == true)
        #expect(refusal(#"\\\1"#)?.hasPrefix(#"a back-reference \1 at offset 2 "#) == true)
    }

    /// Everything else in RE2's words, with the offset when RE2 names a place.
    @Test func otherRefusalsCarryRE2sReason() {
        #expect(refusal("a(") == "missing )")
        #expect(refusal("a)") == "unexpected )")
        #expect(refusal("ab[a") == "missing ] at offset 2")
        #expect(refusal("ab[z-a]") == "invalid character class range at offset 3")
        #expect(refusal("x[[:digits:]]") == "invalid character class range at offset 2")
        #expect(refusal("ab\\") == "trailing \\ at offset 2")
        #expect(refusal("a|*") == "no argument for repetition operator at offset 2")
        #expect(refusal("a**") == "bad repetition operator at offset 1")
        #expect(
            refusal("a{1001}")
                == "invalid repetition size at offset 1 (a repeat count is at most 1000, nested counts multiplied)")
        #expect(refusal("(a{10}){101}")?.hasPrefix("invalid repetition size at offset 7") == true)
        #expect(refusal("a{1000}") == nil && refusal("(a{10}){100}") == nil)
        #expect(
            refusal(String(repeating: "a", count: RegexLimits.maxPatternLength + 1))
                == "the pattern is longer than the limit of 4096 bytes")
        #expect(refusal(String(repeating: "a", count: RegexLimits.maxPatternLength)) == nil)
    }

    /// A pattern whose compiled program exceeds RE2's memory bound is refused at load.
    @Test func aProgramTooLargeIsRefused() {
        let large = String(repeating: "[a-q]{1000}", count: RegexLimits.maxPatternLength / 11)
        #expect(
            refusal(large)
                == "pattern too large - compile failed (its program needs more than 256 KiB; a repeat copies what it repeats)"
        )
    }

    /// The message carries none of the pattern's own text beyond an escape's letter.
    @Test func theMessageNeverShowsThePattern() {
        for pattern in ["secret-token(?=x)", "secret-token[z-a]", "(secret-token", "secret-token{1001}"] {
            let message = refusal(pattern) ?? ""
            #expect(!message.contains("secret"), "\(message)")
        }
    }
}
