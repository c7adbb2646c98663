import PathwatchNetlink

/// What a counter reading needs of a link beyond its counters, by ifindex, as the last
/// `RTM_GETLINK` dump described it. An `RTM_GETSTATS` dump names links by ifindex alone; these
/// give them their names and carrier-change counts until a link notification says they may
/// have changed.
struct LinkFacts {
    struct Link {
        var name: String
        var carrierChanges: UInt32?
    }

    private var byIndex: [Int32: Link] = [:]

    init() {}

    /// The facts of every link in `links`; nothing else is remembered.
    init(_ links: [PathwatchNetlink.Link]) {
        byIndex.reserveCapacity(links.count)
        for link in links { byIndex[link.index] = Link(name: link.name, carrierChanges: link.carrierChanges) }
    }

    subscript(index: Int32) -> Link? { byIndex[index] }

    var count: Int { byIndex.count }
}
