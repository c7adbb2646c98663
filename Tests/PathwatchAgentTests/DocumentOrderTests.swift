import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// Document order compares ASCII ids as bytes and every other pair as Strings: the order must
/// be exactly the one Swift's String comparison gives, for any mix of ids.
@Suite struct DocumentOrderTests {
    static let ids = [
        "disk//", "disk//boot", "disk//boot/efi", "disk//home", "disk//tmp", "disk//tmp2", "disk//tmp/a", "disk//Tmp",
        "disk//tmp ", "disk//tmp\u{7F}", "disk/é", "disk/e\u{301}", "disk/f", "disk/e", "disk/データ", "disk/🙂",
        "disk/\u{1}",
        "a", "", "b", "ab", "aa", "Z", "z", "é", "e\u{301}z", "ez", "ß", "ss", "İ", "i",
    ]

    @Test func ordersAsStringComparisonDoes() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<50 {
            let keys: [(place: Int, id: String)] = Self.ids.shuffled(using: &generator).map {
                (round % 3 == 0 ? 0 : Int.random(in: 0...2), $0)
            }
            let ordered = DocumentOrder.positions(of: keys).map { keys[$0] }
            let expected = keys.sorted { $0.place != $1.place ? $0.place < $1.place : $0.id < $1.id }
            #expect(ordered.map(\.place) == expected.map(\.place))
            #expect(ordered.map { Array($0.id.utf8) } == expected.map { Array($0.id.utf8) }, "round \(round)")
        }
    }

    /// A probe's ids by their bytes: the order the generic comparison of two UTF-8 views gives,
    /// for small strings held inline, long ones on the heap, and slices made into strings.
    @Test func utf8PrecedesOrdersAsTheBytesDo() {
        let long = String(repeating: "check-", count: 8)
        let ids =
            Self.ids + Self.ids.map { long + $0 } + [
                long, long + "a", String(long.dropLast()), String("xcheck".dropFirst()),
            ]
        for a in ids {
            for b in ids {
                #expect(
                    DocumentOrder.utf8Precedes(a, b) == a.utf8.lexicographicallyPrecedes(b.utf8),
                    "\(Array(a.utf8)) against \(Array(b.utf8))")
            }
        }
    }

    @Test func everyPositionComesOutOnce() {
        let keys = Self.ids.enumerated().map { (place: $0.offset % 4, id: $0.element) }
        #expect(DocumentOrder.positions(of: keys).sorted() == Array(keys.indices))
        #expect(DocumentOrder.positions(of: []).isEmpty)
    }
}
