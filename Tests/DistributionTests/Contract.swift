import Foundation

/// docs/contract.md's numbered sections ("## 3. The status document"), and the check that a
/// citation of one names a section that is there.
///
/// A citation reads "contract §3", "contract §5, §8", or names a part of the section the way the
/// section spells it: "contract §6 "Deadlines"", "contract §3 `probes`". Inside the contract a
/// bare "§7" cites its own section 7.
struct Contract {
    static let file = "docs/contract.md"
    static let citation = "contract \u{A7}"
    /// How citations read before the contract lived in the repository: each is a finding.
    static let formerCitation = "SPEC \u{A7}"

    /// Each section's text, heading included, by its number.
    let sections: [Int: String]

    init(text: String) {
        var sections: [Int: String] = [:]
        var current: Int?
        for (_, line) in numberedLines(text) {
            if line.hasPrefix("## ") {
                current = Int(line.dropFirst(3).prefix { $0.isNumber })
            }
            if let current { sections[current, default: ""] += String(line) + "\n" }
        }
        self.sections = sections
    }

    /// Every citation in `text` (the file `file`) that names a missing section or part, and
    /// every citation still in the former form.
    func findings(in text: String, file: String) -> [DocumentFinding] {
        let marker = file == Self.file ? "\u{A7}" : Self.citation
        var findings: [DocumentFinding] = []
        for (number, line) in numberedLines(text) {
            if line.contains(Self.formerCitation) {
                let what =
                    "cites \"\(Self.formerCitation)…\": the contract is \(Self.file), "
                    + "cited as \"\(Self.citation)N\""
                findings.append(DocumentFinding(file: file, line: number, what: what))
            }
            var rest = line[...]
            while let found = rest.range(of: marker) {
                rest = rest[found.upperBound...]
                let cited = Self.readCitation(&rest)
                for section in cited.sections where sections[section] == nil {
                    let what = "cites \u{A7}\(section), which \(Self.file) does not have"
                    findings.append(DocumentFinding(file: file, line: number, what: what))
                }
                if let part = cited.part, let section = cited.sections.last, let body = sections[section],
                    !body.contains(part)
                {
                    let what = "cites \(part) in \u{A7}\(section), which does not say it"
                    findings.append(DocumentFinding(file: file, line: number, what: what))
                }
            }
        }
        return findings
    }

    /// The section numbers at the head of `rest` ("5, §8"), and the part of the last one it
    /// names, if any, as the section spells it: the word in quotes, or the code with its backticks.
    /// Leaves `rest` after what it read.
    static func readCitation(_ rest: inout Substring) -> (sections: [Int], part: String?) {
        var numbers: [Int] = []
        while let number = Int(rest.prefix(while: { $0.isNumber })) {
            numbers.append(number)
            rest = rest.drop { $0.isNumber }
            guard rest.hasPrefix(", \u{A7}") else { break }
            rest = rest.dropFirst(3)
        }
        guard rest.hasPrefix(" \""), let close = rest.dropFirst(2).firstIndex(of: "\"") else {
            guard rest.hasPrefix(" `"), let close = rest.dropFirst(2).firstIndex(of: "`") else { return (numbers, nil) }
            return (numbers, String(rest[rest.index(after: rest.startIndex)...close]))
        }
        return (numbers, String(rest[rest.index(rest.startIndex, offsetBy: 2)..<close]))
    }
}
