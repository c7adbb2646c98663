import CRE2Shim

/// A construct of other regular-expression dialects (PCRE2's, Perl's) that RE2 refuses, named
/// from what RE2 blamed. Most need a backtracking matcher, which RE2 is not, so that patterns
/// are matched in time linear in the body: back-references, look-around, atomic groups,
/// possessive repeats, recursion, conditionals, callouts and PCRE2's `(*…)` verbs and settings.
/// The rest are spelt otherwise in RE2 (a named group, an escape) or not known to it.
struct RefusedConstruct {
    /// What it is, in our words: fixed text, or an escape's two characters, never more of the
    /// pattern.
    let what: String
    /// Why it is refused, or how RE2 spells it.
    let why: String
    /// How far before RE2's fragment it starts (`(*` is blamed at its `*`).
    let lead: Int

    static let linear = "is not supported: patterns are matched in linear time (RE2), without backtracking"

    func message(at offset: Int?) -> String {
        let place = offset.map { " at offset \($0 - lead)" } ?? ""
        return "\(what)\(place) \(why)"
    }

    init(what: String, why: String, lead: Int = 0) {
        self.what = what
        self.why = why
        self.lead = lead
    }

    /// The construct RE2's refusal (`kind`, `fragment`, found at `offset` in `pattern`) names;
    /// nil for a refusal RE2's own words say best (a missing `]`, a repeat count too large).
    init?(kind: pw_re2_error, fragment: [UInt8], pattern: [UInt8], offset: Int?) {
        let text = String(decoding: fragment, as: UTF8.self)
        // The byte of the pattern right after the fragment, when known.
        let next = offset.flatMap { $0 + fragment.count < pattern.count ? pattern[$0 + fragment.count] : nil }
        switch kind {
        case PW_RE2_BAD_ESCAPE: self.init(escape: fragment)
        case PW_RE2_BAD_PERL_OP: self.init(group: text, next: next)
        case PW_RE2_REPEAT_OP where text.count >= 2 && text.hasSuffix("+") && "*+?{".contains(text.first!):
            self.init(what: "a possessive repeat (*+, ++, ?+, {n}+)", why: Self.linear)
        case PW_RE2_REPEAT_ARGUMENT
        where text == "*" && offset.map({ $0 > 0 && pattern[$0 - 1] == UInt8(ascii: "(") }) == true:
            self.init(what: "a (*…) verb or setting", why: Self.linear + " or settings in the pattern", lead: 1)
        default: return nil
        }
    }

    /// `\` and what follows, refused: a back-reference, or an escape RE2 does not know.
    init?(escape fragment: [UInt8]) {
        guard fragment.count >= 2, fragment[1] < 0x80 else { return nil }
        let letter = Character(Unicode.Scalar(fragment[1]))
        guard letter.isLetter || letter.isNumber else { return nil }
        let escape = "\\\(letter)"
        if letter.isNumber || letter == "g" || letter == "k" {
            self.init(what: "a back-reference \(escape)", why: Self.linear)
        } else if let spelling = Self.escapes[letter] {
            self.init(what: "the escape \(escape)", why: "is not RE2's syntax; write \(spelling)")
        } else if letter == "x" {
            return nil  // "\x{100}": a character above one byte, or malformed: RE2's words say it
        } else {
            self.init(what: "the escape \(escape)", why: "is not RE2's syntax")
        }
    }

    /// PCRE2 escapes RE2 does not know, with what matches the same in RE2 (bytes, as PCRE2 read
    /// them without UTF).
    static let escapes: [Character: String] = [
        "Z": "\\z, or \\n?\\z for an end before a final line break", "h": "[\\t \\xa0]", "e": "\\x1b",
        "R": "(?:\\r\\n|[\\n\\v\\f\\r\\x85])", "N": "[^\\n]",
        "K": "the pattern without it (it moves where a match starts, not whether there is one)",
    ]

    /// `(?` and what follows, refused: RE2 knows `(?:…)`, `(?P<name>…)` and the flags i, m, s, U.
    init?(group text: String, next: UInt8?) {
        let rest = text.dropFirst(2)
        let next = next.map { Character(Unicode.Scalar($0)) }
        switch (rest.first, rest.count) {
        case ("=", 1): self.init(what: "a look-ahead (?=…)", why: Self.linear)
        case ("!", 1): self.init(what: "a negative look-ahead (?!…)", why: Self.linear)
        case ("<", 1) where next == "=": self.init(what: "a look-behind (?<=…)", why: Self.linear)
        case ("<", 1) where next == "!": self.init(what: "a negative look-behind (?<!…)", why: Self.linear)
        case ("<", 1):
            self.init(what: "a named group (?<name>…)", why: "is not RE2's syntax; write (?P<name>…) or (?:…)")
        case ("'", 1):
            self.init(what: "a named group (?'name'…)", why: "is not RE2's syntax; write (?P<name>…) or (?:…)")
        case ("P", 1) where next == "=": self.init(what: "a back-reference (?P=name)", why: Self.linear)
        case ("P", 1) where next == ">": self.init(what: "a subroutine call (?P>name)", why: Self.linear)
        case ("P", 1) where next == "'":
            self.init(what: "a named group (?P'name'…)", why: "is not RE2's syntax; write (?P<name>…) or (?:…)")
        case (">", 1): self.init(what: "an atomic group (?>…)", why: Self.linear)
        case ("(", 1): self.init(what: "a conditional group (?(…)…)", why: Self.linear)
        case ("C", 1): self.init(what: "a callout (?C…)", why: Self.linear)
        case ("R", 1), ("&", 1), ("+", 1): self.init(what: "recursion or a subroutine call", why: Self.linear)
        case ("#", 1): self.init(what: "a comment (?#…)", why: "is not RE2's syntax")
        case ("|", 1): self.init(what: "a branch-reset group (?|…)", why: "is not RE2's syntax; write (?:…)")
        case (let first?, 1) where first.isNumber: self.init(what: "recursion or a subroutine call", why: Self.linear)
        case ("-", 2) where rest.last!.isNumber: self.init(what: "recursion or a subroutine call", why: Self.linear)
        case (_, 1...) where rest.last!.isASCII && rest.last!.isLetter && !"imsU".contains(rest.last!):
            self.init(what: "the flag \(rest.last!)", why: "is not RE2's: it knows i, m, s and U")
        default: return nil
        }
    }
}
