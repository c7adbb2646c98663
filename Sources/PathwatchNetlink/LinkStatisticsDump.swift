import CNetlink

/// One link's counters from an `RTM_GETSTATS` dump: its ifindex and `IFLA_STATS_LINK_64`.
package struct IndexedLinkStatistics: Sendable, Equatable {
    package var index: Int32
    package var stats: LinkStatistics

    package init(index: Int32, stats: LinkStatistics) {
        self.index = index
        self.stats = stats
    }
}

extension RouteNetlinkSocket {
    /// `sizeof(struct if_stats_msg)`: family u8, pad u8, pad u16, ifindex u32, filter_mask u32.
    static let statsHeaderSize = 12

    /// Every link's 64-bit counters and ifindex, nothing else (`RTM_GETSTATS` with the filter
    /// mask asking for `IFLA_STATS_LINK_64` alone, Linux 4.7 and later). An `RTM_GETLINK` dump
    /// fills one to two kilobytes per link (IPv6 settings and statistics, the device map, ...)
    /// where this fills about 230 bytes, and it is read where it lies in the socket's buffer.
    ///
    /// `links` is emptied and refilled, so a caller that keeps it allocates nothing once it has
    /// grown to the number of links. Names are not in this dump: a link's name and other facts
    /// come from `dumpLinks`, matched by ifindex.
    package func dumpLinkStatistics(
        into links: inout [IndexedLinkStatistics],
        timeoutMilliseconds: Int32 = defaultDumpTimeoutMilliseconds
    ) throws(NetlinkError) {
        var header = [UInt8](repeating: 0, count: Self.statsHeaderSize)
        // filter_mask: IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64), in host byte order.
        withUnsafeBytes(of: UInt32(1 << (IFLA_STATS_LINK_64 - 1))) { header.replaceSubrange(8..<12, with: $0) }
        var attempt = 1
        while true {
            links.removeAll(keepingCapacity: true)
            do {
                return try dumpStatisticsOnce(header: header, into: &links, timeoutMilliseconds: timeoutMilliseconds)
            } catch .dumpInterrupted where attempt < Self.dumpAttempts {
                attempt += 1
            }
        }
    }

    private func dumpStatisticsOnce(
        header: [UInt8], into links: inout [IndexedLinkStatistics], timeoutMilliseconds: Int32
    ) throws(NetlinkError) {
        let request = "RTM_GETSTATS"
        let sequence = try sendDumpRequest(type: Int(RTM_GETSTATS), familyHeader: header, request: request)
        var interrupted = false
        let deadline = monotonicMilliseconds() + Int64(timeoutMilliseconds)
        while true {
            guard let datagram = try receiveDatagramInPlace() else {
                try waitForMoreOfDump(until: deadline, request: request)
                continue
            }
            var done = false
            try AlignedRecords.walk(
                datagram, headerSize: NetlinkMessage.headerSize, length: UInt32.self, record: "message", in: nil
            ) { bounds throws(NetlinkError) in
                let message = UnsafeRawBufferPointer(rebasing: datagram[bounds])
                // nlmsghdr: len u32, type u16, flags u16, seq u32, pid u32; the walk checked the size.
                guard message.loadUnaligned(fromByteOffset: 8, as: UInt32.self) == sequence,
                    message.loadUnaligned(fromByteOffset: 12, as: UInt32.self) == portID, !done
                else { return }
                let type = message.loadUnaligned(fromByteOffset: 4, as: UInt16.self)
                let payload = UnsafeRawBufferPointer(rebasing: message[NetlinkMessage.headerSize...])
                let firstWord = payload.count >= 4 ? payload.loadUnaligned(as: Int32.self) : nil
                switch try DumpStep(
                    type: type, flags: message.loadUnaligned(fromByteOffset: 6, as: UInt16.self),
                    firstWord: firstWord, request: request, interrupted: &interrupted, at: bounds.lowerBound,
                    payloadSize: payload.count)
                {
                case .skip: return
                case .done: done = true
                case .reply:
                    guard Int(type) == RTM_NEWSTATS else { return }
                    if let link = try Self.linkStatistics(payload, at: bounds.lowerBound) { links.append(link) }
                }
            }
            if done { return }
        }
    }

    /// Reads one `RTM_NEWSTATS` payload: `if_stats_msg`, then attributes, of which
    /// `IFLA_STATS_LINK_64` is wanted (others, such as alignment padding, are skipped). Nil for a
    /// link the kernel sent without it.
    package static func linkStatistics(_ payload: UnsafeRawBufferPointer, at offset: Int) throws(NetlinkError)
        -> IndexedLinkStatistics?
    {
        guard payload.count >= statsHeaderSize else {
            throw .malformed(
                "RTM_NEWSTATS at offset \(offset): payload of \(payload.count) byte(s) is too short for if_stats_msg (\(statsHeaderSize) bytes)"
            )
        }
        let index = payload.loadUnaligned(fromByteOffset: 4, as: Int32.self)
        let attributes = UnsafeRawBufferPointer(rebasing: payload[statsHeaderSize...])
        let origin = offset + NetlinkMessage.headerSize + statsHeaderSize
        var stats: LinkStatistics?
        try AlignedRecords.walk(
            attributes, origin: origin, headerSize: NetlinkAttribute.headerSize, length: UInt16.self,
            record: "attribute", in: "RTM_NEWSTATS at offset \(offset)"
        ) { bounds throws(NetlinkError) in
            let type = attributes.loadUnaligned(fromByteOffset: bounds.lowerBound + 2, as: UInt16.self)
            guard type & ~NetlinkAttribute.typeFlags == UInt16(IFLA_STATS_LINK_64) else { return }
            let counters = UnsafeRawBufferPointer(
                rebasing: attributes[bounds.lowerBound + NetlinkAttribute.headerSize..<bounds.upperBound])
            stats = try LinkStatistics(
                rtnlLinkStats64: counters, named: "IFLA_STATS_LINK_64", at: origin + bounds.lowerBound)
        }
        return stats.map { IndexedLinkStatistics(index: index, stats: $0) }
    }
}
