import Testing

@testable import BandwidthProbe

@Suite struct ProcNetDevParserTests {
    func parse(_ fixture: String) throws -> [InterfaceReading] {
        try ProcNetDevParser.parse(try Fixtures.bytes(fixture))
    }

    func error(_ fixture: String) throws -> ProcNetDevError? {
        do {
            _ = try ProcNetDevParser.parse(try Fixtures.bytes(fixture))
            return nil
        } catch let error as ProcNetDevError {
            return error
        }
    }

    @Test func readsEveryInterfaceWithItsEightCounters() throws {
        let readings = try parse("proc-net-dev-typical.txt")
        #expect(readings.map(\.name) == ["lo", "eth0", "wlan0", "docker0", "vethd2b5e1f"])
        let eth0 = try #require(readings.first { $0.name == "eth0" })
        #expect(
            eth0.counters
                == InterfaceCounters(
                    rxBytes: 98_765_432_109_876, rxPackets: 81_234_567, rxErrors: 3, rxDropped: 17,
                    txBytes: 12_345_678_901_234, txPackets: 9_876_543, txErrors: 1, txDropped: 2))
        #expect(eth0.index == nil)
        let wlan0 = try #require(readings.first { $0.name == "wlan0" })
        #expect(wlan0.counters.rxDropped == 45)
        #expect(wlan0.counters.txBytes == 1_024_890)
    }

    @Test func namesEndAtTheLastColonAndKeepColonsAndSpaces() throws {
        let readings = try parse("proc-net-dev-odd-names.txt")
        #expect(readings.map(\.name) == ["eth0:1", "my if", "a:b:c", "eth1", "abcdefghijklmno", "tun9"])
        let spaced = try #require(readings.first { $0.name == "my if" })
        #expect(
            spaced.counters
                == InterfaceCounters(
                    rxBytes: 300, rxPackets: 3, rxErrors: 1, rxDropped: 2, txBytes: 400, txPackets: 4, txErrors: 5,
                    txDropped: 6))
        #expect(readings.first { $0.name == "a:b:c" }?.counters.txBytes == 8)
        // Old kernels glued a wide byte count to the colon.
        let glued = try #require(readings.first { $0.name == "eth1" })
        #expect(glued.counters.rxBytes == 4_294_967_295)
        #expect(glued.counters.txBytes == 4_294_967_296)
        // Tabs separate fields as well as spaces.
        #expect(readings.first { $0.name == "tun9" }?.counters.txBytes == 6)
    }

    /// Bad kernel data is an error naming the line and what was wrong, never a crash or a guess.
    @Test(arguments: [
        ("proc-net-dev-truncated.txt", 4, "interface \"eth0\": expected 16 counters, found 9"),
        ("proc-net-dev-not-a-number.txt", 4, "interface \"eth1\": field 2 is not a decimal number"),
        ("proc-net-dev-overflow.txt", 3, "interface \"eth0\": field 1 does not fit in 64 bits"),
        ("proc-net-dev-no-header.txt", 1, "expected a header line with '|' separators"),
    ])
    func badFilesAreErrorsNamingTheLine(fixture: String, line: Int, message: String) throws {
        let error = try #require(try error(fixture))
        #expect(error.line == line)
        #expect(error.message == message)
    }

    @Test func emptyAndHeaderOnlyFiles() throws {
        #expect(throws: ProcNetDevError.self) { try ProcNetDevParser.parse(Array("".utf8)) }
        let headerOnly = "Inter-|   Receive |  Transmit\n face |bytes |bytes\n"
        #expect(try ProcNetDevParser.parse(Array(headerOnly.utf8)).isEmpty)
    }

    @Test func lineErrorsAreSpecific() {
        let cases: [(String, String)] = [
            ("  eth0 1 2 3", "no colon"),
            ("     : 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", "empty interface name"),
        ]
        for (line, expected) in cases {
            let text = "a|b\nc|d\n\(line)\n"
            #expect {
                try ProcNetDevParser.parse(Array(text.utf8))
            } throws: { error in
                "\(error)".contains(expected) && "\(error)".hasPrefix("line 3:")
            }
        }
    }

    @Test func duplicateNamesAreRejected() {
        let line = "  eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
        let text = "a|b\nc|d\n" + line + line
        #expect(throws: ProcNetDevError(line: 4, message: "interface \"eth0\" is listed twice")) {
            try ProcNetDevParser.parse(Array(text.utf8))
        }
    }

    @Test func thirtyTwoBitKernelsAreRecognisedByMachineName() {
        for machine in ["x86_64", "aarch64", "ppc64le", "riscv64", "s390x", "mips64"] {
            #expect(ProcNetDevSource.machineHas64BitCounters(machine), "\(machine)")
        }
        for machine in ["i686", "armv7l", "mips", "ppc", "", "6", "4", "46", "x86_6"] {
            #expect(!ProcNetDevSource.machineHas64BitCounters(machine), "\(machine)")
        }
    }
}
