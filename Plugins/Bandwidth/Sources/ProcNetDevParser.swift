/// A line of `/proc/net/dev` that could not be read, with its 1-based line number.
package struct ProcNetDevError: Error, Sendable, Equatable, CustomStringConvertible {
    package var line: Int
    package var message: String

    package init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    package var description: String { "line \(line): \(message)" }
}

/// Parses `/proc/net/dev`: two header lines, then one line per interface,
///
///     "  eth0: 1234 56 0 0 0 0 0 0  7890 12 0 0 0 0 0 0"
///
/// The kernel right-aligns the name in six columns and ends it with a colon; old kernels glued
/// wide byte counts to that colon ("eth0:1234567890"). The numbers never contain a colon, so the
/// name ends at the line's last colon, which also keeps names that themselves contain colons or
/// spaces (allowed by older kernels) intact. Receive fields come first (bytes, packets, errs,
/// drop, fifo, frame, compressed, multicast), then transmit (bytes, packets, errs, drop, fifo,
/// colls, carrier, compressed). Extra trailing fields, should a kernel add any, are ignored.
package enum ProcNetDevParser {
    static let fieldCount = 16

    package static func parse(_ bytes: some Collection<UInt8>) throws(ProcNetDevError) -> [InterfaceReading] {
        var readings: [InterfaceReading] = []
        var seen = Set<String>()
        var lineNumber = 0
        var line: [UInt8] = []
        line.reserveCapacity(256)

        func finish() throws(ProcNetDevError) {
            lineNumber += 1
            defer { line.removeAll(keepingCapacity: true) }
            if lineNumber <= 2 {
                // The two header lines ("Inter-|   Receive ..." and " face |bytes ...").
                guard line.contains(UInt8(ascii: "|")) else {
                    throw ProcNetDevError(line: lineNumber, message: "expected a header line with '|' separators")
                }
                return
            }
            if line.allSatisfy(isSpace) { return }
            let reading = try parseInterfaceLine(line, lineNumber: lineNumber)
            guard seen.insert(reading.name).inserted else {
                throw ProcNetDevError(line: lineNumber, message: "interface \"\(reading.name)\" is listed twice")
            }
            readings.append(reading)
        }

        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                try finish()
            } else {
                line.append(byte)
            }
        }
        if !line.isEmpty { try finish() }
        guard lineNumber >= 2 else {
            throw ProcNetDevError(line: lineNumber + 1, message: "missing header lines (empty or truncated file)")
        }
        return readings
    }

    static func parseInterfaceLine(_ line: [UInt8], lineNumber: Int) throws(ProcNetDevError) -> InterfaceReading {
        guard let colon = line.lastIndex(of: UInt8(ascii: ":")) else {
            throw ProcNetDevError(line: lineNumber, message: "expected \"name: counters\", found no colon")
        }
        guard let nameStart = line[..<colon].firstIndex(where: { !isSpace($0) }) else {
            throw ProcNetDevError(line: lineNumber, message: "empty interface name")
        }
        let name = String(decoding: line[nameStart..<colon], as: UTF8.self)

        var fields: [UInt64] = []
        fields.reserveCapacity(fieldCount)
        var index = line.index(after: colon)
        while index < line.endIndex {
            if isSpace(line[index]) {
                index += 1
                continue
            }
            var value: UInt64 = 0
            let start = index
            while index < line.endIndex, !isSpace(line[index]) {
                let byte = line[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                    throw ProcNetDevError(
                        line: lineNumber,
                        message: "interface \"\(name)\": field \(fields.count + 1) is not a decimal number")
                }
                let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else {
                    throw ProcNetDevError(
                        line: lineNumber,
                        message: "interface \"\(name)\": field \(fields.count + 1) does not fit in 64 bits")
                }
                value = sum
                index += 1
            }
            if index > start { fields.append(value) }
        }
        guard fields.count >= fieldCount else {
            throw ProcNetDevError(
                line: lineNumber,
                message: "interface \"\(name)\": expected \(fieldCount) counters, found \(fields.count)")
        }
        let counters = InterfaceCounters(
            rxBytes: fields[0], rxPackets: fields[1], rxErrors: fields[2], rxDropped: fields[3],
            txBytes: fields[8], txPackets: fields[9], txErrors: fields[10], txDropped: fields[11])
        return InterfaceReading(name: name, index: nil, counters: counters)
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
    }
}
