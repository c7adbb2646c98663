import PathwatchProbeKit
import Testing

@testable import PathwatchSinkKit

/// The check book's table: records found by id after any run of stores and removals, copies that
/// keep what they held, and a book whose checks come and go saying what a dictionary would.
@Suite struct CheckTableTests {
    func record(_ id: String, _ message: String = "") -> CheckRecord {
        CheckRecord(
            id: id, probe: String(id.split(separator: "/").first ?? ""), plugin: "p", state: .ok,
            since: WallTime(milliseconds: 0), message: message)
    }

    /// Every id stored is found with its own record, every id removed is gone, and `keys` and
    /// `values` list exactly the checks held, whichever place a removal moved the last one to.
    func expectHolds(_ table: CheckTable, _ expected: [String: String]) {
        #expect(table.count == expected.count)
        #expect(table.isEmpty == expected.isEmpty)
        #expect(Set(table.keys) == Set(expected.keys))
        #expect(table.keys.count == expected.count)
        #expect(Dictionary(uniqueKeysWithValues: table.values.map { ($0.id, $0.message) }) == expected)
        for (id, message) in expected {
            #expect(table[id]?.message == message)
            let place = table.place(of: id)
            #expect(place.map { table.record(at: $0).id } == id)
        }
    }

    /// `add` puts a new check last and says where; given an id the table holds, it replaces that
    /// record where it is, as `store` does, and the index keeps one place for the id.
    @Test func addSaysWhereAndReplacesAnIdItHolds() {
        var table = CheckTable()
        #expect(table.add(record("a/0", "zero")) == 0)
        #expect(table.add(record("a/1", "one")) == 1)
        #expect(table.add(record("a/0", "again")) == 0)
        expectHolds(table, ["a/0": "again", "a/1": "one"])
        table.remove("a/0")
        #expect(table.add(record("a/2", "two")) == 1)
        expectHolds(table, ["a/1": "one", "a/2": "two"])
    }

    @Test func storesReplacesAndRemovesFromAnyPlace() {
        var table = CheckTable()
        var expected: [String: String] = [:]
        for i in 0..<8 {
            table.store(record("a/\(i)", "first \(i)"))
            expected["a/\(i)"] = "first \(i)"
        }
        expectHolds(table, expected)
        // Replaced where it is: the count is unchanged.
        table.store(record("a/3", "second"))
        expected["a/3"] = "second"
        expectHolds(table, expected)
        // The middle, the first, the last, an id never stored, one removed twice.
        for id in ["a/4", "a/0", "a/7", "a/none", "a/4"] {
            table.remove(id)
            expected[id] = nil
            expectHolds(table, expected)
            #expect(table[id] == nil)
            #expect(table.place(of: id) == nil)
        }
        // Stored again after a removal: found at its new place.
        table.store(record("a/4", "back"))
        expected["a/4"] = "back"
        expectHolds(table, expected)
        for id in Array(expected.keys) {
            table.remove(id)
            expected[id] = nil
        }
        expectHolds(table, [:])
    }

    @Test func aCopyKeepsWhatItHeld() {
        var table = CheckTable()
        for i in 0..<5 { table.store(record("a/\(i)", "old")) }
        let snapshot = table
        table.update(at: table.place(of: "a/2")!) { $0.message = "new" }
        table.remove("a/0")
        table.store(record("b/9", "added"))
        table.reserveRoom(forAdding: 100)
        expectHolds(snapshot, Dictionary(uniqueKeysWithValues: (0..<5).map { ("a/\($0)", "old") }))
        expectHolds(table, ["a/1": "old", "a/2": "new", "a/3": "old", "a/4": "old", "b/9": "added"])
    }

    /// Ten probes' first samples of a thousand checks each: the records are grown twofold, the
    /// index only as its buckets need (which double by themselves), so that it keeps no room for
    /// twice the checks it holds for as long as they live.
    @Test func theIndexHasRoomForItsChecksNotForTwiceThem() {
        var table = CheckTable()
        for probe in 0..<10 {
            table.reserveRoom(forAdding: 1000)
            for i in 0..<1000 { table.store(record("p\(probe)/\(i)", "ok")) }
        }
        #expect(table.count == 10_000)
        #expect(table.indexRoom >= 10_000 && table.indexRoom < 20_000, "index room \(table.indexRoom)")
    }

    /// A book whose checks come and go, report after report: its table answers as a dictionary
    /// kept beside it does, through the book's own changes (new checks, a check gone unknown, a
    /// probe-level failure dropped, a probe removed).
    @Test func aBookWhoseChecksComeAndGoMatchesADictionary() {
        var book = CheckBook(agentName: "host")
        var generator = SystemRandomNumberGenerator()
        let probes = ["p", "q", "r"]
        book.probeOrder = probes
        for probe in probes {
            book.policies[probe] = ProbePolicy(failAfter: 1, recoverAfter: 1, needsNetwork: false, plugin: "x")
        }
        var clock: Int64 = 1_700_000_000_000
        for round in 0..<60 {
            clock += 1000
            let probe = probes[round % probes.count]
            let report: ProbeReport
            if round % 11 == 5 {
                report = .failure("down")
            } else {
                let keys = (0..<12).filter { _ in Bool.random(using: &generator) }
                report = .sample(keys.map { Observation(key: "k\($0)", state: .ok, message: "r\(round)") })
            }
            _ = book.apply(report, probe: probe, at: WallTime(milliseconds: clock))
            if round == 40 { book.removeProbe("q") }
            let byID = Dictionary(uniqueKeysWithValues: book.records.values.map { ($0.id, $0) })
            #expect(byID.count == book.records.count)
            let listed = Set(book.idsByProbe.values.flatMap { $0 })
            #expect(Set(byID.keys) == listed)
            for (id, record) in byID {
                #expect(book.records[id]?.message == record.message)
                #expect(book.records[id]?.state == record.state)
            }
            // The document order reached by places in the table: by probe, then by id (ASCII here).
            let rank = Dictionary(uniqueKeysWithValues: probes.enumerated().map { ($1, $0) })
            let documentOrder = byID.values.sorted {
                (rank[$0.probe] ?? .max, $0.id) < (rank[$1.probe] ?? .max, $1.id)
            }
            #expect(book.orderedRecords.map(\.id) == documentOrder.map(\.id))
            #expect(book.orderedRecords.map(\.message) == documentOrder.map(\.message))
            for probe in probes {
                let own = documentOrder.filter { $0.probe == probe }
                #expect(book.records(ofProbe: probe).map(\.id) == own.map(\.id))
                #expect(book.records(ofProbe: probe).map(\.message) == own.map(\.message))
            }
        }
    }
}
