import PathwatchProbeKit
import Testing

@testable import PathwatchAgent
@testable import PathwatchSinkKit

/// The check book sorts its document order once for each change of which checks exist (or of
/// the probes' order) and keeps it: every change of that kind must show in the next order, and
/// a snapshot taken before it must keep the order of its own checks.
@Suite struct DocumentOrderCacheTests {
    var book = CheckBook(agentName: "test-host")
    var clock: Int64 = 1_700_000_000_000

    init() {
        book.probeOrder = ["b", "a", "c"]
        for probe in ["a", "b", "c", "x"] {
            book.policies[probe] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "test")
        }
    }

    mutating func sample(_ probe: String, _ keys: [String], value: Double = 1) {
        clock += 1000
        let observations = keys.map {
            Observation(key: $0, state: .ok, message: "", metrics: [Metric("v", value)])
        }
        _ = book.apply(.sample(observations), probe: probe, at: WallTime(milliseconds: clock))
    }

    /// The order sorted from scratch: by the probe's place in `probeOrder` (others last), then id.
    static func expected(_ book: CheckBook) -> [String] {
        let rank = Dictionary(book.probeOrder.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        return book.records.values.sorted {
            let (l, r) = (rank[$0.probe] ?? Int.max, rank[$1.probe] ?? Int.max)
            return l != r ? l < r : $0.id < $1.id
        }.map(\.id)
    }

    func snapshot() -> StatusSnapshot {
        StatusSnapshot(
            identity: AgentIdentity(name: "test-host"), time: WallTime(milliseconds: clock), book: book, probes: nil,
            sinks: nil)
    }

    func visited(_ snapshot: StatusSnapshot) -> [String] {
        var ids: [String] = []
        snapshot.forEachCheckInDocumentOrder { ids.append($0.id) }
        return ids
    }

    @Test mutating func everyChangeOfMembershipShowsInTheNextOrder() {
        sample("a", ["z", "m"])
        sample("b", ["y"])
        #expect(book.orderedIDs == ["b/y", "a/m", "a/z"])
        #expect(book.orderedIDs == Self.expected(book))

        // Values alone: the same order, and the records' new values.
        sample("a", ["z", "m"], value: 7)
        #expect(book.orderedRecords.map(\.id) == ["b/y", "a/m", "a/z"])
        #expect(book.orderedRecords.allSatisfy { $0.probe != "a" || $0.metrics.first?.value == 7 })

        // A check added, a probe unknown to the order, the order itself changed, a probe removed.
        sample("a", ["z", "m", "b"])
        #expect(book.orderedIDs == ["b/y", "a/b", "a/m", "a/z"])
        sample("x", ["only"])
        #expect(book.orderedIDs == Self.expected(book))
        book.probeOrder = ["a", "c", "b"]
        #expect(book.orderedIDs == Self.expected(book))
        #expect(book.orderedIDs.first == "a/b")
        book.removeProbe("a")
        #expect(book.orderedIDs == ["b/y", "x/only"])
        book.forget("b/y", of: "b")
        #expect(book.orderedIDs == ["x/only"])
    }

    @Test mutating func aSnapshotKeepsItsOwnOrderAfterTheBookChanges() {
        sample("a", ["k1", "k2"])
        let before = snapshot()
        #expect(visited(before) == ["a/k1", "a/k2"])

        sample("b", ["k0"])
        let after = snapshot()
        // Asked in turns, each snapshot sorts (or takes) the order of its own checks.
        #expect(visited(after) == ["b/k0", "a/k1", "a/k2"])
        #expect(visited(before) == ["a/k1", "a/k2"])
        #expect(after.checks.map(\.id) == visited(after))
        #expect(before.checks.map(\.id) == ["a/k1", "a/k2"])
    }
    /// One probe's checks by id (the view a sink taking every report gets), sorted once for each
    /// change of which checks exist: every such change shows in the next view, values are the
    /// latest, and a copy of the book taken before a change keeps its own checks.
    @Test mutating func aProbesChecksByIDFollowEveryChangeOfMembership() {
        func byID(_ book: CheckBook, _ probe: String) -> [String] {
            (book.idsByProbe[probe] ?? []).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
        sample("a", ["z", "m"])
        #expect(book.records(ofProbe: "a").map(\.id) == ["a/m", "a/z"])
        sample("a", ["z", "m"], value: 7)
        let again = book.records(ofProbe: "a")
        #expect(again.map(\.id) == ["a/m", "a/z"])
        #expect(again.allSatisfy { $0.metrics.first?.value == 7 })

        sample("a", ["z", "m", "b"])
        sample("b", ["y"])
        #expect(book.records(ofProbe: "a").map(\.id) == ["a/b", "a/m", "a/z"])
        #expect(book.records(ofProbe: "b").map(\.id) == ["b/y"])
        let before = book
        sample("a", ["c"])
        #expect(book.records(ofProbe: "a").map(\.id) == byID(book, "a"))
        #expect(book.records(ofProbe: "a").map(\.id).contains("a/c"))
        #expect(before.records(ofProbe: "a").map(\.id) == ["a/b", "a/m", "a/z"])
        #expect(book.records(ofProbe: "a").map(\.id) == byID(book, "a"))
        book.forget("a/m", of: "a")
        #expect(book.records(ofProbe: "a").map(\.id) == byID(book, "a"))
        #expect(!book.records(ofProbe: "a").map(\.id).contains("a/m"))
        book.removeProbe("a")
        #expect(book.records(ofProbe: "a").isEmpty)
        #expect(book.records(ofProbe: "b").map(\.id) == ["b/y"])
    }
}
