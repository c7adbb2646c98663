extension LinkStatistics {
    /// The leading fields of `rtnl_link_stats64` we read (ten u64). The struct has grown over
    /// kernel releases, so it may be longer, never shorter.
    static let minimumSize = 10 * 8

    /// Reads a `struct rtnl_link_stats64` (`IFLA_STATS64` of a link, `IFLA_STATS_LINK_64` of a
    /// stats dump). A size that is not a multiple of 8, or short of the fields read, is an
    /// error naming the attribute and where its header starts (`offset`).
    init(rtnlLinkStats64 bytes: UnsafeRawBufferPointer, named name: String, at offset: Int) throws(NetlinkError) {
        guard bytes.count >= Self.minimumSize, bytes.count % 8 == 0 else {
            throw .malformed(
                "\(name) at offset \(offset): expected a multiple of 8 bytes, at least \(Self.minimumSize), found \(bytes.count)"
            )
        }
        func counter(_ field: Int) -> UInt64 { bytes.loadUnaligned(fromByteOffset: field * 8, as: UInt64.self) }
        self.init(
            rxPackets: counter(0), txPackets: counter(1), rxBytes: counter(2), txBytes: counter(3),
            rxErrors: counter(4), txErrors: counter(5), rxDropped: counter(6), txDropped: counter(7),
            multicast: counter(8), collisions: counter(9))
    }
}
